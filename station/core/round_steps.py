"""A round: opening, "no more bets", each card placed where the rules say, reveal, result,
settlement, players' decisions and the next round.

The rules themselves are the game's (:class:`station.games.interface.Game` and the round's
:class:`~station.games.interface.Play`, found once from the configuration as ``self.rules``):
this module asks them what comes next and moves the table's states accordingly, without
asking which game is being played.
"""

from __future__ import annotations

from station.cards import Card
from station.core import irregularities as irr
from station.core import outputs as out
from station.core import states as st
from station.core.dealer_steps import BURN_WORDS, DealerSteps
from station.core.irregularities import HeldCard
from station.core.machine_base import RESULTS_KEPT
from station.core.rounds import Round, round_id
from station.events import CardDrawn, DealerAction, Event
from station.games.interface import Closing, DecisionNeeded, NotAllowed, Stage


class RoundSteps(DealerSteps):
    """Events that move a round along."""

    def _open_round(self) -> None:
        self.shoe.rounds += 1
        rid = round_id(self.shoe.number, self.shoe.rounds)
        if self.pending_payout is not None:
            self.payout_option = self.pending_payout["option"]
            self.payout_history.append({**self.pending_payout, "from_round": rid})
            self._emit(out.PayoutOptionApplied(self.payout_option, rid))
            self.pending_payout = None
        self._apply_pending_limits(rid)
        self.round = Round(rid, self.rules.name, self.rules.open_round(), payout_option=self.payout_option,
                           limits=self.limits_json)
        self._give_round_its_dealer(self.round)
        if self.carried:
            self.round.bets = dict(self.carried)
        self.carried = None
        self.betting_openings += 1
        self._chips_round_opened()

    def _no_more_bets(self, ev: Event) -> None:
        r = self.round
        if self.state != st.BETTING or r is None:
            self._refuse(ev, self._not_now("no more bets"))
            return
        try:
            closing = self.rules.close_betting(r.play, r.bets, self.table, r.payout_option)
        except DecisionNeeded as exc:
            # The game may not close betting by itself (a table differential it must not, or
            # cannot, meet alone): the round waits for a supervisor's decision.
            choices = "; ".join(f"{name}: {words}" for name, words in exc.decisions.items())
            self._raise(irr.CLOSING_DECISION, f"{exc}. Decide {choices}; or resume: back to betting",
                        decisions=(*exc.decisions, irr.RESUME))
            return
        except NotAllowed as exc:
            self._refuse(ev, str(exc))
            return
        self._close_betting(closing)

    def _close_betting(self, closing: Closing) -> None:
        """Betting closes on ``closing`` (the game's, or the one a supervisor decided)."""
        r = self.round
        assert r is not None
        r.play = closing.play
        cuts = closing.reductions
        if cuts:
            r.bets = dict(closing.bets)
            r.decisions.append({"differential": [[*k, old, new] for k, old, new in cuts]})
            self._emit(out.BetsReduced(r.round_id, tuple((k[0], k[1], k[2], old, new) for k, old, new in cuts)))
        if self.options.squeeze:  # styles B and D: who squeezes each hand's cards (the pucks)
            r.play = self.rules.with_card_holders(r.play, r.bets, self.table)
        r.bets_closed = True
        self._chips_bets_closed()
        self._trigger("no_more_bets")
        if r.dealt:  # bets were reopened by a supervisor with cards already out (5.14)
            self._after_card()

    def _deal_instruction(self) -> str:
        r = self.round
        assert r is not None
        return BURN_WORDS if self.dealer_burn_pending else r.play.instruction()

    def _on_card(self, ev: CardDrawn) -> None:
        card, state = ev.card, self.state
        if state == st.IRREGULARITY:
            assert self.irregularity is not None
            in_shoe = self.shoe.can_take(card)
            if in_shoe:
                self.shoe.take(card)
            self.irregularity.held.append(HeldCard(card, in_shoe, ev.device))
            return
        base = self.paused_from if state == st.PAUSED else state
        if base in (st.SHUFFLING, st.CUTTING):
            self._raise(
                "card_without_shoe", f"{card.code} read while no shoe is in play", HeldCard(card, False, ev.device)
            )
            return
        if ev.device in self.faulted:
            self._raise_for_card("card_during_fault", f"{card.code} read while {ev.device} is faulted", card, ev.device)
            return
        if not self.shoe.can_take(card):
            assert self.shoe.composition is not None
            self._raise(
                "impossible_card",
                f"{card.code} cannot be in this shoe: all {self.shoe.decks} have been seen, or it is from another set",
                HeldCard(card, False, ev.device),
            )
            return
        if base == st.BETTING:
            self._raise_for_card("card_before_no_more_bets", f"{card.code} drawn before no more bets", card, ev.device)
        elif state == st.REVEALING and self._dealt_ahead_of_reveal():
            self.shoe.take(card)
            self._deal_face_down(card)
        elif base in (st.REVEALING, st.PAYING, st.WAR_DECISION):
            self._raise_for_card("card_when_stand", f"{card.code} drawn when the rules say stand", card, ev.device)
        elif state == st.BURNING:
            self.shoe.take(card)
            self._burn_card(card)
        elif state in (st.DEALING, st.WAR_BURNING, st.WAR_DEALING):
            self.shoe.take(card)
            self._deal(card, ev.device)
        else:  # pragma: no cover - every state is handled above
            raise AssertionError(state)

    def _deal(self, card: Card, device: str) -> None:
        r = self.round
        assert r is not None
        if not r.dealt:
            self.shoe.round_started()
            if self._burn_for_new_dealer(card):
                return
        try:
            placement = r.play.place(card)
        except NotAllowed:  # defensive: a complete round has already left the dealing states
            self._raise("card_when_stand", f"{card.code} drawn when the rules say stand", HeldCard(card, True, device))
            return
        r.play = placement.play
        if placement.position is None:
            r.burned.append(card)
        else:
            r.place(placement.position, card)
            if not self.options.hidden_cards:
                self._reveal_upto(len(r.dealt))
        self._after_card()

    def _dealt_ahead_of_reveal(self) -> bool:
        """Styles B and D: a card drawn while the players still squeeze the stage before it is
        the card the rules call for next (the shoe's order is the same, so it is the very card
        the dealer would have drawn after the reveal): it is taken as that card, face down, and
        turned as a stage of its own. When the rules call for no card it is an irregularity."""
        r = self.round
        return self.options.squeeze and r is not None and r.play.step().wants_card

    def _deal_face_down(self, card: Card) -> None:
        r = self.round
        assert r is not None
        placement = r.play.place(card)
        r.play = placement.play
        if placement.position is None:  # pragma: no cover - baccarat, the one squeezed game, burns none
            r.burned.append(card)
        else:
            r.place(placement.position, card)
            r.decisions.append({"dealt_before_reveal": [placement.position, card.code]})

    def _after_card(self) -> None:
        """Move the round on after a card, a reveal or a decision: reveal stage, the stages
        after a decision, or settle."""
        r = self.round
        assert r is not None
        if self.options.hidden_cards and r.revealed < len(r.dealt):
            if r.play.reveal_due(self.options.squeeze):
                self._trigger("await_reveal")
            return
        step = r.play.step()
        # The states after a decision are named for Casino War, the one game with decisions.
        stage, state = step.stage, self.state
        if stage is Stage.COMPLETE:
            self._finish()
        elif stage is Stage.DECIDE and state != st.WAR_DECISION:
            self._emit(out.WarDecisionNeeded(r.round_id, tuple(str(b) for b in step.deciding)))
            self._trigger("boxes_tied")
        elif stage is Stage.BURN and state == st.WAR_DECISION:
            self._trigger("go_to_war")
        elif stage is Stage.DEAL_MORE and state == st.WAR_BURNING:
            self._trigger("war_burned")

    def _reveal_upto(self, count: int) -> None:
        r = self.round
        assert r is not None
        seen: dict[str, int] = {}
        for i, (position, card) in enumerate(r.dealt[:count]):
            seen[position] = seen.get(position, 0) + 1
            if i >= r.revealed:
                self._emit(out.CardRevealed(r.round_id, position, seen[position], card))
        r.revealed = max(r.revealed, count)

    def _reveal(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.REVEALING or r is None:
            self._refuse(ev, self._not_now("reveal"))
            return
        self._reveal_upto(r.play.stage_end(r.revealed, self.options.squeeze))
        if r.revealed < len(r.dealt):
            return  # a card dealt ahead of its stage (styles B, D): squeezed and turned next
        if r.play.step().complete:
            self._finish()
        else:
            self._trigger("reveal_more")

    def _finish(self) -> None:
        """The round is complete: its result, every bet settled, and on to paying."""
        r = self.round
        assert r is not None
        game = self.rules
        result = r.play.result()
        r.result = {**result.record, "totals": dict(result.totals)}  # by position, as the game counted them
        self._emit(out.RoundResult(
            r.round_id, game.name, result.hands, result.totals, result.outcome,
            result.natural, result.player_pair, result.banker_pair,
        ))
        settlement = game.settle(r.play, r.bets, self.table, r.payout_option)
        r.settlement = settlement.bets
        self.house_net += settlement.house_net
        self.rounds_settled += 1
        self.shoe.round_completed()
        if result.bets_stay:  # they may be changed before the next round (5.16)
            self.carried = {k: a for k, a in r.bets.items() if k[2] in game.carry_regions}
        self.shoe_results.append({"round_id": r.round_id, **r.result})
        del self.shoe_results[:-RESULTS_KEPT]
        carried = tuple(sorted(self.carried.items())) if result.bets_stay and self.carried else ()
        self._emit(out.RoundSettled(
            r.round_id, game.name, result.hands, result.totals, result.outcome, result.natural,
            result.player_pair, result.banker_pair, settlement.bets, settlement.house_net, r.dealer, carried,
            _min_max(r),
        ))
        self._rate_round(r, settlement.bets)
        self._progressive_round(r, settlement.bets, settlement.meter_awards)
        self._chips_settled(r, settlement.bets)
        self._payouts_due()
        self._trigger("settle")

    def _player_choice(self, ev: DealerAction) -> None:
        """A player's decision during the round (Casino War: war or surrender)."""
        decision = self._take_decision(ev, st.WAR_DECISION)
        if decision is not None and self.round is not None:
            self.round.decisions.append({**decision.record, "who": ev.actor.who})
            self._after_card()

    def _next_round(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.PAYING or r is None:
            self._refuse(ev, self._not_now("next round"))
            return
        held = self._held_for_payouts()
        if held:
            self._refuse(ev, held)
            return
        if self.options.equipment == "continuous":
            self.shoe.awaiting_return.extend(self._cards_of(r))
        self._emit(out.RoundClosed(r.round_id, r.to_json()))
        self._keep_correctable(r)
        self._chips_round_over()
        self.round = None
        if self.shoe.ended and self.options.equipment != "continuous":
            self.carried = None  # bets left on after a final Tie go back to their owners
            self._emit(out.ShoeEnded(self.shoe.number, self.shoe.rounds))
            self._trigger("end_shoe")
            if self.options.equipment == "batch" and self.shoe.ready_set:
                self._batch_set_ready(ev)
            return
        self._open_round()
        self._trigger("next_round")

    @staticmethod
    def _cards_of(r: Round) -> list[Card]:
        return [c for _, c in r.dealt] + list(r.burned) + list(r.dummy)


def _min_max(r: Round) -> tuple[int, int]:
    """The table minimum and maximum round ``r`` was played under (docs/limits.md)."""
    return (r.limits.get("min_bet", 0), r.limits.get("max_bet", 0))
