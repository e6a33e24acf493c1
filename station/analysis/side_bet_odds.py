"""Exact odds and house edges of baccarat's side bets for any shoe composition.

Counted as the main bets are (:mod:`station.analysis.baccarat_odds`): ordered six-card
sequences without replacement, every complete round weighted by the ways to draw its unused
positions. Two kinds of side bet, two ways of counting:

- **Decided by points** (Dragon 7, Panda 8, Dragon Bonus; EZ Baccarat's Banker): the rounds
  are tallied once per process by value multiset and by what the round is to each of these
  bets (:data:`SIGNATURES`: the hands named by the rules' own
  :func:`~station.games.baccarat.side_bets.value_hand`, so what is priced here is what the
  settlement pays; a few dozen classes, :func:`hand_table`).
- **Decided by the first two cards of each hand** (the pairs): by rank (or rank and suit)
  counts alone. A Player pair is positions 1 and 3, a Banker pair 2 and 4; with ``a_x`` the
  ordered ways to draw two cards of kind ``x`` (``n (n - 1)``), both hands pair in
  ``(Σ a_x)² − Σ a_x² + Σ n (n−1)(n−2)(n−3)`` ordered ways (two pairs of one kind need four of it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from station.analysis.baccarat_odds import count_classes, falling
from station.analysis.edges import BetEdge, house_edge
from station.analysis.round_table import MAX_ROUND_CARDS, RoundTable, build_table
from station.cards import ShoeComposition
from station.games.baccarat.side_bets import (
    NATURAL_PAIR_RANKS,
    PAY_TABLES,
    VALUE_BETS,
    SideBet,
    SidePayTable,
    value_hand,
)

#: The bets decided by points, in a fixed order (a round's class names a hand of each).
_BY_POINTS = tuple(sorted(VALUE_BETS))


def _ez(player_total: int, banker_total: int, banker_cards: int) -> str:
    """EZ Baccarat's Banker: "win", "push" (a Banker win with a three-card 7, or a tie), "lose"."""
    if banker_total > player_total:
        return "push" if banker_cards == 3 and banker_total == 7 else "win"
    return "lose" if player_total > banker_total else "push"


def _signature(player_total: int, banker_total: int, player_cards: int, banker_cards: int) -> tuple[str, ...]:
    """What a round is to every bet decided by points: each one's hand, then EZ's Banker."""
    hands = (value_hand(bet, player_total, banker_total, player_cards, banker_cards) for bet in _BY_POINTS)
    return (*hands, _ez(player_total, banker_total, banker_cards))


#: Every distinct signature a round can have (a few dozen, of 10 x 10 x 2 x 2 hands), numbered.
SIGNATURES: tuple[tuple[str, ...], ...] = tuple(dict.fromkeys(
    _signature(p, b, pc, bc) for p in range(10) for b in range(10) for pc in (2, 3) for bc in (2, 3)))
_NUMBER = {signature: number for number, signature in enumerate(SIGNATURES)}


def _hand_class(player_total: int, banker_total: int, player_cards: int, banker_cards: int) -> int:
    return _NUMBER[_signature(player_total, banker_total, player_cards, banker_cards)]


@cache
def hand_table() -> RoundTable:
    """Every round by value multiset and by its :data:`SIGNATURES` (built once, about 0.4 s)."""
    return build_table(len(SIGNATURES), _hand_class)


#: Counts ordered six-card sequences by a round table's classes (``count_classes``, or the
#: integrity monitor's faster count of the same).
ClassCounter = Callable[[Sequence[int], RoundTable], Mapping[int, int]]


def _two_pairs(kinds: Iterable[int]) -> tuple[int, int]:
    """(ordered ways one hand's first two cards are of one kind, ways both hands' are)."""
    counts = list(kinds)
    ways = [n * (n - 1) for n in counts]
    one = sum(ways)
    both = one * one - sum(w * w for w in ways) + sum(n * (n - 1) * (n - 2) * (n - 3) for n in counts)
    return one, both


@dataclass(frozen=True)
class SideBetOdds:
    """One pay table priced: ordered sequences per hand it names, and its house edge."""

    table: SidePayTable
    hands: Mapping[str, int]
    total: int
    edge: BetEdge


def _priced(table: SidePayTable, hands: Mapping[str, int], total: int) -> SideBetOdds:
    """A pay table's edge over what it pays in fixed awards: a progressive's meter hands keep
    the stake and win nothing here (their share of the meter is :func:`break_even_meter`'s)."""
    paid = sum(odds * hands.get(hand, 0) for hand, odds in table.awards.items())
    kept = sum(hands.get(hand, 0) for hand in {*table.awards, *table.pushes, *table.meter})
    edge = BetEdge(table.name, table.bet.words, table.describe(), house_edge(paid - (total - kept), total))
    return SideBetOdds(table, dict(hands), total, edge)


def side_bet_hands(shoe: ShoeComposition, count: ClassCounter = count_classes
                   ) -> tuple[dict[SideBet, Counter[str]], int, Counter[str]]:
    """Ordered six-card sequences per hand of every side bet, the total, and EZ Baccarat's
    Banker results (``win``, ``push``, ``lose``)."""
    cards = len(shoe)
    total = falling(cards, MAX_ROUND_CARDS)
    by_class = count(shoe.by_baccarat_value(), hand_table())
    hands: dict[SideBet, Counter[str]] = {bet: Counter() for bet in SideBet}
    ez: Counter[str] = Counter()
    for index, ways in by_class.items():
        *named, banker = SIGNATURES[index]
        for bet, hand in zip(_BY_POINTS, named, strict=True):
            hands[bet][hand] += ways
        ez[banker] += ways
    unused = falling(cards - 2, MAX_ROUND_CARDS - 2)
    unused_both = falling(cards - 4, MAX_ROUND_CARDS - 4)
    pair, pairs = _two_pairs(shoe.by_rank().values())
    suited, suiteds = _two_pairs(count for _card, count in shoe)
    either = 2 * pair * unused - pairs * unused_both
    any_suited = 2 * suited * unused - suiteds * unused_both
    for bet in (SideBet.PLAYER_PAIR, SideBet.BANKER_PAIR):
        hands[bet]["pair"] = pair * unused
    hands[SideBet.EITHER_PAIR]["pair"] = either
    hands[SideBet.PERFECT_PAIR].update({"both_suited": suiteds * unused_both,
                                        "one_suited": any_suited - suiteds * unused_both,
                                        "unsuited": either - any_suited})
    hands[SideBet.PROGRESSIVE].update(_natural_pairs(shoe, unused, unused_both))
    for bet in (SideBet.PLAYER_PAIR, SideBet.BANKER_PAIR, SideBet.EITHER_PAIR, SideBet.PERFECT_PAIR,
                SideBet.PROGRESSIVE):
        hands[bet]["none"] = total - sum(hands[bet].values())
    return hands, total, ez


def _natural_pairs(shoe: ShoeComposition, unused: int, unused_both: int) -> dict[str, int]:
    """Ordered sequences per hand of the progressive (``natural_pairs_hand``): by the first two
    cards of each hand, the natural pairs being of 4s and 9s. ``A`` counts the ordered ways one
    hand pairs of those ranks, ``S`` those whose pair is suited; ``AB`` and ``SS`` both hands."""
    kinds = {card: count for card, count in shoe if card.rank.value in NATURAL_PAIR_RANKS}
    ranks = Counter[str]()
    for card, count in kinds.items():
        ranks[card.rank.value] += count
    a, ab = _two_pairs(ranks.values())
    s, ss = _two_pairs(kinds.values())
    # One hand suited, the other a natural pair (suited or not) of what is left.
    s_with_pair = sum(n * (n - 1) * (a - ranks[c.rank.value] * (ranks[c.rank.value] - 1)
                                     + (ranks[c.rank.value] - 2) * (ranks[c.rank.value] - 3))
                      for c, n in kinds.items())
    one = 2 * (a * unused - ab * unused_both)
    one_suited = 2 * (s * unused - s_with_pair * unused_both)
    return {"both_suited": ss * unused_both, "both_pairs": (ab - ss) * unused_both, "one_suited": one_suited,
            "one_pair": one - one_suited}


def break_even_meter(odds: SideBetOdds, stake: int) -> int | None:
    """The smallest meter (minor units) at which a progressive of ``stake`` returns at least
    what is staked: its fixed awards plus its meter hands' shares; None for a bet with no meter."""
    hits = sum(odds.hands.get(hand, 0) * share for hand, share in odds.table.meter.items())
    if not hits:
        return None
    paid = sum(o * odds.hands.get(h, 0) for h, o in odds.table.awards.items())
    lost = odds.total - sum(odds.hands.get(h, 0) for h in {*odds.table.awards, *odds.table.pushes, *odds.table.meter})
    # Over every sequence: the stakes lost less the fixed awards is what the meter must return,
    # hits x meter x share / 100 of it.
    shortfall = (lost - paid) * stake * 100
    return max(0, -(-shortfall // hits))


@dataclass(frozen=True)
class SideBetAnalysis:
    """Every pay table of every side bet priced for one composition, and EZ Baccarat's Banker."""

    total: int
    odds: tuple[SideBetOdds, ...]
    ez_banker: BetEdge

    def edge(self, name: str) -> BetEdge:
        return next(o.edge for o in self.odds if o.table.name == name)


def analyse_side_bets(shoe: ShoeComposition, tables: Iterable[str] = tuple(PAY_TABLES), *,
                      count: ClassCounter = count_classes) -> SideBetAnalysis:
    """Exact odds of each side bet's pay tables (``tables``: names of :data:`PAY_TABLES`)
    for the next round dealt from ``shoe``; ``count`` counts the rounds by class."""
    hands, total, ez = side_bet_hands(shoe, count)
    odds = tuple(_priced(PAY_TABLES[name], hands[PAY_TABLES[name].bet], total) for name in tables)
    ez_edge = BetEdge("banker_ez", "Banker, EZ Baccarat", "1:1, a win with a three-card 7 pushes",
                      house_edge(ez["win"] - ez["lose"], total))
    return SideBetAnalysis(total, odds, ez_edge)
