"""Casino War behind the game interface (:mod:`station.games.interface`).

:class:`WarPlay` wraps the order of play (:class:`~station.games.war.rules.WarRound`) and
names the table's positions (``"box 3"``, ``"dealer"``, ``"war box 3"``, ``"war dealer"``);
:class:`WarGame` the rest: the table options as the configuration gives them, wagers in the
layout's words, starting the round at "no more bets" and the settlement. The rules
themselves are the modules beside this one; nothing here states a rule, it only translates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from station.cards import Card, parse_card
from station.games.board import ResultsBoard
from station.games.interface import Closing, Decision, NotAllowed, Placement, PlayResult, Settlement, Stage, Step
from station.games.layout import Acceptance, BetFormError, BetKey, SettledBet, box_number
from station.games.limits import TableLimits
from station.games.table import Chips
from station.games.war.rules import Choice, StepKind, WarRound, WarStateError
from station.games.war.settlement import settle_war
from station.games.war.table import MAX_WAR_BOXES, WarTable
from station.games.war.wagers import (
    REGIONS,
    WagerKind,
    WarWager,
    accept_wager,
    tie_priority_problem,
    wager_from_layout,
)
from station.money import Money

_STAGES = {
    StepKind.DEAL_BOX: Stage.DEAL,
    StepKind.DEAL_DEALER: Stage.DEAL,
    StepKind.DECIDE: Stage.DECIDE,
    StepKind.BURN: Stage.BURN,
    StepKind.DEAL_WAR_BOX: Stage.DEAL_MORE,
    StepKind.DEAL_DEALER_WAR: Stage.DEAL_MORE,
    StepKind.COMPLETE: Stage.COMPLETE,
}
_STEPS = {stage: Step(stage) for stage in Stage}
_CHOICES = tuple(choice.value for choice in Choice)


#: The dealer's action recording that a player holding a Casino War Wager on a box declines
#: the Tie Wager there, to which they are first entitled (5.11).
DECLINE_TIE = "decline_tie"


@dataclass(frozen=True, slots=True)
class WarPlay:
    """One Casino War round in progress. Before "no more bets" it has no wagers;
    ``tie_declined`` lists the (box, player) who declined their Tie Wager priority (5.11)."""

    engine: WarRound
    tie_declined: tuple[tuple[int, str], ...] = ()

    def step(self) -> Step:
        stage = _STAGES[self.engine.next_step().kind]
        if stage is Stage.DECIDE:
            return Step(stage, self.engine.tied_boxes())
        return _STEPS[stage]

    def instruction(self) -> str:
        return self.engine.next_step().instruction()

    def place(self, card: Card) -> Placement:
        step = self.engine.next_step()
        try:
            engine = self.engine.with_card(card)
        except WarStateError as exc:
            raise NotAllowed(str(exc)) from None
        position = {
            StepKind.DEAL_BOX: f"box {step.box}",
            StepKind.DEAL_DEALER: "dealer",
            StepKind.DEAL_WAR_BOX: f"war box {step.box}",
            StepKind.DEAL_DEALER_WAR: "war dealer",
        }.get(step.kind)  # a burned card has no position
        return Placement(position, WarPlay(engine, self.tie_declined))

    def decide(self, box: str, player: str, choice: str) -> Decision:
        if choice == DECLINE_TIE:
            return self._decline_tie(box, player)
        if choice not in _CHOICES:
            raise NotAllowed(f"{choice!r} is not a Casino War decision: war or surrender")
        try:
            number = box_number(box)
        except BetFormError as exc:
            raise NotAllowed(str(exc)) from None
        engine = self.engine
        players = [p for b, p in engine.deciders() if b == number and engine.choice_of(b, p) is None]
        if player:
            players = [p for p in players if p == player]
        if not players:
            raise NotAllowed(f"nobody on box {number} has a war-or-surrender decision to make")
        for who in players:
            engine = engine.with_choice(number, who, Choice(choice))
        return Decision(WarPlay(engine, self.tie_declined), {"war_choice": choice, "box": box, "players": players})

    def _decline_tie(self, box: str, player: str) -> Decision:
        """5.11: the player holding a Casino War Wager on ``box`` lets others place the Tie
        Wager there first. Recorded while bets are open, whichever was placed first."""
        if self.engine.wagers:
            raise NotAllowed("a Tie Wager can be declined only while bets are open")
        try:
            number = box_number(box)
        except BetFormError as exc:
            raise NotAllowed(str(exc)) from None
        if not player.strip():
            raise NotAllowed(f"name the player on box {number} who declines the Tie Wager")
        if (number, player) in self.tie_declined:
            raise NotAllowed(f"{player} has already declined the Tie Wager on box {number}")
        play = WarPlay(self.engine, (*self.tie_declined, (number, player)))
        return Decision(play, {"tie_declined": box, "player": player})

    def reveal_due(self, squeeze: bool) -> bool:
        return self.step().complete  # Casino War cards are turned as they are dealt

    def stage_end(self, revealed: int, squeeze: bool) -> int:
        return len(self.dealt())  # never face down

    def disclosed(self) -> str:
        return "Casino War cards are turned as they are dealt" if self.engine.first else ""

    def dealt(self) -> tuple[tuple[str, Card], ...]:
        """Every card placed, in dealing order, with its position."""
        engine = self.engine
        cards: list[tuple[str, Card]] = [(f"box {b}", c) for b, c in engine.first]
        if engine.dealer_first is not None:
            cards.append(("dealer", engine.dealer_first))
        cards += [(f"war box {b}", c) for b, c in engine.war]
        if engine.dealer_war is not None:
            cards.append(("war dealer", engine.dealer_war))
        return tuple(cards)

    def result(self) -> PlayResult:
        engine = self.engine
        if not engine.complete or engine.dealer_first is None:
            raise NotAllowed(f"the round is not complete: {engine.next_step().instruction()}")
        dealer = engine.dealer_first.rank.war_rank
        per_box = {
            str(b): ("win" if c.rank.war_rank > dealer else "lose" if c.rank.war_rank < dealer else "tie")
            for b, c in engine.first
        }
        dealt = self.dealt()
        outcome = " ".join(f"box {b}:{v}" for b, v in per_box.items())
        record = {
            "outcome": outcome,
            "boxes": per_box,
            "dealt": [[p, c.code] for p, c in dealt],
            "war_boxes": [str(b) for b in engine.war_boxes()],
            # tied boxes that did not go to war because their players surrendered (the board shows it)
            "surrendered": sorted({str(b) for b, _, c in engine.choices if c is Choice.SURRENDER}
                                  - {str(b) for b in engine.war_boxes()}),
        }
        hands = tuple((position, (card,)) for position, card in dealt)
        totals = tuple((position, card.rank.war_rank) for position, card in dealt)
        return PlayResult(record, hands, totals, outcome)

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"choices": [[b, p, c.value] for b, p, c in self.engine.choices]}
        if self.tie_declined:
            record["tie_declined"] = [[b, p] for b, p in self.tie_declined]
        return record


class WarGame:
    """Casino War (seed 002) for the state machine."""

    name = "war"
    title = "casino war"
    regions: tuple[str, ...] = REGIONS
    region_words: Mapping[str, str] = MappingProxyType({"war": "War", "tie": "Tie", "go_to_war": "Go to war"})
    carry_regions: tuple[str, ...] = ()
    choices: tuple[str, ...] = _CHOICES
    betting_choices: tuple[str, ...] = (DECLINE_TIE,)
    payout_options: tuple[str, ...] = ()
    late_bets = False
    hides_cards = False
    table_type = WarTable
    limit_keys: tuple[str, ...] = ("min_bet", "max_bet", "chips", "tie_min", "tie_max", "box_max", "player_max")

    def limits_of(self, table: WarTable) -> TableLimits:
        return TableLimits(table.min_bet, table.max_bet, table.chips.denominations, box_max=table.box_max or 0,
                      player_max=table.player_max or 0)

    def wager_keys(self, table: WarTable, payout_option: str) -> Mapping[str, str]:
        # A Casino War Wager is priced as played to the end: the player goes to war on a tie.
        return {"war": "casino_war_go_to_war", "tie": f"tie_wager_{table.tie_pays}_to_1"}

    def table_with_limits(self, table: WarTable, limits: TableLimits) -> WarTable:
        return replace(table, min_bet=limits.min_bet, max_bet=limits.max_bet, chips=Chips(limits.chips),
                       box_max=limits.box_max or None, player_max=limits.player_max or None)

    def default_table(self) -> WarTable:
        return WarTable(boxes=7, min_bet=1000, max_bet=500_000, chips=Chips((100, 500, 1000, 2500, 10_000)))

    def settings_problem(self, settings: Any) -> tuple[str, str] | None:
        if settings.boxes > MAX_WAR_BOXES:
            return "boxes", f"{settings.boxes} boxes is more than a war table has ({MAX_WAR_BOXES})"
        if settings.standing_regions:
            return "standing_regions", "standing-player regions exist only in full baccarat (rule 5.6)"
        return None

    def side_bet_problems(self, settings: Any) -> list[tuple[str, str]]:
        return [(f"side_bets.{name}", "Casino War has no side bets: they are baccarat's (RULES \"Baccarat side bets\")")
                for name in settings.side_bets]

    def regions_of(self, table: WarTable) -> tuple[str, ...]:
        return REGIONS

    def table_from_settings(self, settings: Any) -> WarTable:
        t, war = settings, settings.war
        return WarTable(
            boxes=t.boxes, min_bet=t.min_bet, max_bet=t.max_bet, chips=Chips(tuple(sorted(t.chips))),
            players_per_box=t.players_per_box, box_max=war.box_max or None,
            player_max=war.player_max or None, tie_pays=war.tie_pays,
            tie_after_tie_bonus=war.tie_after_tie_bonus or None,
            max_boxes_per_player=war.max_boxes_per_player, money=Money(t.minor_digits, t.currency),
        )

    def payout_option(self, table: WarTable) -> str:
        return ""

    def variant_of(self, table: WarTable) -> str:
        return ""  # one layout: up to 7 boxes

    def limit_lines(self, table: WarTable, payout_option: str) -> tuple[tuple[str, int, int], ...]:
        return ()

    def cut_problem(self, box: str, player: str, table: WarTable) -> str:
        if not box.strip():
            return "" if not player else f"name the box {player} sits at"
        try:
            number = box_number(box)
        except BetFormError as exc:
            return str(exc)
        if not 1 <= number <= table.boxes:
            return f"there is no box {number}: this table has boxes 1 to {table.boxes}"
        return ""

    def accept(
        self, key: BetKey, amount: int, others: Mapping[BetKey, int], table: WarTable, payout_option: str,
        play: WarPlay,
    ) -> Acceptance:
        try:
            wagers = [wager_from_layout(k, a) for k, a in others.items()]
            return accept_wager(wager_from_layout(key, amount), wagers, table, tie_declined=play.tie_declined)
        except BetFormError as exc:
            return Acceptance.refuse(str(exc), "")

    def open_round(self) -> WarPlay:
        return WarPlay(WarRound(()))

    def board(self) -> ResultsBoard:
        from station.games.war.board import BoxesBoard  # only where a board is shown: not in the rules

        return BoxesBoard()

    def play_state(self, play: WarPlay) -> dict[str, Any]:
        e = play.engine
        return {
            "wagers": [[w.box, w.player, w.kind.value, w.amount] for w in e.wagers],
            "first": [[b, c.code] for b, c in e.first],
            "dealer_first": e.dealer_first.code if e.dealer_first is not None else None,
            "choices": [[b, p, c.value] for b, p, c in e.choices],
            "burned": e.burned,
            "war": [[b, c.code] for b, c in e.war],
            "dealer_war": e.dealer_war.code if e.dealer_war is not None else None,
            "tie_declined": [[b, p] for b, p in play.tie_declined],
        }

    def restore_play(self, state: Mapping[str, Any]) -> WarPlay:
        def card(code: str | None) -> Card | None:
            return None if code is None else parse_card(code)

        engine = WarRound(
            tuple(WarWager(b, p, WagerKind(k), a) for b, p, k, a in state["wagers"]),
            tuple((b, parse_card(c)) for b, c in state["first"]), card(state["dealer_first"]),
            tuple((b, p, Choice(c)) for b, p, c in state["choices"]), state["burned"],
            tuple((b, parse_card(c)) for b, c in state["war"]), card(state["dealer_war"]),
        )
        return WarPlay(engine, tuple((b, p) for b, p in state["tie_declined"]))

    def close_betting(
        self, play: WarPlay, bets: Mapping[BetKey, int], table: WarTable, payout_option: str, decision: str = ""
    ) -> Closing:
        if decision:
            raise NotAllowed(f"casino war has no {decision!r} decision at no more bets")
        if not bets:
            raise NotAllowed("no wagers on the table: a Casino War round needs at least one")
        wagers = [wager_from_layout(k, a) for k, a in bets.items()]
        waiting = tie_priority_problem(wagers, play.tie_declined)
        if waiting:
            raise NotAllowed(waiting)
        return Closing(WarPlay(WarRound.start(wagers), play.tie_declined), bets)

    def with_card_holders(self, play: WarPlay, bets: Mapping[BetKey, int], table: WarTable) -> WarPlay:
        return play  # nobody squeezes: Casino War cards are turned as they are dealt

    def settle(
        self, play: WarPlay, bets: Mapping[BetKey, int], table: WarTable, payout_option: str
    ) -> Settlement:
        records = tuple(
            SettledBet(str(s.wager.box), s.wager.player, s.wager.kind.value, s.stake, s.stake, 0, s.result.value, s.net)
            for s in settle_war(play.engine, table)
        )
        return Settlement(records, -sum(s.net for s in records))

    def resettle(
        self, play: WarPlay, bets: Mapping[BetKey, int], table: WarTable, payout_option: str
    ) -> Settlement:
        # Which boxes got a card, and who chose war or surrender, followed from the wagers: a
        # correction may change amounts, regions and names only where the cards still fit.
        try:
            wagers = tuple(wager_from_layout(k, a) for k, a in bets.items())
        except BetFormError as exc:
            raise NotAllowed(str(exc)) from None
        engine = play.engine
        corrected = replace(engine, wagers=wagers)
        if corrected.boxes != engine.boxes:
            dealt = ", ".join(str(b) for b in engine.boxes)
            raise NotAllowed(f"this round dealt cards to box {dealt} only: a correction cannot change which boxes "
                             "were in play")
        decided = {(b, p) for b, p, _ in engine.choices}
        if set(corrected.deciders()) != decided:
            who = ", ".join(f"{p} on box {b}" for b, p in sorted(decided)) or "nobody"
            raise NotAllowed(f"war or surrender was decided by {who}: a correction cannot change who decided")
        return self.settle(WarPlay(corrected, play.tie_declined), bets, table, payout_option)
