"""Every baccarat round, grouped by the multiset of its card values.

Why this table exists: how many ordered card sequences deal a given sequence of point
values depends only on *how often* each value occurs in it, not on the order. A round whose
values contain value ``v`` exactly ``m_v`` times can be dealt from a shoe holding ``c_v``
cards of value ``v`` in

    prod over v of  c_v * (c_v - 1) * ... * (c_v - m_v + 1)

ways. So the third-card rules are applied once, to every sequence of point values, and the
resulting rounds are tallied by (multiset of values, outcome); the multiset fixes the
number of cards. That tally does not depend on the shoe. Analysing a composition is then
one weighted sum over the ~7,000 multisets (see
:func:`station.analysis.baccarat_odds.count_rounds`) instead of a walk through every round.

The rules come from the shared engine (:func:`~station.games.baccarat.rules.player_draws`,
:func:`~station.games.baccarat.rules.banker_draws`), never from a copy of the drawing table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from functools import cache

from station.games.baccarat.rules import banker_draws, player_draws

VALUES = range(10)
"""Baccarat point values 0-9."""

MAX_ROUND_CARDS = 6
"""Two hands of at most three cards."""

MAX_MULTIPLICITY = MAX_ROUND_CARDS
"""A value can occur at most six times in one round."""

_KEY_BITS = 3
"""Bits per value in a packed multiset key; 3 bits hold multiplicities 0-7 >= 6."""


class Tally(IntEnum):
    """What a round is counted as. Banker wins are split so the no-commission 6 is known.

    The members are list indexes in the build below.
    """

    BANKER_NOT_SIX = 0
    BANKER_ON_SIX = 1
    PLAYER = 2
    TIE = 3


LOW_VALUES = range(5)
HIGH_VALUES = range(5, 10)
"""The values are split in two halves so that a multiset's weight is the product of two
looked-up numbers, one per half (see :class:`RoundTable`)."""


def tally_of(player_total: int, banker_total: int) -> Tally:
    if banker_total > player_total:
        return Tally.BANKER_ON_SIX if banker_total == 6 else Tally.BANKER_NOT_SIX
    if player_total > banker_total:
        return Tally.PLAYER
    return Tally.TIE


def factor_index(value: int, multiplicity: int) -> int:
    """Where ``c_v (c_v - 1) ... (c_v - m + 1)`` sits in the per-composition factor list."""
    return value * (MAX_MULTIPLICITY + 1) + multiplicity


@dataclass(frozen=True, slots=True)
class LengthGroup:
    """All multisets of one round length, as parallel columns.

    Multiset ``i`` is the union of half-multisets ``low[i]`` (values 0-4) and ``high[i]``
    (values 5-9), indexes into :attr:`RoundTable.halves`; ``columns[tally][i]`` is how many
    value sequences with that multiset are complete rounds counted as ``tally``.
    """

    low: tuple[int, ...]
    high: tuple[int, ...]
    columns: dict[int, tuple[int, ...]]
    """By class (a :class:`Tally`, or another table's class); a class no round has is left out."""


@dataclass(frozen=True, slots=True)
class RoundTable:
    """Rounds tallied by value multiset, laid out for a fast weighted sum.

    ``halves[j]`` lists the five :func:`factor_index` values of half-multiset ``j``; the
    product of those factors is the number of ways the composition can supply that half.
    A full multiset's weight is the product of its two halves' weights, so a composition
    needs ~840 small products for the halves and then one ``sum(map(mul, ...))`` per column,
    which runs in C.
    """

    halves: tuple[tuple[int, ...], ...]
    by_length: dict[int, LengthGroup]

    @property
    def multisets(self) -> int:
        return sum(len(group.low) for group in self.by_length.values())


def _key_unit(value: int) -> int:
    return 1 << (_KEY_BITS * value)


def _multiplicity(key: int, value: int) -> int:
    return (key >> (_KEY_BITS * value)) & ((1 << _KEY_BITS) - 1)


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


#: A round's class from (player total, banker total, Player's cards, Banker's cards).
Classify = Callable[[int, int, int, int], int]


def _tally_rounds(classes: int, classify: Classify) -> dict[int, list[int]]:
    """Per packed value multiset (``m_v`` in 3 bits per value), the rounds by their class
    (``classify`` of each complete round, one of ``classes``)."""
    unit = [_key_unit(v) for v in VALUES]
    tallies: dict[int, list[int]] = {}

    def add(key: int, player_total: int, banker_total: int, cards: tuple[int, int], ways: int) -> None:
        if key not in tallies:
            tallies[key] = [0] * classes
        tallies[key][classify(player_total, banker_total, *cards)] += ways

    for (key, player, banker), ways in _opening_deals().items():
        if player >= 8 or banker >= 8:  # a natural: both hands stand
            add(key, player, banker, (2, 2), ways)
        elif player_draws(player):
            for third in VALUES:
                key5, player3 = key + unit[third], (player + third) % 10
                if banker_draws(banker, third):
                    for banker_third in VALUES:
                        add(key5 + unit[banker_third], player3, (banker + banker_third) % 10, (3, 3), ways)
                else:
                    add(key5, player3, banker, (3, 2), ways)
        elif banker_draws(banker, None):
            for banker_third in VALUES:
                add(key + unit[banker_third], player, (banker + banker_third) % 10, (2, 3), ways)
        else:
            add(key, player, banker, (2, 2), ways)
    return tallies


def build_table(classes: int, classify: Classify) -> RoundTable:
    """Every round tallied by value multiset and by ``classify``'s class (see the module)."""
    halves: dict[tuple[int, ...], int] = {}

    def half(values: range, key: int) -> int:
        factors = tuple(factor_index(v, _multiplicity(key, v)) for v in values)
        return halves.setdefault(factors, len(halves))

    rows: dict[int, list[tuple[int, int, list[int]]]] = {}
    for key, counts in _tally_rounds(classes, classify).items():
        length = sum(_multiplicity(key, v) for v in VALUES)
        rows.setdefault(length, []).append((half(LOW_VALUES, key), half(HIGH_VALUES, key), counts))
    used = [c for c in range(classes) if any(row[2][c] for group in rows.values() for row in group)]
    by_length = {
        length: LengthGroup(
            low=tuple(row[0] for row in group),
            high=tuple(row[1] for row in group),
            columns={c: tuple(row[2][c] for row in group) for c in used},
        )
        for length, group in sorted(rows.items())
    }
    return RoundTable(halves=tuple(halves), by_length=by_length)


@cache
def round_table() -> RoundTable:
    """Rounds by :class:`Tally`, built once per process (about 0.2 s; see ``bench/analyze.py``)."""
    return build_table(len(Tally), lambda player, banker, _p, _b: tally_of(player, banker))
