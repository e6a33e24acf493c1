"""Exact house edges of the wagers a table offers, for the cards still in the shoe.

The rules, the counting and the edges are ``station analyze``'s (:mod:`station.analysis`): the
round table built once from the shared third-card rules (:func:`~station.analysis.round_table.
round_table`), the pair count (:func:`~station.analysis.baccarat_odds.count_pairs`), the edge of
each bet (:func:`~station.analysis.baccarat_odds.bet_edges`) and Casino War's whole analysis
(:func:`~station.analysis.war_odds.analyse_war`). Only the one weighted sum of the baccarat
count is done differently, to be cheap enough after every round of a table dealt at full speed
(the monitor shares the station's interpreter with the core loop): the ~7,000 multiset weights
and the 12 columns of tallies (3 round lengths by 4 outcomes) are multiplied as int64 arrays
(numpy) instead of Python integers, 0.1 ms instead of 2-8 ms.

It stays exact: a multiset's weight is a product of falling factorials of the composition's
value counts, at most 128^6 < 4.4e12 (a value has at most 16 cards a deck, 128 in 8 decks), a
tally at most 720 (the orderings of six values), so each product is below 3.2e15; and a column's
sum counts ordered card sequences, at most 416·415·…·411 < 5.0e15. int64 holds 9.2e18. The
property tests check the counts against :func:`~station.analysis.baccarat_odds.count_rounds`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from station.analysis.baccarat_odds import CompositionTooSmall, RoundCounts, bet_edges, count_pairs, falling
from station.analysis.round_table import MAX_MULTIPLICITY, MAX_ROUND_CARDS, RoundTable, Tally, round_table
from station.analysis.side_bet_odds import analyse_side_bets, hand_table
from station.analysis.war_odds import WarShoeTooSmall, analyse_war
from station.cards import FULL_DECK, Rank, ShoeComposition
from station.games.baccarat.side_bets import PAY_TABLES


class _Tables:
    """A round table (:mod:`station.analysis.round_table`) as int64 arrays, built once per
    process and table: one row per round length and class."""

    def __init__(self, table: RoundTable) -> None:
        import numpy as np  # imported on first use: only the integrity monitor needs it

        self.np = np
        self.halves = np.array(table.halves, dtype=np.int64)
        self.lengths = sorted(table.by_length)
        groups = [table.by_length[length] for length in self.lengths]
        self.classes = sorted({c for group in groups for c in group.columns})
        self.low = np.concatenate([np.array(g.low, dtype=np.intp) for g in groups])
        self.high = np.concatenate([np.array(g.high, dtype=np.intp) for g in groups])
        rows = []
        start = 0
        for group in groups:
            size = len(group.low)
            for c in self.classes:
                column = np.zeros(len(self.low), dtype=np.int64)
                column[start:start + size] = group.columns.get(c, ())
                rows.append(column)
            start += size
        self.matrix = np.array(rows, dtype=np.int64)


_BUILT: dict[int, tuple[RoundTable, _Tables]] = {}


def _tables(table: RoundTable) -> _Tables:
    """The arrays of ``table`` (one of the analysis' tables, each built once per process)."""
    built = _BUILT.get(id(table))
    if built is None or built[0] is not table:
        built = _BUILT[id(table)] = (table, _Tables(table))
    return built[1]


def warm_up(wagers: Sequence[Wager] = ()) -> None:
    """Import numpy and build the tables (about 0.2 s; the side bets' about 0.7 s more, for a
    table that offers any), before the first composition needs them."""
    _tables(round_table())
    if any(w.key in PAY_TABLES or w.key == "banker_ez" for w in wagers):
        _tables(hand_table())


def fast_count_classes(value_counts: Sequence[int], table: RoundTable) -> dict[int, int]:
    """The same counts as :func:`station.analysis.baccarat_odds.count_classes`, exactly."""
    cards = sum(value_counts)
    if len(value_counts) != 10 or any(c < 0 for c in value_counts):
        raise ValueError(f"need 10 non-negative value counts, got {list(value_counts)}")
    if cards < MAX_ROUND_CARDS:
        raise CompositionTooSmall(f"{cards} cards left: a complete round may need {MAX_ROUND_CARDS}")
    t = _tables(table)
    np = t.np
    factors = []
    for have in value_counts:
        product = 1
        factors.append(product)
        for m in range(1, MAX_MULTIPLICITY + 1):
            product *= have - m + 1
            factors.append(product)
    ff = np.array(factors, dtype=np.int64)
    half = ff[t.halves].prod(axis=1)
    sums = t.matrix @ (half[t.low] * half[t.high])
    totals = dict.fromkeys(t.classes, 0)
    for i, length in enumerate(t.lengths):
        unused = falling(cards - length, MAX_ROUND_CARDS - length)
        for j, c in enumerate(t.classes):
            totals[c] += unused * int(sums[len(t.classes) * i + j])
    return totals


def fast_count_rounds(value_counts: Sequence[int]) -> RoundCounts:
    """The same counts as :func:`station.analysis.baccarat_odds.count_rounds`, exactly."""
    totals = fast_count_classes(value_counts, round_table())
    return RoundCounts(
        banker=totals[Tally.BANKER_NOT_SIX] + totals[Tally.BANKER_ON_SIX],
        banker_on_six=totals[Tally.BANKER_ON_SIX],
        player=totals[Tally.PLAYER],
        tie=totals[Tally.TIE],
    )


@dataclass(frozen=True)
class Wager:
    """One wager the table offers, as the edge analysis names it (``tie_8_to_1``) and as people
    read it (``Tie 8:1``)."""

    key: str
    name: str
    region: str = ""
    """The betting region it is bet on (``banker``, ``dragon_7``, ``war``)."""


def offered_wagers(game: str, regions: Sequence[str], table: Any, payout_option: str = "") -> tuple[Wager, ...]:
    """The wagers of the table's betting regions, under the table's payouts."""
    wagers: list[Wager] = []
    if game == "war":
        if "war" in regions:
            wagers.append(Wager("casino_war_go_to_war", "Casino War, going to war", "war"))
            wagers.append(Wager("casino_war_surrender", "Casino War, surrendering"))
        if "tie" in regions:
            pays = int(getattr(table, "tie_pays", 10))
            wagers.append(Wager(f"tie_wager_{pays}_to_1", f"Tie Wager {pays}:1", "tie"))
        return tuple(wagers)
    if "banker" in regions:
        if payout_option == "ez":
            wagers.append(Wager("banker_ez", "Banker, EZ Baccarat", "banker"))
        elif payout_option == "no_commission":
            wagers.append(Wager("banker_no_commission", "Banker, no commission", "banker"))
        else:
            wagers.append(Wager("banker_commission", "Banker", "banker"))
    if "player" in regions:
        wagers.append(Wager("player", "Player", "player"))
    if "tie" in regions:
        pays = int(getattr(table, "tie_pays", 8))
        wagers.append(Wager(f"tie_{pays}_to_1", f"Tie {pays}:1", "tie"))
    # Side bets by the pay table the table pays them by (docs/side-bets.md).
    for offer in getattr(table, "side_bets", ()):
        if offer.region in regions:
            wagers.append(Wager(offer.pays, f"{offer.bet.words} ({offer.pay_table.describe()})", offer.region))
    return tuple(wagers)


def composition_of(left: Sequence[int], decks: int) -> ShoeComposition:
    """A composition from counts of the cards of :data:`~station.cards.FULL_DECK`, in order."""
    return ShoeComposition(decks, {card: n for card, n in zip(FULL_DECK, left, strict=True) if n})


def house_edges(game: str, comp: ShoeComposition, wagers: Sequence[Wager], table: Any) -> dict[str, Fraction]:
    """Exact house edge of each wager for the next round dealt from ``comp`` (empty when the shoe
    holds too few cards for a round)."""
    wanted = {w.key for w in wagers}
    if not wanted:
        return {}
    if game == "war":
        bonus = getattr(table, "tie_after_tie_bonus", None) or 0
        try:
            war = analyse_war(comp, int(getattr(table, "tie_pays", 10)), int(bonus))
        except WarShoeTooSmall:
            return {}
        return {e.key: e.house_edge for e in war.edges if e.key in wanted}
    try:
        counts = fast_count_rounds(comp.by_baccarat_value())
    except CompositionTooSmall:
        return {}
    pair = count_pairs(comp.by_rank())
    tie_pays = int(getattr(table, "tie_pays", 8))
    edges = {e.key: e.house_edge for e in bet_edges(counts, pair, (tie_pays,)) if e.key in wanted}
    sides = [key for key in wanted if key in PAY_TABLES]
    if sides or "banker_ez" in wanted:
        priced = analyse_side_bets(comp, sides, count=fast_count_classes)
        edges.update({o.table.name: o.edge.house_edge for o in priced.odds})
        if "banker_ez" in wanted:
            edges["banker_ez"] = priced.ez_banker.house_edge
    return edges


def outcome_probabilities(game: str, comp: ShoeComposition) -> dict[str, float] | None:
    """Exact probabilities of the first-card/round outcomes the statistics test, for ``comp``:
    baccarat banker/player/tie; Casino War the first box's win/lose/tie."""
    if game == "war":
        try:
            war = analyse_war(comp)
        except WarShoeTooSmall:
            return None
        c = war.counts
        return {"win": c.player_higher / c.total, "lose": c.dealer_higher / c.total, "tie": c.tie / c.total}
    try:
        counts = fast_count_rounds(comp.by_baccarat_value())
    except CompositionTooSmall:
        return None
    total = counts.total
    return {"banker": counts.banker / total, "player": counts.player / total, "tie": counts.tie / total}


def composition_words(comp: ShoeComposition) -> dict[str, int]:
    """The remaining cards by rank, for an alert (suits do not change any edge offered)."""
    ranks: Mapping[Rank, int] = comp.by_rank()
    return {rank.value: n for rank, n in ranks.items()}
