"""Does a shoe repeat an earlier shoe of the table? A long common run of cards, found fast.

The first :data:`~station.integrity.order.FIRST_CARDS` cards of the shoe in play are looked for
in the whole sequence of each of the table's last shoes (as far as each was read): a run of
:data:`RUN_ALARM` or more consecutive cards that both shoes hold in the same order raises the
alarm. A set put back unshuffled, or pre-shuffled decks delivered twice in the same order, repeat
whole runs; two properly shuffled shoes share a run of eight with a probability bounded in
:func:`false_alarm_bound` (docs/integrity.md). Each earlier shoe is indexed once, by its runs of
:data:`RUN_ALARM` cards, so a look-up costs a few dictionary probes per shoe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from station.cards import FULL_DECK, Card
from station.integrity.order import FIRST_CARDS

RUN_ALARM = 8
"""Consecutive cards in common, in the same order, that raise the alarm."""

_INDEX = {card: i for i, card in enumerate(FULL_DECK)}


def card_numbers(cards: Sequence[Card]) -> tuple[int, ...]:
    return tuple(_INDEX[c] for c in cards)


@dataclass
class ShoeSequence:
    """An earlier shoe's cards in the order read, indexed by each run of :data:`RUN_ALARM`."""

    shoe: int
    sequence: tuple[int, ...]
    runs: dict[tuple[int, ...], list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, shoe: int, cards: Sequence[Card]) -> ShoeSequence:
        seq = card_numbers(cards)
        runs: dict[tuple[int, ...], list[int]] = {}
        for i in range(len(seq) - RUN_ALARM + 1):
            runs.setdefault(seq[i:i + RUN_ALARM], []).append(i)
        return cls(shoe, seq, runs)


@dataclass(frozen=True)
class CommonRun:
    """The longest run the first cards share with an earlier shoe."""

    shoe: int
    length: int
    at: int  # position in the shoe in play (0 = the exposed card)
    earlier_at: int  # position in the earlier shoe


def longest_common_run(first: Sequence[Card], earlier: ShoeSequence) -> CommonRun | None:
    """The longest run (at least :data:`RUN_ALARM` cards) of ``first`` found in ``earlier``."""
    seq = card_numbers(first)
    best: CommonRun | None = None
    for i in range(len(seq) - RUN_ALARM + 1):
        for j in earlier.runs.get(seq[i:i + RUN_ALARM], ()):
            length = RUN_ALARM
            while i + length < len(seq) and j + length < len(earlier.sequence) \
                    and seq[i + length] == earlier.sequence[j + length]:
                length += 1
            if best is None or length > best.length:
                best = CommonRun(earlier.shoe, length, i, j)
    return best


def false_alarm_bound(decks: int, depth: int, m: int = FIRST_CARDS, earlier_cards: int | None = None) -> float:
    """Upper bound on the probability that the first ``m`` cards of a properly shuffled shoe
    share a run of :data:`RUN_ALARM` with any of ``depth`` earlier shoes of ``earlier_cards``
    cards each (a whole shoe by default)."""
    n = 52 * decks if earlier_cards is None else earlier_cards
    pool = 52 * decks - (m - 1)
    per_pair = (decks / pool) ** RUN_ALARM  # each card must be the one named: at most `decks` copies unseen
    return depth * (m - RUN_ALARM + 1) * (n - RUN_ALARM + 1) * per_pair
