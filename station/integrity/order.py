"""Is the shoe in an ordered arrangement? Tests on its first cards, with their false-alarm bounds.

The first :data:`FIRST_CARDS` cards out of a shoe (the exposed card, the burn, the first
rounds, in the order they were read) are tested for the arrangements an unshuffled or badly
shuffled set shows:

- **suited steps**: a card followed by the card of the same suit one rank up or down (new-deck
  order, or its reverse, or a riffle that left runs of it);
- **rank steps**: a card followed by one of the same rank or one rank up (sorted by rank), or the
  same or one rank down;
- **suit cycles**: the suits repeating with a period of 1 to 4 cards (``S H D C S H D C ...``).

Each has a rigorous bound on its false-alarm probability for a properly shuffled shoe
(:func:`false_alarm_bounds`; the argument is in docs/integrity.md): fixing the positions where
the pattern must hold and chaining the conditional probabilities in order, each step holds with
probability at most (the cards that would make it hold) / (the cards still unseen). Ranks run
A 2 … 9 T J Q K; an Ace and a King are not neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb

from station.cards import Card, Rank

FIRST_CARDS = 16
"""How many cards of a shoe are tested (the exposed card and burn included)."""

SUITED_STEPS_ALARM = 8
"""Suited steps (of 15) that raise the alarm."""

RANK_STEPS_ALARM = 13
"""Steps of 0 or +1 rank (or of 0 or -1) of 15 that raise the alarm."""

SUIT_PERIODS = (1, 2, 3, 4)
"""Periods of the suit cycles tested; a cycle must hold over all the cards tested."""

_RANK_INDEX = {rank: i for i, rank in enumerate(Rank)}


@dataclass(frozen=True)
class OrderResult:
    """The statistics of the first cards, and the arrangements found (empty: none)."""

    cards: int
    suited_steps: int
    rank_steps_up: int
    rank_steps_down: int
    suit_cycles: dict[int, int] = field(default_factory=dict)  # period -> pairs matching
    found: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"cards": self.cards, "suited_steps": self.suited_steps, "rank_steps_up": self.rank_steps_up,
                "rank_steps_down": self.rank_steps_down,
                "suit_cycles": {str(k): v for k, v in self.suit_cycles.items()}, "found": list(self.found)}


def order_statistics(cards: Sequence[Card], m: int = FIRST_CARDS) -> OrderResult:
    """The three statistics over the first ``m`` cards (all of them when fewer)."""
    first = list(cards[:m])
    ranks = [_RANK_INDEX[c.rank] for c in first]
    suits = [c.suit for c in first]
    steps = len(first) - 1
    suited = up = down = 0
    for i in range(steps):
        delta = ranks[i + 1] - ranks[i]
        if suits[i] == suits[i + 1] and abs(delta) == 1:
            suited += 1
        if delta in (0, 1):
            up += 1
        if delta in (0, -1):
            down += 1
    cycles = {k: sum(1 for i in range(len(first) - k) if suits[i] == suits[i + k]) for k in SUIT_PERIODS}
    found: list[str] = []
    if len(first) >= m:
        if suited >= SUITED_STEPS_ALARM:
            found.append(f"{suited} of {steps} cards follow the card before in the same suit, one rank up or down")
        for words, n in (("up", up), ("down", down)):
            if n >= RANK_STEPS_ALARM:
                found.append(f"{n} of {steps} cards are of the same rank as the card before or one rank {words}")
        for k, n in cycles.items():
            if n == len(first) - k:
                found.append(f"the suits repeat every {k} card{'s' if k > 1 else ''} over all {len(first)} cards")
    return OrderResult(len(first), suited, up, down, cycles, tuple(found))


def false_alarm_bounds(decks: int, m: int = FIRST_CARDS) -> dict[str, float]:
    """Upper bounds on the probability that a properly shuffled shoe of ``decks`` decks raises
    each alarm in its first ``m`` cards, and on their sum (``"total"``)."""
    pool = 52 * decks - (m - 1)  # the fewest unseen cards any of the first m cards is drawn from
    steps = m - 1
    q_suited = 2 * decks / pool  # the same suit, one rank up or down: at most 2 x decks cards
    q_rank = 8 * decks / pool  # the same rank or the next: fewer than 2 x 4 x decks cards
    q_suit = 13 * decks / pool  # the same suit as a card k before: at most 13 x decks cards
    suited = comb(steps, SUITED_STEPS_ALARM) * q_suited ** SUITED_STEPS_ALARM
    rank = 2 * comb(steps, RANK_STEPS_ALARM) * q_rank ** RANK_STEPS_ALARM
    cycles = sum(q_suit ** (m - k) for k in SUIT_PERIODS)
    return {"suited_steps": suited, "rank_steps": rank, "suit_cycles": cycles, "total": suited + rank + cycles}
