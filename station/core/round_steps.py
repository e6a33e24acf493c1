"""A round: opening, "no more bets", each card placed where the rules say, reveal, result,
settlement, war decisions and the next round.

The rules themselves are the game modules' (:mod:`station.games.baccarat.rules`,
:mod:`station.games.war.rules`, settlement through :mod:`station.core.wagers`).
"""

from __future__ import annotations

from station.cards import Card
from station.core import outputs as out
from station.core import states as st
from station.core import wagers
from station.core.irregularities import HeldCard
from station.core.machine_base import MachineBase
from station.core.rounds import Round, WarRound, round_id
from station.events import CardDrawn, DealerAction, Event
from station.games.baccarat import rules as baccarat
from station.games.baccarat.table import BaccaratTable
from station.games.war import rules as war
from station.games.war.table import WarTable


class RoundSteps(MachineBase):
    """Events that move a round along."""

    def _open_round(self) -> None:
        self.shoe.rounds += 1
        rid = round_id(self.shoe.number, self.shoe.rounds)
        if self.pending_payout is not None:
            self.payout_option = self.pending_payout["option"]
            self.payout_history.append({**self.pending_payout, "from_round": rid})
            self._emit(out.PayoutOptionApplied(self.payout_option, rid))
            self.pending_payout = None
        cls = WarRound if self.options.game == "war" else Round
        self.round = cls(rid, self.options.game, payout_option=self.payout_option)
        if self.carried:
            self.round.bets = dict(self.carried)
        self.carried = None
        self.betting_openings += 1

    def _no_more_bets(self, ev: Event) -> None:
        r = self.round
        if self.state != st.BETTING or r is None:
            self._refuse(ev, self._not_now("no more bets"))
            return
        if self.options.game == "baccarat":
            table = self.table
            assert isinstance(table, BaccaratTable)
            if table.table_differential is not None and r.bets:
                after, cuts, problem = wagers.differential_cut(r.bets, wagers.table_with_payout(table, r.payout_option))
                if problem:
                    self._refuse(ev, f"table differential exceeded: {problem}")
                    return
                if cuts:
                    r.bets = after
                    r.decisions.append({"differential": [[*k, old, new] for k, old, new in cuts]})
                    self._emit(out.BetsReduced(r.round_id, tuple((k[0], k[1], k[2], old, new) for k, old, new in cuts)))
        else:
            assert isinstance(r, WarRound)
            if not r.bets:
                self._refuse(ev, "no wagers on the table: a Casino War round needs at least one")
                return
            r.engine = war.WarRound.start([wagers.war_wager(k, a) for k, a in r.bets.items()])
        r.bets_closed = True
        self._trigger("no_more_bets")
        if r.dealt:  # bets were reopened by a supervisor with cards already out (5.14)
            self._after_card()

    def _deal_instruction(self) -> str:
        r = self.round
        assert r is not None
        if isinstance(r, WarRound):
            assert r.engine is not None
            return r.engine.next_step().instruction()
        text = baccarat.deal_position(r.cards_at("player"), r.cards_at("banker"))
        return text or "round complete"

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
            self._raise("card_without_shoe", f"{card.code} read while no shoe is in play", HeldCard(card, False, ev.device))
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
        if isinstance(r, WarRound):
            assert r.engine is not None
            step = r.engine.next_step()
            r.engine = r.engine.with_card(card)
            if step.kind is war.StepKind.BURN:
                r.burned.append(card)
            else:
                position = {
                    war.StepKind.DEAL_BOX: f"box {step.box}",
                    war.StepKind.DEAL_DEALER: "dealer",
                    war.StepKind.DEAL_WAR_BOX: f"war box {step.box}",
                    war.StepKind.DEAL_DEALER_WAR: "war dealer",
                }[step.kind]
                r.place(position, card)
                self._reveal_upto(len(r.dealt))
        else:
            hand = baccarat.next_hand(r.cards_at("player"), r.cards_at("banker"))
            if hand is None:  # defensive: a complete round has already left the dealing state
                self._raise("card_when_stand", f"{card.code} drawn when the rules say stand", HeldCard(card, True, device))
                return
            r.place(hand.value, card)
            if not self.options.hidden_cards:
                self._reveal_upto(len(r.dealt))
        self._after_card()

    def _after_card(self) -> None:
        """Move the round on after a card (or a reveal): reveal stage, war steps, or settle."""
        r = self.round
        assert r is not None
        if isinstance(r, WarRound):
            assert r.engine is not None
            kind = r.engine.next_step().kind
            target = {
                war.StepKind.DECIDE: st.WAR_DECISION,
                war.StepKind.BURN: st.WAR_BURNING,
                war.StepKind.DEAL_WAR_BOX: st.WAR_DEALING,
                war.StepKind.DEAL_DEALER_WAR: st.WAR_DEALING,
            }.get(kind)
            if kind is war.StepKind.COMPLETE:
                self._finish_war()
            elif kind is war.StepKind.DECIDE and self.state != st.WAR_DECISION:
                self._emit(out.WarDecisionNeeded(r.round_id, tuple(str(b) for b in r.engine.tied_boxes())))
                self._trigger("boxes_tied")
            elif target == st.WAR_BURNING and self.state == st.WAR_DECISION:
                self._trigger("go_to_war")
            elif target == st.WAR_DEALING and self.state == st.WAR_BURNING:
                self._trigger("war_burned")
            return
        player, banker = r.cards_at("player"), r.cards_at("banker")
        following = baccarat.next_hand(player, banker)
        if self.options.hidden_cards and r.revealed < len(r.dealt):
            stage_over = len(r.dealt) >= 4 if self.options.squeeze else following is None
            if stage_over:
                self._trigger("await_reveal")
            return
        if following is None:
            self._finish_baccarat()

    def _reveal_upto(self, count: int) -> None:
        r = self.round
        assert r is not None
        if not self.live:
            r.revealed = max(r.revealed, count)
            return
        seen: dict[str, int] = {}
        for i, (position, card) in enumerate(r.dealt[:count]):
            seen[position] = seen.get(position, 0) + 1
            if i >= r.revealed:
                if self.live:
                    self._emit(out.CardRevealed(r.round_id, position, seen[position], card))
        r.revealed = max(r.revealed, count)

    def _reveal(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.REVEALING or r is None:
            self._refuse(ev, self._not_now("reveal"))
            return
        self._reveal_upto(len(r.dealt))
        if baccarat.next_hand(r.cards_at("player"), r.cards_at("banker")) is None:
            self._finish_baccarat()
        else:
            self._trigger("reveal_more")

    def _finish_baccarat(self) -> None:
        r = self.round
        assert r is not None
        result = baccarat.result_of(r.cards_at("player"), r.cards_at("banker"))
        r.result = {
            "outcome": result.outcome.value,
            "player": [c.code for c in result.player],
            "banker": [c.code for c in result.banker],
            "player_total": result.player_total,
            "banker_total": result.banker_total,
            "natural": result.natural,
            "player_pair": result.player_pair,
            "banker_pair": result.banker_pair,
        }
        hands = (("player", result.player), ("banker", result.banker))
        totals = (("player", result.player_total), ("banker", result.banker_total))
        if self.live:
            self._emit(out.RoundResult(
                r.round_id, "baccarat", hands, totals, result.outcome.value,
                result.natural, result.player_pair, result.banker_pair,
            ))
        table = self.table
        assert isinstance(table, BaccaratTable)
        settled, house = wagers.settle_baccarat(r.bets, result, wagers.table_with_payout(table, r.payout_option))
        self._record_settlement(r, settled, house)
        if result.outcome is baccarat.Outcome.TIE:
            self.carried = {k: a for k, a in r.bets.items() if k[2] in ("banker", "player")}
        self.shoe_results.append({"round_id": r.round_id, **r.result})
        if self.live:
            self._emit(out.RoundSettled(
                r.round_id, "baccarat", hands, totals, result.outcome.value, result.natural,
                result.player_pair, result.banker_pair, settled, house,
            ))
        self._trigger("settle")

    def _finish_war(self) -> None:
        r = self.round
        assert isinstance(r, WarRound) and r.engine is not None
        table = self.table
        assert isinstance(table, WarTable)
        engine = r.engine
        assert engine.dealer_first is not None
        dealer = engine.dealer_first.rank.war_rank
        per_box = {
            str(b): ("win" if c.rank.war_rank > dealer else "lose" if c.rank.war_rank < dealer else "tie")
            for b, c in engine.first
        }
        hands = tuple((position, (card,)) for position, card in r.dealt)
        totals = tuple((position, card.rank.war_rank) for position, card in r.dealt)
        outcome = " ".join(f"box {b}:{v}" for b, v in per_box.items())
        r.result = {
            "outcome": outcome,
            "boxes": per_box,
            "dealt": [[p, c.code] for p, c in r.dealt],
            "war_boxes": [str(b) for b in engine.war_boxes()],
        }
        self._emit(out.RoundResult(r.round_id, "war", hands, totals, outcome))
        settled, house = wagers.settle_casino_war(engine, table)
        self._record_settlement(r, settled, house)
        self.shoe_results.append({"round_id": r.round_id, **r.result})
        self._emit(out.RoundSettled(r.round_id, "war", hands, totals, outcome, False, False, False, settled, house))
        self._trigger("settle")

    def _record_settlement(self, r: Round, settled: tuple[out.SettledBet, ...], house: int) -> None:
        r.settlement = settled
        self.house_net += house
        self.settled_rounds.append(r.round_id)
        self.shoe.round_completed()

    def _war_choice(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.WAR_DECISION or not isinstance(r, WarRound) or r.engine is None:
            self._refuse(ev, self._not_now(ev.action))
            return
        try:
            box = wagers.box_number(ev.box)
        except wagers.BetFormError as exc:
            self._refuse(ev, str(exc))
            return
        players = [p for b, p in r.engine.deciders() if b == box and r.engine.choice_of(b, p) is None]
        if ev.player:
            players = [p for p in players if p == ev.player]
        if not players:
            self._refuse(ev, f"nobody on box {box} has a war-or-surrender decision to make")
            return
        choice = war.Choice(ev.action)
        for player in players:
            r.engine = r.engine.with_choice(box, player, choice)
        r.decisions.append({"war_choice": ev.action, "box": ev.box, "players": players, "who": ev.actor.who})
        self._after_card()

    def _next_round(self, ev: DealerAction) -> None:
        r = self.round
        if self.state != st.PAYING or r is None:
            self._refuse(ev, self._not_now("next round"))
            return
        if self.options.equipment == "continuous":
            self.shoe.awaiting_return.extend(self._cards_of(r))
        if self.on_round_closed is not None:
            self.on_round_closed(r.to_json())
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
