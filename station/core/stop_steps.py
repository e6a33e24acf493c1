"""Stops: device faults, irregularities and the supervisor's decisions, calling the supervisor,
pause and resume. See :mod:`station.core.irregularities` for the decisions each one allows.
"""

from __future__ import annotations

from station.cards import Card
from station.core import irregularities as irr
from station.core import outputs as out
from station.core import states as st
from station.core.irregularities import HeldCard, Irregularity
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.events import (
    CardDrawn,
    DealerAction,
    DeviceFault,
    DeviceRecovered,
    PauseRequested,
    ResumeRequested,
    SupervisorDecision,
)
from station.games.interface import NotAllowed

#: The code of the DeviceFault the service posts for a failed self-test at start-up.
SELF_TEST = "selftest"


class StopSteps(MachineBase):
    """Events that stop the table, and the decisions that let it go on."""

    def _call_supervisor(self, ev: DealerAction) -> None:
        if self.state in (st.IRREGULARITY, st.PAUSED):
            self._refuse(ev, self.expectation)
            return
        self._raise("supervisor_called", f"called by {ev.actor.who or 'the dealer'}")

    def _on_pause(self, ev: PauseRequested) -> None:
        if self.state not in st.PAUSABLE:
            self._refuse(ev, f"cannot pause with cards in flight: {self.expectation}")
            return
        self.paused_by = {"role": ev.actor.role, "who": ev.actor.who, "reason": ev.reason}
        self._pause_return = self.state
        self._trigger("pause")

    def _on_resume(self, ev: ResumeRequested) -> None:
        if self.state != st.PAUSED:
            self._refuse(ev, "the table is not paused")
            return
        self.paused_by = {}
        self._trigger("resume")
        self._pause_return = ""

    def _on_fault(self, ev: DeviceFault) -> None:
        self.faulted[ev.device] = ev.reason
        self._emit(out.DeviceFaulted(ev.device, ev.reason, ev.code))
        if not self._critical(ev.device):
            return
        if self.state in st.MID_ROUND:
            self._raise("device_fault", f"{ev.device}: {ev.reason}", device=ev.device)
        elif ev.code == SELF_TEST and self.state != st.IRREGULARITY:
            self._raise("self_test_failed", f"{ev.device}: {ev.reason}", device=ev.device)

    def _on_recovered(self, ev: DeviceRecovered) -> None:
        if self.faulted.pop(ev.device, None) is not None:
            self._emit(out.DeviceBack(ev.device))

    def latch_internal_error(self, event_kind: str, error: BaseException) -> None:
        """Applying ``event_kind`` raised ``error``: stop the round for a supervisor with the
        error's summary, never go on with state that may be half applied. Replay latches at
        the same input, so the state after a restart is the same stopped one."""
        detail = f"{type(error).__name__}: {error} (while applying {event_kind})"[:300]
        if self.state == st.IRREGULARITY and self.irregularity is not None:
            # Already stopped: the supervisor's decision must now weigh this too.
            self.irregularity.detail = f"{self.irregularity.detail}; then {detail}"[:600]
            problem = self.irregularity
            self._emit(out.IrregularityRaised(problem.ident, problem.reason, problem.detail, problem.round_id,
                                              problem.decisions))
            return
        self._raise("internal_error", detail)

    def _raise_for_card(self, reason: str, detail: str, card: Card, device: str) -> None:
        """Stop the round over a card read from the shoe: it leaves the composition if it can
        (an impossible card read during a fault is held without touching the composition)."""
        in_shoe = self.shoe.can_take(card)
        if in_shoe:
            self.shoe.take(card)
        self._raise(reason, detail, HeldCard(card, in_shoe, device))

    def _raise(self, reason: str, detail: str, held: HeldCard | None = None, device: str = "",
               decisions: tuple[str, ...] = ()) -> None:
        r = self.round
        round_open = r is not None and not r.settled
        if not decisions:
            decisions = irr.allowed_decisions(reason, round_open=round_open, settled=bool(r and r.settled))
        if r is None:
            decisions = tuple(d for d in decisions if d not in (irr.DUMMY, irr.VOID)) or (irr.BURN,)
        self.irregularities_raised += 1
        self.irregularity = Irregularity(
            ident=self.irregularities_raised,
            reason=reason,
            detail=detail,
            round_id=r.round_id if r else "",
            return_state=self.state,
            decisions=decisions,
            device=device,
            held=[held] if held else [],
        )
        self._return_state = self.state
        self._trigger("stop")
        problem = self.irregularity
        self._emit(out.IrregularityRaised(problem.ident, reason, detail, problem.round_id, decisions))

    def _on_decision(self, ev: SupervisorDecision) -> None:
        problem = self.irregularity
        if self.state != st.IRREGULARITY or problem is None:
            self._refuse(ev, "there is no irregularity to decide")
            return
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may decide an irregularity")
            return
        if ev.decision not in problem.decisions:
            self._refuse(ev, f"{ev.decision!r} is not allowed here: choose {', '.join(problem.decisions)}")
            return
        if problem.reason == "self_test_failed":
            # The supervisor takes the device as it is (it was checked, or is being replaced).
            self.faulted.pop(problem.device, None)
        blocking = self._blocking_faults()
        if ev.decision == irr.RESUME and blocking:
            self._refuse(ev, f"{', '.join(blocking)} still faulted: wait for it to recover, or void the round")
            return
        closing = None
        if problem.reason == irr.CLOSING_DECISION and ev.decision != irr.RESUME:
            r = self.round
            assert r is not None
            try:
                closing = self.rules.close_betting(r.play, r.bets, self.table, r.payout_option, ev.decision)
            except NotAllowed as exc:
                self._refuse(ev, str(exc))
                return
        record = {
            "irregularity": problem.ident,
            "reason": problem.reason,
            "detail": problem.detail,
            "decision": ev.decision,
            "role": ev.actor.role,
            "who": ev.actor.who,
            "note": ev.detail,
            "held": [h.card.code for h in problem.held],
        }
        r = self.round
        if r is not None:
            r.decisions.append(record)
        self.irregularity = None
        self._emit(out.IrregularityResolved(problem.ident, problem.reason, ev.decision, ev.actor.role, ev.actor.who))
        held = problem.held
        self._return_state = problem.return_state
        if ev.decision == irr.VOID:
            assert r is not None
            r.burned.extend(h.card for h in held)
            self._void_round(f"{problem.words}: voided by {ev.actor.who or 'supervisor'}")
            self._trigger("void")
        elif ev.decision == irr.BURN:
            self._trigger("resolve")
            self._burn_held(held, problem.return_state)
        elif ev.decision == irr.DUMMY:
            assert r is not None
            r.dummy.extend(h.card for h in held)
            self._trigger("resolve")
        elif ev.decision in irr.INTEGRITY_DECISIONS:
            self._decide_integrity(ev, problem)
        elif closing is not None:  # back to betting, then closed as the supervisor decided
            self._trigger("resolve")
            self._close_betting(closing)
        else:
            self._trigger("resolve")
            self.shoe.put_back([h.card for h in held if h.in_shoe])
            for h in held:
                self._on_card(CardDrawn(h.device, h.card))

    def _burn_held(self, held: list[HeldCard], where: str) -> None:
        """Burned by decision: in the shoe's burn they count as burn cards; in a war they
        count toward the three burned; otherwise they are set aside with the round."""
        r = self.round
        for h in held:
            if where == st.BURNING and self.state == st.BURNING:
                self._burn_card(h.card)
            elif where == st.WAR_BURNING and self.state == st.WAR_BURNING:
                self._deal(h.card, h.device)
            elif r is not None:
                r.burned.append(h.card)
            else:
                self.discarded.append(h.card)

    def _void_round(self, reason: str) -> None:
        r = self.round
        assert r is not None
        r.voided = True
        r.void_reason = reason
        returned = r.returned()
        self.voided_rounds.append(r.round_id)
        if r.dealt or r.burned:
            self.shoe.round_completed()
        self._emit(out.RoundVoided(r.round_id, reason, returned))
