"""Every baccarat round, grouped by the multiset of its card values.

Why this table exists: how many ordered card sequences deal a given sequence of point
values depends only on *how often* each value occurs in it, not on the order. A round whose
values contain value ``v`` exactly ``m_v`` times can be dealt from a shoe holding ``c_v``
cards of value ``v`` in

    prod over v of  c_v * (c_v - 1) * ... * (c_v - m_v + 1)

ways. So the third-card rules are applied once, to every sequence of point values, and the
resulting rounds are tallied by (multiset of values, number of cards, outcome). That tally
does not depend on the shoe. Analysing a composition is then one weighted sum over the
~7,000 multisets (see :func:`station.analysis.baccarat_odds.count_rounds`) instead of a walk
through every round.

The rules come from the shared engine (:func:`~station.games.baccarat.player_draws`,
:func:`~station.games.baccarat.banker_draws`), never from a copy of the drawing table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache

from station.games.baccarat import banker_draws, player_draws

VALUES = range(10)
"""Baccarat point values 0-9."""

MAX_ROUND_CARDS = 6
"""Two hands of at most three cards."""

MIN_ROUND_CARDS = 4

MAX_MULTIPLICITY = MAX_ROUND_CARDS
"""A value can occur at most six times in one round."""

_KEY_BITS = 3
"""Bits per value in a packed multiset key; 3 bits hold multiplicities 0-7 >= 6."""


class Tally(IntEnum):
    """What a round is counted as. Banker wins are split so the no-commission 6 is known."""

    BANKER_NOT_SIX = 0
    BANKER_ON_SIX = 1
    PLAYER = 2
    TIE = 3


SLOT_BITS = 64
"""Width of one counter inside a packed tally.

Each counter of a packed sum ends up holding a number of ordered sequences of at most six
distinct cards, so it stays below ``N**6``; for ``N <= MAX_CARDS`` that is below ``2**64``
and no counter carries into its neighbour. The packing lets one big-integer multiply-add
update all twelve counters at once, which is what makes the per-composition sum fast.
"""

MAX_CARDS = 1600
"""Largest shoe the packed counters can take (1600**6 < 2**64); a real shoe holds 416."""

SLOTS = len(Tally) * (MAX_ROUND_CARDS - MIN_ROUND_CARDS + 1)


def slot(cards: int, tally: Tally) -> int:
    """Index of the packed counter for rounds of ``cards`` cards counted as ``tally``."""
    return (cards - MIN_ROUND_CARDS) * len(Tally) + int(tally)


def unpack(packed: int) -> list[int]:
    """The :data:`SLOTS` counters held in one packed integer."""
    mask = (1 << SLOT_BITS) - 1
    return [(packed >> (SLOT_BITS * i)) & mask for i in range(SLOTS)]


def tally_of(player_total: int, banker_total: int) -> Tally:
    if banker_total > player_total:
        return Tally.BANKER_ON_SIX if banker_total == 6 else Tally.BANKER_NOT_SIX
    if player_total > banker_total:
        return Tally.PLAYER
    return Tally.TIE


@dataclass(frozen=True, slots=True)
class RoundTable:
    """Rounds tallied by value multiset, ready for a weighted sum.

    ``by_width[d]`` lists the multisets with ``d`` distinct values, each as
    ``(factor_indexes, packed_tally)``. A factor index ``v * 7 + m`` points at the falling
    factorial ``c_v (c_v - 1) ... (c_v - m + 1)`` that the composition supplies; the packed
    tally holds, per (cards, outcome) counter, how many value sequences with this multiset
    are complete rounds.
    """

    by_width: dict[int, tuple[tuple[tuple[int, ...], int], ...]]

    @property
    def multisets(self) -> int:
        return sum(len(entries) for entries in self.by_width.values())


def factor_index(value: int, multiplicity: int) -> int:
    return value * (MAX_MULTIPLICITY + 1) + multiplicity


def _key_unit(value: int) -> int:
    return 1 << (_KEY_BITS * value)


def _opening_deals() -> dict[tuple[int, int, int], int]:
    """Ordered first four values (P, B, P, B) grouped by (multiset key, player, banker totals)."""
    unit = [_key_unit(v) for v in VALUES]
    groups: dict[tuple[int, int, int], int] = {}
    for p1 in VALUES:
        for b1 in VALUES:
            for p2 in VALUES:
                for b2 in VALUES:
                    key = unit[p1] + unit[b1] + unit[p2] + unit[b2]
                    group = (key, (p1 + p2) % 10, (b1 + b2) % 10)
                    groups[group] = groups.get(group, 0) + 1
    return groups


def _tally_rounds() -> dict[int, int]:
    """Packed tallies of every complete round, keyed by its packed value multiset."""
    unit = [_key_unit(v) for v in VALUES]
    tallies: dict[int, int] = {}

    def add(key: int, cards: int, player_total: int, banker_total: int, ways: int) -> None:
        shift = SLOT_BITS * slot(cards, tally_of(player_total, banker_total))
        tallies[key] = tallies.get(key, 0) + (ways << shift)

    for (key, player, banker), ways in _opening_deals().items():
        if player >= 8 or banker >= 8:  # a natural: both hands stand
            add(key, 4, player, banker, ways)
        elif player_draws(player):
            for third in VALUES:
                key5, player3 = key + unit[third], (player + third) % 10
                if banker_draws(banker, third):
                    for banker_third in VALUES:
                        add(key5 + unit[banker_third], 6, player3, (banker + banker_third) % 10, ways)
                else:
                    add(key5, 5, player3, banker, ways)
        elif banker_draws(banker, None):
            for banker_third in VALUES:
                add(key + unit[banker_third], 5, player, (banker + banker_third) % 10, ways)
        else:
            add(key, 4, player, banker, ways)
    return tallies


@cache
def round_table() -> RoundTable:
    """The table, built once per process (about 0.2 s; see ``bench/analyze.py``)."""
    by_width: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    mask = (1 << _KEY_BITS) - 1
    for key, packed in _tally_rounds().items():
        factors = tuple(
            factor_index(v, (key >> (_KEY_BITS * v)) & mask)
            for v in VALUES
            if (key >> (_KEY_BITS * v)) & mask
        )
        by_width.setdefault(len(factors), []).append((factors, packed))
    return RoundTable({width: tuple(entries) for width, entries in sorted(by_width.items())})
