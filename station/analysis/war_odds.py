"""Exact Casino War odds for a shoe composition, by enumeration over rank counts.

One player against the dealer (other boxes' cards are unseen to this player, so they do not
change the odds). What is counted: ordered four-card sequences (player card, dealer card,
player war card, dealer war card) of distinct cards; a round decided on the first two cards
is multiplied by ``(N - 2)(N - 3)``, the ways to fill the two unused positions, so every
count shares the denominator ``N (N - 1) (N - 2) (N - 3)``.

The three burn cards before a war are left out of the enumeration on purpose: they are
unseen, and given the first two cards the remaining cards of a shuffled shoe are
exchangeable, so the war cards have the same distribution whether or not three unseen cards
were burnt first. ``tests/analysis`` checks this against an enumeration that does burn.

Rules (RULES "Casino War"): a higher first card wins the Casino War Wager 1:1; on equal ranks
the player goes to war (adds an equal Go to War Wager) or surrenders half. In the war a
player's card higher or equal wins the Go to War Wager 1:1 and the Casino War Wager is a
stand-off; lower loses both. Optional bonus [choice]: when the war cards tie too, the Casino
War Wager wins ``war_tie_bonus``:1 instead of standing off (0 = no bonus, the default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from station.analysis.edges import BetEdge, house_edge
from station.cards import Rank, ShoeComposition

DEFAULT_TIE_PAYS = 10
"""RULES: the Tie Wager pays 10:1 [choice, configurable]."""

WAR_CARDS = 2 + 3 + 2
"""First two cards, three burnt, two war cards: the most one round needs."""


class WarShoeTooSmall(ValueError):
    """Fewer cards than a round with a war needs."""


@dataclass(frozen=True, slots=True)
class WarCounts:
    """Ordered four-card sequences by what happens in the round.

    ``player_higher + dealer_higher + tie == total`` (first cards), and the war counts split
    ``tie`` by the war cards: ``war_player_higher + war_dealer_higher + war_tie == tie``.
    """

    player_higher: int
    dealer_higher: int
    tie: int
    war_player_higher: int
    war_dealer_higher: int
    war_tie: int

    @property
    def total(self) -> int:
        return self.player_higher + self.dealer_higher + self.tie


def _ordered_pairs(counts: list[int]) -> tuple[int, int, int]:
    """Ordered (first, second) draws of distinct cards: first higher, second higher, equal.

    ``counts`` is indexed from the lowest rank to the highest.
    """
    first_higher = 0
    below = 0
    for n in counts:
        first_higher += n * below
        below += n
    equal = sum(n * (n - 1) for n in counts)
    # Swapping the two cards maps "first higher" onto "second higher" one to one.
    return first_higher, first_higher, equal


def count_war(rank_counts: Mapping[Rank, int]) -> WarCounts:
    """Exact counts for a shoe holding ``rank_counts[rank]`` cards of each rank."""
    ranks = sorted(rank_counts, key=lambda rank: rank.war_rank)
    counts = [rank_counts[rank] for rank in ranks]
    if any(n < 0 for n in counts):
        raise ValueError(f"rank counts must not be negative: {dict(rank_counts)}")
    cards = sum(counts)
    if cards < WAR_CARDS:
        raise WarShoeTooSmall(f"{cards} cards left: a round with a war needs {WAR_CARDS}")
    player_higher, dealer_higher, tie = _ordered_pairs(counts)
    war_higher = war_lower = war_tie = 0
    for index, n in enumerate(counts):
        ways = n * (n - 1)
        if not ways:
            continue
        after = counts.copy()
        after[index] -= 2
        higher, lower, equal = _ordered_pairs(after)
        war_higher += ways * higher
        war_lower += ways * lower
        war_tie += ways * equal
    unused = (cards - 2) * (cards - 3)
    return WarCounts(
        player_higher=player_higher * unused,
        dealer_higher=dealer_higher * unused,
        tie=tie * unused,
        war_player_higher=war_higher,
        war_dealer_higher=war_lower,
        war_tie=war_tie,
    )


@dataclass(frozen=True, slots=True)
class WarAnalysis:
    """Counts, probabilities and house edges of one composition."""

    cards: int
    counts: WarCounts
    tie_pays: int
    war_tie_bonus: int
    edges: tuple[BetEdge, ...]
    go_to_war_per_total_wagered: Fraction
    """Go-to-war edge per unit actually staked (the war adds a second unit on a tie)."""
    war_tie_bonus_effect: Fraction
    """How much the tie-after-tie bonus lowers the go-to-war edge (0 without a bonus)."""

    @property
    def tie_probability(self) -> Fraction:
        return Fraction(self.counts.tie, self.counts.total)

    def edge(self, key: str) -> BetEdge:
        for edge in self.edges:
            if edge.key == key:
                return edge
        raise KeyError(key)


def analyse_war(
    shoe: ShoeComposition, tie_pays: int = DEFAULT_TIE_PAYS, war_tie_bonus: int = 0
) -> WarAnalysis:
    """Exact odds of the next round dealt from ``shoe`` for one player."""
    if tie_pays < 0 or war_tie_bonus < 0:
        raise ValueError("payouts cannot be negative")
    c = count_war(shoe.by_rank())
    total = c.total
    decided = c.player_higher - c.dealer_higher
    # Go to war: win 1 on the Go to War Wager (Casino War Wager stands off, or wins the
    # bonus on a tie); lose both wagers when the war card is lower.
    war_result = c.war_player_higher + c.war_tie * (1 + war_tie_bonus) - 2 * c.war_dealer_higher
    go_to_war = house_edge(decided + war_result, total)
    staked = 1 + Fraction(c.tie, total)
    war_label = "1:1, war ties stand off" if not war_tie_bonus else f"1:1, war tie bonus {war_tie_bonus}:1"
    edges = (
        BetEdge("casino_war_go_to_war", "Casino War Wager, go to war", war_label, go_to_war),
        BetEdge(
            "casino_war_surrender",
            "Casino War Wager, surrender",
            "1:1, surrender half on a tie",
            house_edge(decided - Fraction(c.tie, 2), total),
        ),
        BetEdge(
            f"tie_wager_{tie_pays}_to_1",
            "Tie Wager",
            f"{tie_pays}:1",
            house_edge(tie_pays * c.tie - (total - c.tie), total),
        ),
    )
    return WarAnalysis(
        cards=len(shoe),
        counts=c,
        tie_pays=tie_pays,
        war_tie_bonus=war_tie_bonus,
        edges=edges,
        go_to_war_per_total_wagered=go_to_war / staked,
        war_tie_bonus_effect=Fraction(war_tie_bonus * c.war_tie, total),
    )
