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
from types import MappingProxyType
from typing import Any

from station.cards import Card, parse_card
from station.games.baccarat.differential import differential_excess, reduce_for_differential
from station.games.baccarat.pucks import Holder, designate
from station.games.baccarat.rules import Hand, Outcome, RoundStateError, deal_position, next_hand, result_of
from station.games.baccarat.settlement import settle_round
from station.games.baccarat.side_bets import DEFAULT_PAY_TABLES, OfferedSideBet, SideBet, offer_problems
from station.games.baccarat.side_wagers import accept_side_bet, is_main, main_bets, meter_awards, settle_side_bet
from station.games.baccarat.table import (
    MAX_BOXES_BY_VARIANT,
    BaccaratTable,
    BankerPayout,
    DifferentialMode,
    RegionCap,
    Variant,
)
from station.games.baccarat.wagers import REGIONS, accept_bet, banker_step, bet_from_layout, place_of
from station.games.board import ResultsBoard
from station.games.interface import (
    Closing,
    Decision,
    DecisionNeeded,
    NotAllowed,
    Placement,
    PlayResult,
    Settlement,
    Stage,
    Step,
)
from station.games.layout import Acceptance, BetFormError, BetKey, SettledBet
from station.games.limits import TableLimits
from station.games.table import Chips, TableOptionError
from station.money import Money

_DEAL = Step(Stage.DEAL)
_COMPLETE = Step(Stage.COMPLETE)
#: Cards of the opening deal (Player, Banker, Player, Banker): the first stage turned under
#: dealing styles B and D; each third card is a stage of its own.
OPENING_CARDS = 4


@dataclass(frozen=True, slots=True)
class BaccaratPlay:
    """One baccarat round in progress: the Player's and the Banker's cards so far, and under
    dealing styles B and D who holds each hand's cards (``holders``; ``None`` otherwise)."""

    player: tuple[Card, ...] = ()
    banker: tuple[Card, ...] = ()
    holders: tuple[Holder, ...] | None = None

    def step(self) -> Step:
        return _DEAL if next_hand(self.player, self.banker) is not None else _COMPLETE

    def instruction(self) -> str:
        words = deal_position(self.player, self.banker)
        if words is None:
            return "round complete"
        if self.holders is None:
            return words
        hand = next_hand(self.player, self.banker)
        holder = next((h for h in self.holders if h.hand is hand), None)
        return f"{words} to {holder.words() if holder is not None else 'the dealer'}"

    def place(self, card: Card) -> Placement:
        hand = next_hand(self.player, self.banker)
        if hand is None:
            raise NotAllowed(f"{card.code} drawn when the rules say stand")
        if hand is Hand.PLAYER:
            return Placement(hand.value, dataclasses.replace(self, player=(*self.player, card)))
        return Placement(hand.value, dataclasses.replace(self, banker=(*self.banker, card)))

    def decide(self, box: str, player: str, choice: str) -> Decision:
        raise NotAllowed(f"baccarat has no {choice!r} decision: the rules decide every card")

    def reveal_due(self, squeeze: bool) -> bool:
        if squeeze:
            return len(self.player) + len(self.banker) >= OPENING_CARDS
        return next_hand(self.player, self.banker) is None

    def stage_end(self, revealed: int, squeeze: bool) -> int:
        dealt = len(self.player) + len(self.banker)
        if not squeeze:
            return dealt
        # Styles B and D: the opening four are one stage, then each third card its own.
        return min(dealt, OPENING_CARDS if revealed < OPENING_CARDS else revealed + 1)

    def disclosed(self) -> str:
        dealt = len(self.player) + len(self.banker)
        if dealt < OPENING_CARDS:
            return ""  # every round opens with four cards: dealing them tells nothing
        hand = next_hand(self.player, self.banker)
        if hand is None:
            return ("every card of the round is out: that no more is drawn tells about the totals, "
                    "and the round is decided")
        if dealt > OPENING_CARDS:
            return "a third card is out: that a hand draws tells about its total"
        return f"the rules call for a {hand.value.capitalize()} third card: that tells about the totals"

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
        # The hands are the round's dealt cards, which the round records itself.
        if self.holders is None:
            return {}
        return {"pucks": {h.hand.value: [h.box, h.player] for h in self.holders}}


def paying(table: BaccaratTable, option: str) -> BaccaratTable:
    """The table as it accepts and pays bets in a round whose Banker payout option is
    ``option`` (5.11); ``""`` is the table's own."""
    if not option or option == table.banker_payout.value:
        return table
    return dataclasses.replace(table, banker_payout=BankerPayout(option))


def not_chip_exact(bets: Mapping[BetKey, int], table: BaccaratTable) -> str:
    """Why betting may not close for ``bets`` under ``table``'s payout: a Banker bet rule 5.12
    does not accept. Bets are checked as they are placed, so this happens only to Banker bets
    left on after a Tie (5.16) into a round whose payout option changed to commission (5.11).
    Empty when every bet is acceptable."""
    step = banker_step(table)
    for (box, player, region), amount in bets.items():
        if region == Outcome.BANKER.value and amount % step:
            lower = amount // step * step
            money = table.money.with_currency
            change = f"{money(lower)} or {money(lower + step)}" if lower >= table.min_bet else money(lower + step)
            return (
                f"{player}'s Banker bet of {money(amount)} on box {box} cannot be paid exactly in chips of "
                f"{money(table.smallest_chip)} under commission (5.12): change it to {change}"
            )
    return ""


#: Each way of paying the Banker bet, as station.analysis names its wager.
_BANKER_WAGERS = {BankerPayout.COMMISSION: "banker_commission", BankerPayout.NO_COMMISSION: "banker_no_commission",
                  BankerPayout.EZ: "banker_ez"}
#: The side bets in the order a layout lists them.
_ORDER = {bet.value: number for number, bet in enumerate(SideBet)}


def _offers(settings: Any) -> tuple[OfferedSideBet, ...]:
    """The side bets of ``[table.side_bets]``, in :class:`SideBet`'s order."""
    offers = []
    for name, offer in settings.side_bets.items():
        if name not in _ORDER:
            raise TableOptionError(f"side_bets.{name}", offer_problems(name, "", 1, 1, 1)[0][1])
        bet = SideBet(name)
        offers.append(OfferedSideBet(bet, offer.pays or DEFAULT_PAY_TABLES[bet], offer.min, offer.max))
    return tuple(sorted(offers, key=lambda offer: _ORDER[offer.region]))


#: The supervisor's decisions on a table differential the station does not meet by itself.
REDUCE = "reduce"
ACCEPT = "accept"


def reduce_layout(
    bets: Mapping[BetKey, int], table: BaccaratTable, decision: str = ""
) -> tuple[dict[BetKey, int], tuple[tuple[BetKey, int, int], ...]]:
    """The table differential (5.17/5.18) applied to a layout at "no more bets": the bets
    after reduction and the reductions as (key, old, new).

    Without ``decision`` the station reduces by itself when the table says so
    (:attr:`~station.games.baccarat.table.DifferentialMode.AUTOMATIC`) and a reduction in
    whole chips meets the differential; otherwise it raises :class:`DecisionNeeded` naming
    what a supervisor may decide: ``reduce`` (the station's pro-rata reduction, when one
    exists) or ``accept`` (deal with the bets as they are). Any other decision, or one when
    nothing exceeds the differential, is :class:`NotAllowed`.
    """
    keys = list(bets)
    typed = [bet_from_layout(k, bets[k]) for k in keys]
    if differential_excess(typed, table) == 0:
        if decision:
            raise NotAllowed("the table differential is not exceeded: there is nothing to decide")
        return dict(bets), ()
    plan = reduce_for_differential(typed, table)
    if decision == ACCEPT:
        return dict(bets), ()
    if decision == REDUCE and not plan.possible:
        raise NotAllowed(f"no reduction in whole chips meets the table differential: {plan.reason}")
    if decision not in ("", REDUCE):
        raise NotAllowed(f"{decision!r} is not a decision on the table differential: use reduce or accept")
    if not decision and not (plan.possible and table.differential_reduction is DifferentialMode.AUTOMATIC):
        choices: dict[str, str] = {}
        if plan.possible:
            proposed = "; ".join(r.reason.rsplit(": ", 1)[-1] for r in plan.reductions)
            choices[REDUCE] = f"reduce pro rata ({proposed})"
        choices[ACCEPT] = "accept the imbalance and deal the bets as they are"
        why = plan.reason if not plan.possible else plan.reason.split(": ", 1)[0]
        raise DecisionNeeded(f"table differential exceeded: {why}", choices)
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
    region_words: Mapping[str, str] = MappingProxyType(
        {"banker": "Banker", "player": "Player", "tie": "Tie", **{bet.value: bet.words for bet in SideBet}})
    carry_regions: tuple[str, ...] = (Outcome.BANKER.value, Outcome.PLAYER.value)
    choices: tuple[str, ...] = ()
    betting_choices: tuple[str, ...] = ()
    payout_options: tuple[str, ...] = tuple(option.value for option in BankerPayout)
    late_bets = True
    hides_cards = True
    table_type = BaccaratTable
    limit_keys: tuple[str, ...] = ("min_bet", "max_bet", "chips", "differential", "tie_min", "tie_max", "pair_min",
                                   "pair_max")

    def limits_of(self, table: BaccaratTable) -> TableLimits:
        return TableLimits(table.min_bet, table.max_bet, table.chips.denominations, table.table_differential or 0)

    def wager_keys(self, table: BaccaratTable, payout_option: str) -> Mapping[str, str]:
        banker = _BANKER_WAGERS[BankerPayout(payout_option or table.banker_payout)]
        # A side bet is priced by its pay table (station.analysis.side_bet_odds names each edge so).
        return {"banker": banker, "player": "player", "tie": f"tie_{table.tie_pays}_to_1",
                **{offer.region: offer.pays for offer in table.side_bets}}

    def regions_of(self, table: BaccaratTable) -> tuple[str, ...]:
        return (*REGIONS, *(offer.region for offer in table.side_bets))

    def side_bet_problems(self, settings: Any) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        smallest = min(settings.chips, default=1) or 1
        for name, offer in settings.side_bets.items():
            for key, message in offer_problems(name, offer.pays, offer.min, offer.max, smallest):
                problems.append((".".join(part for part in ("side_bets", name, key) if part), message))
        return problems

    def table_with_limits(self, table: BaccaratTable, limits: TableLimits) -> BaccaratTable:
        return dataclasses.replace(table, min_bet=limits.min_bet, max_bet=limits.max_bet, chips=Chips(limits.chips),
                                   table_differential=limits.differential or None)

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
            banker_payout=BankerPayout(t.banker_payout), region_cap=RegionCap(t.region_cap),
            table_differential=t.differential or None,
            differential_reduction=DifferentialMode(t.differential_reduction),
            money=Money(t.minor_digits, t.currency),
            side_bets=_offers(t),
        )

    def payout_option(self, table: BaccaratTable) -> str:
        return table.banker_payout.value

    def variant_of(self, table: BaccaratTable) -> str:
        return table.variant.value

    def limit_lines(self, table: BaccaratTable, payout_option: str) -> tuple[tuple[str, int, int], ...]:
        t = paying(table, payout_option)
        # Each side bet's own limits, as its region is named on the layout.
        sides = tuple((offer.bet.words, offer.min_bet, offer.max_bet) for offer in table.side_bets)
        if t.smallest_banker_bet == t.min_bet:
            return sides
        # 5.12: a Banker bet at the table minimum cannot be paid exactly in these chips.
        return (("Banker", t.smallest_banker_bet, t.largest_banker_bet), *sides)

    def cut_problem(self, box: str, player: str, table: BaccaratTable) -> str:
        if not box.strip():
            return "" if not player else f"name the box {player} sits at"
        try:
            place = place_of(box)
        except BetFormError as exc:
            return str(exc)
        if place.standing:
            return "standing players never take part in the cut of the cards (5.6)"
        if not 1 <= place.number <= table.boxes:
            return f"there is no {place}: this table has boxes 1 to {table.boxes}"
        return ""

    def accept(
        self, key: BetKey, amount: int, others: Mapping[BetKey, int], table: BaccaratTable, payout_option: str,
        play: BaccaratPlay,
    ) -> Acceptance:
        t = paying(table, payout_option)
        try:
            if not is_main(key):
                return accept_side_bet(key, amount, others, t)
            layout = [bet_from_layout(k, a) for k, a in others.items() if is_main(k)]
            seats = [(place_of(box), player) for box, player, _ in others]
            return accept_bet(bet_from_layout(key, amount), layout, t, seats=seats)
        except BetFormError as exc:
            return Acceptance.refuse(str(exc), "")

    def open_round(self) -> BaccaratPlay:
        return BaccaratPlay()

    def board(self) -> ResultsBoard:
        from station.games.baccarat.board import RoadsBoard  # only where a board is shown: not in the rules

        return RoadsBoard()

    def play_state(self, play: BaccaratPlay) -> dict[str, Any]:
        return {"player": [c.code for c in play.player], "banker": [c.code for c in play.banker],
                "holders": None if play.holders is None else [[h.hand.value, h.box, h.player] for h in play.holders]}

    def restore_play(self, state: Mapping[str, Any]) -> BaccaratPlay:
        holders = state.get("holders")
        return BaccaratPlay(
            tuple(parse_card(code) for code in state["player"]), tuple(parse_card(code) for code in state["banker"]),
            None if holders is None else tuple(Holder(Hand(hand), box, player) for hand, box, player in holders),
        )

    def close_betting(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable, payout_option: str,
        decision: str = "",
    ) -> Closing:
        t = paying(table, payout_option)
        inexact = not_chip_exact(bets, t)
        if inexact:
            raise NotAllowed(inexact)
        main = main_bets(bets)
        if t.table_differential is None or not main:
            if decision:
                raise NotAllowed("this table has no table differential: there is nothing to decide")
            return Closing(play, bets)
        # Side bets take no part in the differential (5.17 weighs Banker against Player).
        after, cuts = reduce_layout(main, t, decision)
        kept = {key: after.get(key, 0) if is_main(key) else amount for key, amount in bets.items()}
        return Closing(play, {key: amount for key, amount in kept.items() if amount}, cuts)

    def with_card_holders(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable
    ) -> BaccaratPlay:
        return dataclasses.replace(play, holders=designate(bets))

    def settle(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable, payout_option: str
    ) -> Settlement:
        t, result = paying(table, payout_option), result_of(play.player, play.banker)
        keys = list(main_bets(bets))
        typed = [bet_from_layout(k, bets[k]) for k in keys]
        settled = settle_round(typed, result, t)
        by_key = {
            k: SettledBet(k[0], k[1], k[2], s.stake, s.valid, s.void, s.result.value, s.net, s.commission)
            for k, s in zip(keys, settled.bets, strict=True)
        }
        try:
            records = tuple(by_key[k] if k in by_key else settle_side_bet(k, a, result, t) for k, a in bets.items())
        except BetFormError as exc:
            raise NotAllowed(str(exc)) from None
        return Settlement(records, -sum(record.net for record in records), meter_awards(bets, result, t))

    def resettle(
        self, play: BaccaratPlay, bets: Mapping[BetKey, int], table: BaccaratTable, payout_option: str
    ) -> Settlement:
        # The cards decide the result whatever was bet: the same settlement, for the bets as
        # they really were.
        return self.settle(play, bets, table, payout_option)
