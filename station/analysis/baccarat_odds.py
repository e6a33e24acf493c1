"""Exact baccarat odds for a shoe composition, by complete enumeration without replacement.

What is counted: ordered sequences of distinct cards. A round uses 4, 5 or 6 cards; to put
all rounds on one denominator each complete round of ``k`` cards is multiplied by the number
of ways to draw the unused positions up to six, ``(N - k)(N - k - 1)...(N - 5)``. The total
is then the number of ordered six-card sequences, ``N (N - 1) ... (N - 5)``, and every
count divided by it is an exact probability. (``docs/analyze.md`` explains why this is the
published normalisation.)

How it is counted: :mod:`station.analysis.round_table` tallies every round by the multiset
of its point values once per process; here each multiset is weighted by the falling
factorials of the composition's value counts (the ordered ways to supply it) and summed. That sum is all the work a
composition needs (a few milliseconds for a full shoe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import mul

from station.analysis.edges import BetEdge, house_edge
from station.analysis.round_table import MAX_MULTIPLICITY, MAX_ROUND_CARDS, RoundTable, Tally, round_table
from station.cards import Rank, ShoeComposition

BANKER_COMMISSION = Fraction(5, 100)
"""RULES "Wagers": Banker wins pay 1:1 less 5% commission."""

NO_COMMISSION_SIX_PAYS = Fraction(1, 2)
"""RULES 5.11: with no commission, a Banker win on 6 pays 1:2."""

DEFAULT_TIE_PAYOUTS = (8, 9)
DEFAULT_PAIR_PAYS = 11


class CompositionTooSmall(ValueError):
    """Fewer cards than one complete round may need."""


def falling(n: int, k: int) -> int:
    """``n (n - 1) ... (n - k + 1)``: ordered ways to draw ``k`` of ``n`` distinct cards."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


@dataclass(frozen=True, slots=True)
class RoundCounts:
    """Ordered six-card sequences by the outcome of the round they begin.

    ``banker`` counts every Banker win; ``banker_on_six`` is the part of it won with a
    point count of 6. ``total = banker + player + tie = N (N - 1) ... (N - 5)``.
    """

    banker: int
    banker_on_six: int
    player: int
    tie: int

    @property
    def total(self) -> int:
        return self.banker + self.player + self.tie

    def probability(self, count: int) -> Fraction:
        return Fraction(count, self.total)


def _check_value_counts(value_counts: Sequence[int]) -> int:
    if len(value_counts) != 10:
        raise ValueError(f"need counts for the 10 point values 0-9, got {len(value_counts)}")
    if any(not isinstance(c, int) or c < 0 for c in value_counts):
        raise ValueError(f"value counts must be non-negative integers, got {list(value_counts)}")
    cards = sum(value_counts)
    if cards < MAX_ROUND_CARDS:
        raise CompositionTooSmall(
            f"{cards} cards left: a complete round may need {MAX_ROUND_CARDS}, so the odds are undefined"
        )
    return cards


def _falling_factors(value_counts: Sequence[int]) -> list[int]:
    """``c_v (c_v - 1) ... (c_v - m + 1)`` at :func:`factor_index` ``(v, m)``, ``m`` = 0..6.

    A multiplicity beyond what the shoe holds gives 0 (the product passes through 0), so
    rounds the shoe cannot supply drop out of the sum by themselves.
    """
    factors: list[int] = []
    for have in value_counts:
        product = 1
        factors.append(product)
        for m in range(1, MAX_MULTIPLICITY + 1):
            product *= have - m + 1
            factors.append(product)
    return factors


def count_classes(value_counts: Sequence[int], table: RoundTable) -> dict[int, int]:
    """Ordered six-card sequences by the class ``table`` counts rounds in, for a shoe holding
    ``value_counts[v]`` cards of point value ``v`` (classes no round has are left out)."""
    cards = _check_value_counts(value_counts)
    ff = _falling_factors(value_counts)
    half_weight = [ff[a] * ff[b] * ff[c] * ff[d] * ff[e] for a, b, c, d, e in table.halves]
    weight_of = half_weight.__getitem__
    totals: dict[int, int] = {}
    for length, group in table.by_length.items():
        # Ordered card sequences dealing each multiset, then each column summed in C.
        weights = list(map(mul, map(weight_of, group.low), map(weight_of, group.high)))
        unused = falling(cards - length, MAX_ROUND_CARDS - length)
        for tally, column in group.columns.items():
            totals[tally] = totals.get(tally, 0) + unused * sum(map(mul, weights, column))
    return totals


def count_rounds(value_counts: Sequence[int]) -> RoundCounts:
    """Exact outcome counts for a shoe holding ``value_counts[v]`` cards of point value ``v``."""
    totals = count_classes(value_counts, round_table())
    return RoundCounts(
        banker=totals.get(Tally.BANKER_NOT_SIX, 0) + totals.get(Tally.BANKER_ON_SIX, 0),
        banker_on_six=totals.get(Tally.BANKER_ON_SIX, 0),
        player=totals.get(Tally.PLAYER, 0),
        tie=totals.get(Tally.TIE, 0),
    )


def count_pairs(rank_counts: Mapping[Rank, int] | Sequence[int]) -> int:
    """Ordered six-card sequences whose first two Player cards (positions 1 and 3) pair.

    Pairs go by rank, not point value (a Ten and a King both count 0 but are no pair). Any
    two positions of a shuffled shoe are alike, so the Banker pair count is the same.
    """
    counts = list(rank_counts.values()) if isinstance(rank_counts, Mapping) else list(rank_counts)
    cards = sum(counts)
    same_rank = sum(n * (n - 1) for n in counts)
    return same_rank * falling(cards - 2, MAX_ROUND_CARDS - 2)


@dataclass(frozen=True, slots=True)
class BaccaratAnalysis:
    """Counts, probabilities and house edges of one composition."""

    cards: int
    counts: RoundCounts
    pair: int
    edges: tuple[BetEdge, ...]

    @property
    def total(self) -> int:
        return self.counts.total

    def edge(self, key: str) -> BetEdge:
        for edge in self.edges:
            if edge.key == key:
                return edge
        raise KeyError(key)


def bet_edges(
    counts: RoundCounts,
    pair: int,
    tie_payouts: Sequence[int] = DEFAULT_TIE_PAYOUTS,
    pair_pays: int = DEFAULT_PAIR_PAYS,
) -> tuple[BetEdge, ...]:
    """House edge of every bet, ties being a stand-off for Banker and Player bets."""
    b, p, t, total = counts.banker, counts.player, counts.tie, counts.total
    six = counts.banker_on_six
    commission_kept = 1 - BANKER_COMMISSION
    commission_text = f"1:1 less {BANKER_COMMISSION * 100}% commission"
    edges = [
        BetEdge("banker_commission", "Banker", commission_text, house_edge(b * commission_kept - p, total)),
        BetEdge(
            "banker_no_commission",
            "Banker, no commission",
            "1:1, a win on 6 pays 1:2",
            house_edge((b - six) + six * NO_COMMISSION_SIX_PAYS - p, total),
        ),
        BetEdge("player", "Player", "1:1", house_edge(p - b, total)),
    ]
    for pays in sorted(set(tie_payouts)):
        edges.append(BetEdge(f"tie_{pays}_to_1", "Tie", f"{pays}:1", house_edge(pays * t - (b + p), total)))
    for side in ("player", "banker"):
        edges.append(
            BetEdge(
                f"{side}_pair_{pair_pays}_to_1",
                f"{side.capitalize()} pair",
                f"{pair_pays}:1",
                house_edge(pair_pays * pair - (total - pair), total),
            )
        )
    return tuple(edges)


def analyse_baccarat(
    shoe: ShoeComposition,
    tie_payouts: Sequence[int] = DEFAULT_TIE_PAYOUTS,
    pair_pays: int = DEFAULT_PAIR_PAYS,
) -> BaccaratAnalysis:
    """Exact odds of the next round dealt from ``shoe`` (the cards still in it)."""
    counts = count_rounds(shoe.by_baccarat_value())
    pair = count_pairs(shoe.by_rank())
    return BaccaratAnalysis(
        cards=len(shoe),
        counts=counts,
        pair=pair,
        edges=bet_edges(counts, pair, tie_payouts, pair_pays),
    )
