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


def _by(asked: dict[str, str]) -> str:
    return f"asked by {asked.get('who') or asked.get('role') or 'a supervisor'}"


class StopSteps(MachineBase):
    """Events that stop the table, and the decisions that let it go on."""

    def _call_supervisor(self, ev: DealerAction) -> None:
        if self.state in (st.IRREGULARITY, st.PAUSED):
            self._refuse(ev, self.expectation)
            return
        self._raise("supervisor_called", f"called by {ev.actor.who or 'the dealer'}")

    def _on_pause(self, ev: PauseRequested) -> None:
        """Pause now between rounds; asked with cards in flight (or an irregularity open),
        the pause is accepted and begins when the round ends (:meth:`_begin_pending_pause`)."""
        asked = {"role": ev.actor.role, "who": ev.actor.who, "reason": ev.reason}
        if self.state == st.PAUSED or (self.state == st.IRREGULARITY and self._return_state == st.PAUSED):
            self._refuse(ev, f"the table is already paused ({_by(self.paused_by)})")
        elif self.pause_pending:
            self._refuse(ev, f"a pause is already asked for ({_by(self.pause_pending)}): it begins when the "
                             "round ends")
        elif self.state in st.PAUSABLE:
            self._pause(asked)
        else:
            self.pause_pending = asked
            self._emit(out.PausePending(ev.actor.role, ev.actor.who, ev.reason))

    def _pause(self, asked: dict[str, str]) -> None:
        self.paused_by = asked
        self._pause_return = self.state
        self._emit(out.TablePaused(asked["role"], asked["who"], asked["reason"]))
        self._trigger("pause")

    def _begin_pending_pause(self) -> None:
        """After each event: a pause asked mid-round begins once the table may pause (the
        round is decided, or the irregularity is resolved between rounds). Between events,
        never inside a step, so no step finds the table paused half-way through."""
        r = self.round
        round_over = r is None or r.settled or r.voided or not r.dealt
        if self.pause_pending and self.state in st.PAUSABLE and round_over:
            asked, self.pause_pending = self.pause_pending, {}
            self._pause(asked)

    def _with_pending_pause(self, words: str) -> str:
        if not self.pause_pending:
            return words
        return f"{words} (pause {_by(self.pause_pending)}: it begins when the round ends)"

    def _on_resume(self, ev: ResumeRequested) -> None:
        if self.pause_pending and self.state != st.PAUSED:
            self.pause_pending = {}  # withdrawn before it began
            self._emit(out.PauseWithdrawn(ev.actor.role, ev.actor.who))
            return
        if self.state != st.PAUSED:
            self._refuse(ev, "the table is not paused")
            return
        self.paused_by = {}
        self._emit(out.TableResumed(ev.actor.role, ev.actor.who))
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
        self._emit(out.IrregularityResolved(problem.ident, problem.reason, ev.decision, ev.actor.role, ev.actor.who,
                                            ev.detail))
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
        self.rounds_voided += 1
        if r.dealt or r.burned:
            self.shoe.round_completed()
        self._emit(out.RoundVoided(r.round_id, reason, returned, r.dealer,
                                   (r.limits.get("min_bet", 0), r.limits.get("max_bet", 0))))
        self._payouts_due()
