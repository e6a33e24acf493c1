"""Cards for simulated devices: stacked shoes, seeded shuffles, and a shared continuous pool."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterable, Sequence

from station.cards import FULL_DECK, Card


class CutCardMarker:
    """The plastic cut card in a stacked order (a singleton: :data:`CUT_CARD`)."""

    _instance: CutCardMarker | None = None

    def __new__(cls) -> CutCardMarker:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "CUT_CARD"


CUT_CARD = CutCardMarker()

ShoeItem = Card | CutCardMarker


def shuffled_shoe(decks: int, seed: int | None, cut_position: int | None = None) -> list[ShoeItem]:
    """``decks`` full decks in a seeded random order, with the cut card before card ``cut_position``.

    ``cut_position`` counts cards from the front (``len - 14`` puts 14 cards behind it);
    ``None`` means no cut card.
    """
    cards: list[ShoeItem] = [card for _ in range(decks) for card in FULL_DECK]
    random.Random(seed).shuffle(cards)
    if cut_position is not None:
        if not 0 <= cut_position <= len(cards):
            raise ValueError(f"cut card position {cut_position} is outside 0-{len(cards)}")
        cards.insert(cut_position, CUT_CARD)
    return cards


class CardPool:
    """The cards inside a continuous shuffler, shared by the simulated shuffler and shoe.

    The shoe takes cards from the front; cards returned after a round are put back at
    random places (seeded), as a continuous shuffler does.
    """

    def __init__(self, cards: Iterable[Card] = (), seed: int | None = None) -> None:
        self._cards: list[Card] = list(cards)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    @classmethod
    def of_decks(cls, decks: int, seed: int | None = None) -> CardPool:
        pool = cls((card for _ in range(decks) for card in FULL_DECK), seed)
        with pool._lock:
            pool._rng.shuffle(pool._cards)
        return pool

    def take(self) -> Card | None:
        with self._lock:
            return self._cards.pop(0) if self._cards else None

    def put_back(self, cards: Sequence[Card]) -> None:
        with self._lock:
            for card in cards:
                self._cards.insert(self._rng.randint(0, len(self._cards)), card)

    def remove(self, card: Card) -> None:
        """Take one copy of ``card`` out (a fault: a short deck); ValueError if there is none."""
        with self._lock:
            self._cards.remove(card)

    def cards(self) -> list[Card]:
        with self._lock:
            return list(self._cards)

    def __len__(self) -> int:
        with self._lock:
            return len(self._cards)
