"""Playing cards and shoe compositions.

Card codes are two characters, rank then suit: ``AS 2H ... 9C TD JD QS KH``. ``10D`` is
accepted as a synonym for ``TD`` because that is how people write it on paper. Everything
else is refused with an error naming the code, so a typo in a stacked shoe file or on the
command line never becomes a different card.

A :class:`ShoeComposition` counts how many of each card are still in a shoe of 4 to 8
decks. Removing a card that is not there is an :class:`ImpossibleComposition`: that is how
the station notices a duplicate beyond the deck count or a foreign card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum

MIN_DECKS = 4
MAX_DECKS = 8


class CardError(ValueError):
    """A card code that cannot be parsed."""


class ImpossibleComposition(ValueError):
    """A shoe composition that cannot exist (too many decks, a card removed twice too often)."""


class Suit(str, Enum):  # noqa: UP042  cards reach text, JSON and logs everywhere; StrEnum would change str()/format()
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


class Rank(str, Enum):  # noqa: UP042  same reason as Suit: str()/format() must stay as they are
    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def pip(self) -> int:
        """Face number: Ace 1, 2-9 face value, ten and faces 10 (used for burning, RULES 4.1A)."""
        return _PIPS[self]

    @property
    def baccarat_value(self) -> int:
        """Baccarat point value (RULES 4.1): tens and faces count 0, Ace 1."""
        return _PIPS[self] % 10

    @property
    def war_rank(self) -> int:
        """Casino War ranking, 2 lowest (2) to Ace highest (14)."""
        return _WAR_RANKS[self]


_PIPS: dict[Rank, int] = {
    Rank.ACE: 1, Rank.TWO: 2, Rank.THREE: 3, Rank.FOUR: 4, Rank.FIVE: 5, Rank.SIX: 6,
    Rank.SEVEN: 7, Rank.EIGHT: 8, Rank.NINE: 9, Rank.TEN: 10, Rank.JACK: 10,
    Rank.QUEEN: 10, Rank.KING: 10,
}
_WAR_RANKS: dict[Rank, int] = {
    Rank.TWO: 2, Rank.THREE: 3, Rank.FOUR: 4, Rank.FIVE: 5, Rank.SIX: 6, Rank.SEVEN: 7,
    Rank.EIGHT: 8, Rank.NINE: 9, Rank.TEN: 10, Rank.JACK: 11, Rank.QUEEN: 12,
    Rank.KING: 13, Rank.ACE: 14,
}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. Immutable and hashable, so it can key a composition counter."""

    rank: Rank
    suit: Suit

    @property
    def code(self) -> str:
        return self.rank.value + self.suit.value

    def __str__(self) -> str:
        return self.code

    @classmethod
    def parse(cls, code: str) -> Card:
        return parse_card(code)


def parse_card(code: str) -> Card:
    """Parse a card code such as ``AS``, ``TD``, ``10D`` or ``kh`` (case-insensitive)."""
    if not isinstance(code, str):
        raise CardError(f"card code must be text, got {code!r}")
    text = code.strip().upper()
    if text.startswith("10") and len(text) == 3:
        text = "T" + text[2]
    if len(text) != 2:
        raise CardError(f"bad card code {code!r}: expected rank (A,2-9,T/10,J,Q,K) then suit (S,H,D,C), e.g. 'TD'")
    try:
        rank = Rank(text[0])
    except ValueError:
        raise CardError(f"bad card code {code!r}: unknown rank {text[0]!r} (use A,2-9,T or 10,J,Q,K)") from None
    try:
        suit = Suit(text[1])
    except ValueError:
        raise CardError(f"bad card code {code!r}: unknown suit {text[1]!r} (use S,H,D,C)") from None
    return Card(rank, suit)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse comma- or whitespace-separated card codes (``"AS,10D 9C"``)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)


def check_deck_count(decks: int) -> int:
    if not isinstance(decks, int) or isinstance(decks, bool):
        raise ImpossibleComposition(f"deck count must be a whole number, got {decks!r}")
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise ImpossibleComposition(
            f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, got {decks}"
        )
    return decks


class ShoeComposition:
    """How many of each card remain in a shoe of ``decks`` standard 52-card decks.

    The composition is the truth against which each card read from the shoe is checked: a
    card whose count is already zero is impossible (a duplicate beyond the deck count, or a
    card from another set) and raises :class:`ImpossibleComposition` rather than being
    silently accepted.
    """

    __slots__ = ("_counts", "decks")
    __hash__ = None  # type: ignore[assignment]  # it changes as cards come out: equal, never hashed

    def __init__(self, decks: int, counts: Mapping[Card, int] | None = None) -> None:
        self.decks = check_deck_count(decks)
        if counts is None:
            self._counts: Counter[Card] = Counter(dict.fromkeys(FULL_DECK, decks))
        else:
            self._counts = Counter()
            for card, count in counts.items():
                if not 0 <= count <= decks:
                    raise ImpossibleComposition(
                        f"{card.code}: {count} copies is impossible in {decks} decks"
                    )
                if count:
                    self._counts[card] = count

    def copy(self) -> ShoeComposition:
        return ShoeComposition(self.decks, self._counts)

    def count(self, card: Card) -> int:
        return self._counts.get(card, 0)

    def __len__(self) -> int:
        return sum(self._counts.values())

    def __iter__(self) -> Iterator[tuple[Card, int]]:
        return iter(sorted(self._counts.items()))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and self._counts.get(card, 0) > 0

    def can_remove(self, card: Card) -> bool:
        return self._counts.get(card, 0) > 0

    def remove(self, card: Card) -> None:
        """Take one ``card`` out; refuse if none is left (duplicate or foreign card)."""
        have = self._counts.get(card, 0)
        if have <= 0:
            raise ImpossibleComposition(
                f"{card.code} cannot come out of this shoe: all {self.decks} have already been seen"
            )
        if have == 1:
            del self._counts[card]
        else:
            self._counts[card] = have - 1

    def remove_all(self, cards: Iterable[Card]) -> None:
        """Remove several cards atomically: on an impossible card nothing is removed."""
        trial = self._counts.copy()
        for card in cards:
            if trial.get(card, 0) <= 0:
                raise ImpossibleComposition(
                    f"{card.code} cannot come out of this shoe: all {self.decks} have already been seen"
                )
            trial[card] -= 1
        self._counts = +trial

    def by_baccarat_value(self) -> list[int]:
        """Counts indexed by baccarat point value 0-9 (what the odds analyser needs)."""
        values = [0] * 10
        for card, count in self._counts.items():
            values[card.rank.baccarat_value] += count
        return values

    def by_rank(self) -> dict[Rank, int]:
        ranks = dict.fromkeys(Rank, 0)
        for card, count in self._counts.items():
            ranks[card.rank] += count
        return ranks

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ShoeComposition)
            and self.decks == other.decks
            and +self._counts == +other._counts
        )

    def __repr__(self) -> str:
        return f"ShoeComposition(decks={self.decks}, cards={len(self)})"
