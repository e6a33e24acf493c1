"""A shuffler's count of a set, judged against the table's own number of decks.

Part of the shoe procedure (:mod:`station.games.shoe_procedure`): a set goes into the shoe only
once its count passes (the state machine asks this before a set goes into play).

The shuffler's report says what it finds missing and extra against the number of decks *it*
is set for; the station counts against the decks *the table* is configured with, card by card,
so a shuffler set for 6 decks cannot pass a 6-deck set on an 8-deck table. A card code the
station cannot read counts as a card that cannot be in the set (foreign).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from station.cards import FULL_DECK, Card, CardError, Rank, parse_card


@dataclass(frozen=True)
class DeckVerdict:
    """The set against ``decks`` full decks: complete, or short and over by card."""

    decks: int
    counted: int
    short: tuple[tuple[str, int], ...]  # card code, copies missing
    over: tuple[tuple[str, int], ...]  # card code (or what the shuffler sent), copies beyond the decks
    reported_decks: int

    @property
    def expected(self) -> int:
        return 52 * self.decks

    @property
    def passed(self) -> bool:
        return not self.short and not self.over

    def by_rank(self) -> dict[str, tuple[int, int]]:
        """Rank -> (counted, expected) for each rank that is not complete."""
        counts: dict[str, int] = {}
        for code, n in self.short:
            rank = code[0]
            counts[rank] = counts.get(rank, 0) - n
        for code, n in self.over:
            if len(code) == 2 and code[0] in _RANKS:
                counts[code[0]] = counts.get(code[0], 0) + n
        return {rank: (4 * self.decks + delta, 4 * self.decks) for rank, delta in counts.items() if delta}

    def words(self) -> str:
        """One line for a supervisor: what is wrong, rank by rank."""
        if self.passed:
            return f"complete: {self.counted} cards, {self.decks} decks"
        parts = [f"{self.counted} cards counted, {self.expected} expected"]
        if self.short:
            parts.append("short " + " ".join(_copies(code, n) for code, n in self.short))
        if self.over:
            parts.append("over " + " ".join(_copies(code, n) for code, n in self.over))
        ranks = self.by_rank()
        if ranks:
            parts.append("by rank " + ", ".join(f"{rank}: {have} of {want}" for rank, (have, want)
                                                in sorted(ranks.items(), key=lambda item: _RANKS.index(item[0]))))
        if self.reported_decks and self.reported_decks != self.decks:
            parts.append(f"the shuffler counts against {self.reported_decks} decks, the table has {self.decks}")
        return "; ".join(parts)


_RANKS = "".join(rank.value for rank in Rank)


def _copies(code: str, n: int) -> str:
    return code if n == 1 else f"{code}x{n}"


def judge_counts(counts: Iterable[tuple[str, int]], decks: int, reported_decks: int = 0) -> DeckVerdict:
    """Judge a count (card code, copies) of a set against ``decks`` full decks."""
    seen: dict[Card, int] = {}
    foreign: dict[str, int] = {}
    for code, n in counts:
        try:
            card = parse_card(code)
        except CardError:
            foreign[str(code)] = foreign.get(str(code), 0) + max(0, int(n))
            continue
        seen[card] = seen.get(card, 0) + max(0, int(n))
    short = tuple((card.code, decks - seen.get(card, 0)) for card in sorted(FULL_DECK)
                  if seen.get(card, 0) < decks)
    over = tuple((card.code, n - decks) for card, n in sorted(seen.items()) if n > decks)
    over += tuple(sorted(foreign.items()))
    counted = sum(seen.values()) + sum(foreign.values())
    return DeckVerdict(decks, counted, short, over, reported_decks)
