"""Baccarat behind the game interface (:mod:`station.games.interface`).

:class:`BaccaratPlay` is a round's two hands; :class:`BaccaratGame` the rest: the table
options as the configuration gives them, bets in the layout's words, the table differential
at "no more bets" and the settlement. The rules themselves are the modules beside this one
(:mod:`~station.games.baccarat.rules`, :mod:`~station.games.baccarat.wagers`,
:mod:`~station.games.baccarat.differential`, :mod:`~station.games.baccarat.settlement`);
nothing here states a rule, it only translates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from station.cards import Card
from station.games.baccarat.differential import reduce_for_differential
from station.games.baccarat.rules import Hand, Outcome, RoundStateError, deal_position, next_hand, result_of
from station.games.baccarat.settlement import settle_round
from station.games.baccarat.table import (
    MAX_BOXES_BY_VARIANT,
    BaccaratTable,
    BankerPayout,
    RegionCap,
    Variant,
)
from station.games.baccarat.wagers import REGIONS, accept_bet, bet_from_layout
from station.games.interface import Closing, Decision, NotAllowed, Placement, PlayResult, Settlement, Stage, Step
from station.games.layout import Acceptance, BetFormError, BetKey, SettledBet
from station.games.table import Chips

_DEAL = Step(Stage.DEAL)
_COMPLETE = Step(Stage.COMPLETE)
#: Cards of the opening deal (Player, Banker, Player, Banker): the first stage turned under
#: dealing styles B and D; each third card is a stage of its own.
OPENING_CARDS = 4
#: The configuration's words for the region cap of rule 5.8 -> the rules' words.
REGION_CAP_WORDS = {"none": RegionCap.NONE, "table_total": RegionCap.ALL_PLAYERS, "player_total": RegionCap.EACH_PLAYER}


@dataclass(frozen=True, slots=True)
class BaccaratPlay:
    """One baccarat round in progress: the Player's and the Banker's cards so far."""

    player: tuple[Card, ...] = ()
    banker: tuple[Card, ...] = ()

    def step(self) -> Step:
        return _DEAL if next_hand(self.player, self.banker) is not None else _COMPLETE

    def instruction(self) -> str:
        return deal_position(self.player, self.banker) or "round complete"

    def place(self, card: Card) -> Placement:
        hand = next_hand(self.player, self.banker)
        if hand is None:
            raise NotAllowed(f"{card.code} drawn when the rules say stand")
        if hand is Hand.PLAYER:
            return Placement(hand.value, BaccaratPlay(self.player + (card,), self.banker))
        return Placement(hand.value, BaccaratPlay(self.player, self.banker + (card,)))

    def decide(self, box: str, player: str, choice: str) -> Decision:
        raise NotAllowed(f"baccarat has no {choice!r} decision: the rules decide every card")

    def reveal_due(self, squeeze: bool) -> bool:
        if squeeze:
            return len(self.player) + len(self.banker) >= OPENING_CARDS
        return next_hand(self.player, self.banker) is None

    def result(self) -> PlayResult:
        try:
            result = result_of(self.player, self.banker)
        except RoundStateError as exc:
            raise NotAllowed(str(exc)) from None
        record = {
            "outcome": result.outcome.value,
            "player": [c.code for c in result.player],
            "banker": [c.code for c in result.banker],
            "player_total": result.player_total,
            "banker_total": result.banker_total,
            "natural": result.natural,
            "player_pair": result.player_pair,
            "banker_pair": result.banker_pair,
        }
        return PlayResult(
            record,
            hands=(("player", result.player), ("banker", result.banker)),
            totals=(("player", result.player_total), ("banker", result.banker_total)),
            outcome=result.outcome.value,
            natural=result.natural,
            player_pair=result.player_pair,
            banker_pair=result.banker_pair,
            bets_stay=result.outcome is Outcome.TIE,
        )

    def to_json(self) -> dict[str, Any]:
        return {}  # the hands are the round's dealt cards, which the round records itself


def paying(table: BaccaratTable, option: str) -> BaccaratTable:
    """The table as it pays in a round whose Banker payout option is ``option`` (5.11)."""
    if option == table.banker_payout.value:
        return table
    return dataclasses.replace(table, banker_payout=BankerPayout(option))


def reduce_layout(
    bets: Mapping[BetKey, int], table: BaccaratTable
) -> tuple[dict[BetKey, int], tuple[tuple[BetKey, int, int], ...]]:
    """The table differential (5.17/5.18) applied to a layout at "no more bets": the bets
    after reduction and the reductions as (key, old, new). Raises :class:`NotAllowed` when no
    reduction in whole chips can satisfy the differential."""
    keys = list(bets)
    plan = reduce_for_differential([bet_from_layout(k, bets[k]) for k in keys], table)
    if not plan.possible:
        raise NotAllowed(f"table differential exceeded: {plan.reason}")
    after = dict(bets)
    cuts: list[tuple[BetKey, int, int]] = []
    for reduction in plan.reductions:
        key = keys[reduction.index]
        cuts.append((key, bets[key], reduction.new_amount))
        if reduction.new_amount:
            after[key] = reduction.new_amount
        else:
            del after[key]
    return after, tuple(cuts)


class BaccaratGame:
    """Punto Banco (seeds 000, 003, 004) for the state machine."""

    name = "baccarat"
    title = "baccarat"
    regions: tuple[str, ...] = REGIONS
    carry_regions: tuple[str, ...] = (Outcome.BANKER.value, Outcome.PLAYER.value)
    choices: tuple[str, ...] = ()
    payout_options: tuple[str, ...] = tuple(option.value for option in BankerPayout)
    late_bets = True
    hides_cards = True
    table_type = BaccaratTable

    def default_table(self) -> BaccaratTable:
        return BaccaratTable(
            variant=Variant.MINI, boxes=7, min_bet=1000, max_bet=500_000,
            chips=Chips((100, 500, 1000, 2500, 10_000, 50_000)),
        )

    def settings_problem(self, settings: Any) -> tuple[str, str] | None:
        variant, boxes = settings.variant, settings.boxes
        most = MAX_BOXES_BY_VARIANT[variant]
        if boxes > most:
            return "boxes", f"{boxes} boxes is more than a {variant} table has ({most})"
        if variant == Variant.FULL.value and settings.players_per_box != 1:
            return "players_per_box", "full baccarat seats exactly 1 player per box (rule 5.7)"
        if settings.standing_regions and variant != Variant.FULL.value:
            return "standing_regions", "standing-player regions exist only in full baccarat (rule 5.6)"
        return None

    def table_from_settings(self, settings: Any) -> BaccaratTable:
        t = settings
        return BaccaratTable(
            variant=Variant(t.variant), boxes=t.boxes, min_bet=t.min_bet, max_bet=t.max_bet,
            chips=Chips(tuple(sorted(t.chips))), players_per_box=t.players_per_box,
            standing_regions=t.standing_regions, tie_pays=t.tie_pays,
            banker_payout=BankerPayout(t.banker_payout), region_cap=REGION_CAP_WORDS[t.region_cap],
            table_differential=t.differential or None,
        )

    def payout_option(self, table: BaccaratTable) -> str:
        return table.banker_payout.value

    def variant_of(self, table: BaccaratTable) -> str:
        return table.variant.value

    def accept(
        self, key: BetKey, amount: int, others: Mapping[BetKey, int], table: BaccaratTable
    ) -> Acceptance:
        try:
            layout = [bet_from_layout(k, a) for k, a in others.items()]
            return accept_bet(bet_from_layout(key, amount), layout, table)
        except BetFormError as exc:
            return Acceptance.refuse(str(exc), "")

    def open_round(self) -> BaccaratPlay:
        return BaccaratPlay()

    def close_betting(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable, payout_option: str
    ) -> Closing:
        if table.table_differential is None or not bets:
            return Closing(play, bets)
        after, cuts = reduce_layout(bets, paying(table, payout_option))
        return Closing(play, after, cuts)

    def settle(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable, payout_option: str
    ) -> Settlement:
        keys = list(bets)
        typed = [bet_from_layout(k, bets[k]) for k in keys]
        settled = settle_round(typed, result_of(play.player, play.banker), paying(table, payout_option))
        records = tuple(
            SettledBet(k[0], k[1], k[2], s.stake, s.valid, s.void, s.result.value, s.net)
            for k, s in zip(keys, settled.bets, strict=True)
        )
        return Settlement(records, settled.house_result)
