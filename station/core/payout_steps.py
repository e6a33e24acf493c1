"""Payouts the dealer confirms before the next round, and corrections of settled rounds.

**Confirmation** (the dealer's "Perfect Pay"): when a round is settled or voided with bets on
it, and the table requires it (``PayoutConfirmationRequired``, from ``[console]
confirm_payouts``), its boxes wait for the dealer's confirmation that each was paid and
collected as listed; "next round" is refused until every box is confirmed. Each confirmation
is journaled with who (``PayoutsConfirmed``).

**Corrections** (New Jersey 13:69E-1.28P(d), "features to correct dealer errors"): a
supervisor may correct a bet recorded wrongly in a round already settled: its amount, region,
box or player, with a reason. The corrected bet must be one the round's rules would have
accepted, and the round is settled again by the game under its own cards, decisions and
payout option (:meth:`station.games.interface.Game.resettle`); the house's result moves by the
difference. The last ``CORRECTABLE_ROUNDS`` rounds settled can be corrected at the table; an
older one is a matter for the casino's accounts, not the table's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from station.core import outputs as out
from station.core import states as st
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.rounds import BetKey, Round
from station.events import BetCorrected, PayoutConfirmationRequired, PayoutsConfirmed
from station.games.interface import NotAllowed

#: Rounds settled most recently that a supervisor may still correct at the table.
CORRECTABLE_ROUNDS = 100


def box_order(box: str) -> tuple[int, int, str]:
    """Boxes as the layout lists them: numbered boxes in order, then standing regions (S1...)."""
    text = box.strip().upper()
    if text.isdigit():
        return (0, int(text), "")
    if text[:1] == "S" and text[1:].isdigit():
        return (1, int(text[1:]), "")
    return (2, 0, text)


def _boxes(keys: Iterable[str]) -> list[str]:
    return sorted(set(keys), key=box_order)


class PayoutSteps(MachineBase):
    """Payout confirmations, the rule that requires them, and corrections of settled rounds."""

    # --- confirmation ------------------------------------------------------------------------

    def pending_payouts(self, r: Round | None = None) -> list[str]:
        """Boxes of the round being paid whose payouts the dealer has not confirmed yet."""
        r = r if r is not None else self.round
        if r is None or not r.settled or self.state not in (st.PAYING, st.IRREGULARITY, st.PAUSED):
            return []
        bets = r.settlement if r.settlement is not None else r.returned()
        confirmed = {box for c in r.confirmations for box in c["boxes"]}
        return [box for box in _boxes(b.box for b in bets) if box not in confirmed]

    def payouts_hold(self) -> list[str]:
        """Boxes that hold the next round back (none when confirmation is not required)."""
        return self.pending_payouts() if self.confirm_payouts else []

    def _payouts_due(self) -> None:
        """A round was just settled or voided: its boxes wait for the dealer, when required."""
        r = self.round
        if self.confirm_payouts and r is not None:
            boxes = self._due_boxes(r)
            if boxes:
                self._emit(out.PayoutsDue(r.round_id, tuple(boxes)))

    def _due_boxes(self, r: Round) -> list[str]:
        bets = r.settlement if r.settlement is not None else r.returned()
        return _boxes(b.box for b in bets)

    def _on_confirmation_rule(self, ev: PayoutConfirmationRequired) -> None:
        self.confirm_payouts = ev.required
        pending = self.pending_payouts()
        if ev.required and pending and self.round is not None:
            self._emit(out.PayoutsDue(self.round.round_id, tuple(pending)))

    def _on_payouts_confirmed(self, ev: PayoutsConfirmed) -> None:
        r = self.round
        if self.state != st.PAYING or r is None or not r.settled:
            self._refuse(ev, self._not_now("confirm payouts"))
            return
        if ev.round_id and ev.round_id != r.round_id:
            self._refuse(ev, f"round {ev.round_id} is not the one being paid: round {r.round_id} is")
            return
        pending = self.pending_payouts(r)
        boxes = _boxes(ev.boxes) if ev.boxes else pending
        if not pending:
            self._refuse(ev, f"the payouts of round {r.round_id} are confirmed already")
            return
        stray = [box for box in boxes if box not in pending]
        if stray:
            self._refuse(ev, f"box {stray[0]} has no payout of round {r.round_id} left to confirm")
            return
        r.confirmations.append({"boxes": boxes, "role": ev.actor.role, "who": ev.actor.who})
        remaining = tuple(box for box in pending if box not in boxes)
        self._emit(out.PayoutsConfirmation(r.round_id, tuple(boxes), remaining, ev.actor.role, ev.actor.who))

    def _held_for_payouts(self) -> str:
        """Why "next round" must wait ("" when it need not)."""
        jackpot = self.jackpot_hold()
        if jackpot:
            return jackpot
        payment = self.chip_payment_hold()
        if payment:
            return payment
        held = self.payouts_hold()
        if not held:
            return ""
        return f"confirm the payouts of box {', '.join(held)} first (Confirm payouts)"

    # --- corrections -------------------------------------------------------------------------

    def _keep_correctable(self, r: Round) -> None:
        """A round leaves the table: it stays correctable for a while."""
        if r.settlement is None:
            return
        self.correctable[r.round_id] = r
        while len(self.correctable) > CORRECTABLE_ROUNDS:
            del self.correctable[next(iter(self.correctable))]

    def _on_bet_corrected(self, ev: BetCorrected) -> None:
        problem = self._correction_problem(ev)
        if problem:
            self._refuse(ev, problem)
            return
        r = self._correctable_round(ev.round_id)
        assert r is not None and r.settlement is not None
        old: BetKey = (ev.box, ev.player, ev.region)
        new: BetKey = (ev.new_box.strip(), ev.new_player.strip(), ev.new_region.strip())
        bets = dict(r.bets)
        before_amount = bets.pop(old)
        if ev.new_amount:
            amount = bets.get(new, 0) + ev.new_amount
            verdict = self.rules.accept(new, amount, {k: a for k, a in bets.items() if k != new}, self._table_of(r),
                                        r.payout_option, self.rules.open_round())
            if not verdict:
                self._refuse(ev, f"the corrected bet would not have been accepted: {verdict.reason}")
                return
            bets[new] = amount
        if not bets:
            self._refuse(ev, f"round {r.round_id} would have no bet left: void it instead")
            return
        try:
            settlement = self.rules.resettle(r.play, bets, self._table_of(r), r.payout_option)
        except NotAllowed as exc:
            self._refuse(ev, str(exc))
            return
        before, house_before = r.settlement, -sum(b.net for b in r.settlement)
        differences = _differences(before, settlement.bets)
        r.bets, r.settlement = bets, settlement.bets
        self._rerate_round(r, before, settlement.bets)
        self._progressive_corrected(before, settlement.bets, str(r.round_id))
        self.house_net += settlement.house_net - house_before
        self.corrections += 1
        if self.round is r and self.carried is not None and self.carried.get(old) == before_amount:
            del self.carried[old]  # a bet left on after a Tie follows its correction
            if ev.new_amount and new[2] in self.rules.carry_regions:
                self.carried[new] = bets[new]
        self._emit(out.RoundCorrected(
            r.round_id, r.game, (*old, before_amount), (*new, ev.new_amount), before, settlement.bets,
            house_before, settlement.house_net, differences, ev.reason, ev.actor.role, ev.actor.who,
        ))

    def _correctable_round(self, round_id: str) -> Round | None:
        r = self.round
        if r is not None and r.round_id == round_id:
            return r
        return self.correctable.get(round_id)

    def _correction_problem(self, ev: BetCorrected) -> str:
        if ev.actor.role not in SUPERVISOR_ROLES:
            return "only a supervisor may correct a settled round"
        if not ev.reason.strip():
            return "a correction needs its reason, for the journal"
        if ev.new_amount < 0:
            return "a corrected amount is 0 (no such bet) or more"
        r = self._correctable_round(ev.round_id)
        if r is None:
            return (f"round {ev.round_id} cannot be corrected at the table: it is not among the last "
                    f"{CORRECTABLE_ROUNDS} rounds settled")
        if r.voided:
            return f"round {r.round_id} was voided: every bet went back, so no bet of it can be wrong"
        if r.settlement is None:
            return f"round {r.round_id} is not settled yet: its bets are still the dealer's"
        old = (ev.box, ev.player, ev.region)
        if old not in r.bets:
            return f"round {r.round_id} has no {ev.region} bet of {ev.player} on box {ev.box}"
        if (ev.new_box, ev.new_player, ev.new_region) == old and ev.new_amount == r.bets[old]:
            return "the correction changes nothing"
        return ""


def _differences(before: Iterable[Any], after: Iterable[Any]) -> tuple[tuple[str, str, str, int], ...]:
    """What changes hands because of a correction, bet by bet: the change of each bet's net."""
    nets: dict[BetKey, int] = {}
    order: list[BetKey] = []
    for sign, bets in ((-1, before), (1, after)):
        for b in bets:
            key = (b.box, b.player, b.region)
            if key not in nets:
                order.append(key)
            nets[key] = nets.get(key, 0) + sign * b.net
    return tuple((*key, nets[key]) for key in order if nets[key])
