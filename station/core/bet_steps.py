"""Bets: when they may be placed, changed or withdrawn (5.4, 5.14, 5.16), and payout options (5.11).

Whether a bet is acceptable is the game's answer (:meth:`station.games.interface.Game.accept`).
"""

from __future__ import annotations

from station.core import outputs as out
from station.core import states as st
from station.core.limit_steps import LimitSteps
from station.core.machine_base import SUPERVISOR_ROLES
from station.core.rounds import BetKey, RoundId, round_id
from station.events import (
    Actor,
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    DealerAction,
    Event,
    LateBetOverride,
    PayoutOptionChanged,
)
from station.games.interface import Play, TableOptions


class BetSteps(LimitSteps):
    """Bet events, late-bet overrides and payout-option changes."""

    def _bet_target(self, ev: Event, region: str) -> dict[BetKey, int] | None:
        """The layout a bet change goes to now, or ``None`` (with a refusal) when closed."""
        if self.state == st.BETTING and self.round is not None:
            return self.round.bets
        if self.state == st.PAYING and self.carried is not None and region in self.rules.carry_regions:
            return self.carried  # after a baccarat Tie, before the next round (5.16)
        r = self.round
        if self.state in (st.DEALING, st.REVEALING) and r is not None and not r.revealed and not r.play.disclosed():
            self._refuse(ev, "no more bets: a supervisor may allow late bets while no card is revealed (5.14)")
        else:
            self._refuse(ev, f"bets are closed: {self.expectation}")
        return None

    def _bet_terms(self) -> tuple[str, Play]:
        """The payout option and the play a bet going on the layout now is checked under: the
        round's while it takes bets; for bets left on after a Tie, those of the next round,
        which opens with any payout option change still pending (5.11)."""
        if self.state == st.PAYING:
            option = self.pending_payout["option"] if self.pending_payout is not None else self.payout_option
            return option, self.rules.open_round()
        assert self.round is not None
        return self.round.payout_option, self.round.play

    def _bet_table(self) -> TableOptions:
        """The table a bet going on the layout now is checked under: the round's; for bets
        left on after a Tie, the next round's, which opens with any change of limits."""
        return self._next_table() if self.state == st.PAYING else self.table

    def _on_bet_placed(self, ev: BetPlaced) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        verdict = self.rules.accept(key, ev.amount, layout, self._bet_table(), *self._bet_terms())
        if not verdict:
            self._refuse(ev, verdict.reason)
            return
        layout[key] = layout.get(key, 0) + ev.amount
        self._note_override(ev.actor, "placed", key, ev.amount)
        self._emit(out.BetAccepted(self._bet_round_id(), ev.box, ev.player, ev.region, layout[key]))

    def _on_bet_changed(self, ev: BetChanged) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        if key not in layout:
            self._refuse(ev, f"{ev.player} has no {ev.region} bet on box {ev.box} to change")
            return
        others = {k: a for k, a in layout.items() if k != key}
        verdict = self.rules.accept(key, ev.amount, others, self._bet_table(), *self._bet_terms())
        if not verdict:
            self._refuse(ev, verdict.reason)
            return
        layout[key] = ev.amount
        self._note_override(ev.actor, "changed", key, ev.amount)
        self._emit(out.BetAccepted(self._bet_round_id(), ev.box, ev.player, ev.region, ev.amount))

    def _on_bet_withdrawn(self, ev: BetWithdrawn) -> None:
        layout = self._bet_target(ev, ev.region)
        if layout is None:
            return
        key = (ev.box, ev.player, ev.region)
        if key not in layout:
            self._refuse(ev, f"{ev.player} has no {ev.region} bet on box {ev.box}")
            return
        del layout[key]
        self._note_override(ev.actor, "withdrawn", key, 0)
        self._emit(out.BetRemoved(self._bet_round_id(), ev.box, ev.player, ev.region))

    def _note_override(self, actor: Actor, what: str, key: BetKey, amount: int) -> None:
        r = self.round
        if r is not None and r.dealt:  # a late change, allowed by a supervisor
            r.decisions.append({"late_bet": what, "bet": [*key, amount], "role": actor.role, "who": actor.who})

    def _bet_round_id(self) -> RoundId:
        if self.state == st.PAYING:  # carried bets belong to the next round
            return round_id(self.shoe.number, self.shoe.rounds + 1)
        assert self.round is not None
        return self.round.round_id

    def _on_late_bets(self, ev: LateBetOverride) -> None:
        r = self.round
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may allow late bets")
        elif self.state not in (st.DEALING, st.REVEALING) or r is None or not self.rules.late_bets:
            self._refuse(ev, self._not_now("allow late bets"))
        elif r.revealed:
            self._refuse(ev, "a card of this round has been revealed: no late bets (5.14)")
        elif told := r.play.disclosed():
            # 5.14 allows late bets only while no card or card value has been revealed "in any
            # way": under every dealing style the draws themselves tell about the cards.
            self._refuse(ev, f"{told}: no late bets (5.14)")
        else:
            r.bets_closed = False
            r.decisions.append({"late_bets_allowed": ev.reason, "role": ev.actor.role, "who": ev.actor.who})
            self.betting_openings += 1
            self._emit(out.LateBetsAllowed(r.round_id, ev.reason, ev.actor.role, ev.actor.who))
            self._trigger("late_bets")

    def _betting_choice(self, ev: DealerAction) -> None:
        """A player's decision while bets are open, recorded by the dealer (Casino War: a
        Casino War Wager holder declines the Tie Wager priority, 5.11)."""
        decision = self._take_decision(ev, st.BETTING)
        if decision is not None and self.round is not None:
            self.round.decisions.append({**decision.record, "role": ev.actor.role, "who": ev.actor.who})

    def _on_payout_option(self, ev: PayoutOptionChanged) -> None:
        options = self.rules.payout_options
        if not options:
            self._refuse(ev, f"{self.rules.title} has no payout options")
        elif ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may change the payout option")
        elif ev.option not in options:
            self._refuse(ev, f"unknown payout option {ev.option!r}: use {' or '.join(options)}")
        else:
            self.pending_payout = {"option": ev.option, "role": ev.actor.role, "who": ev.actor.who}
            self._emit(out.PayoutOptionScheduled(ev.option, "next round", ev.actor.role, ev.actor.who))
