"""One round on the table: its bets, the cards dealt, what has been revealed, and its end.

Round ids are ``<shoe>-<round>`` (``12-34`` is the 34th round of the 12th shoe in this
journal): short enough for a dealer to read out, and unique within a journal because shoe
numbers only grow. Under a continuous shuffler the "shoe" is the shuffler session.

A round is plain data plus the game logic that needs only the round (which position gets
the next card, the result). State transitions are the machine's business.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from station.cards import Card
from station.core.outputs import SettledBet
from station.games.war import rules as war


def round_id(shoe: int, number: int) -> str:
    return f"{shoe}-{number}"


BetKey = tuple[str, str, str]  # (box, player, region)


@dataclass
class Round:
    """Fields shared by both games. ``dealt`` is every card placed, in order, as (position,
    card); ``revealed`` counts how many of them have been turned face up."""

    round_id: str
    game: str
    bets: dict[BetKey, int] = field(default_factory=dict)
    dealt: list[tuple[str, Card]] = field(default_factory=list)
    revealed: int = 0
    burned: list[Card] = field(default_factory=list)
    dummy: list[Card] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    payout_option: str = ""
    result: dict[str, Any] | None = None
    settlement: tuple[SettledBet, ...] | None = None
    voided: bool = False
    void_reason: str = ""
    bets_closed: bool = False
    _by_position: dict[str, list[Card]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def settled(self) -> bool:
        return self.settlement is not None or self.voided

    def place(self, position: str, card: Card) -> None:
        """A card goes to ``position`` (in dealing order)."""
        self.dealt.append((position, card))
        self._by_position.setdefault(position, []).append(card)

    def cards_at(self, position: str) -> list[Card]:
        """The cards at ``position`` so far (the caller must not change the list)."""
        return self._by_position.get(position, [])

    def bet_items(self) -> Iterator[tuple[BetKey, int]]:
        return iter(self.bets.items())

    def hidden(self) -> list[tuple[str, Card]]:
        return self.dealt[self.revealed :]

    def to_json(self) -> dict[str, Any]:
        return {
            "round_id": self.round_id,
            "game": self.game,
            "bets": [
                {"box": b, "player": p, "region": r, "amount": a} for (b, p, r), a in self.bets.items()
            ],
            "dealt": [[pos, card.code] for pos, card in self.dealt],
            "revealed": self.revealed,
            "burned": [c.code for c in self.burned],
            "dummy": [c.code for c in self.dummy],
            "decisions": list(self.decisions),
            "payout_option": self.payout_option,
            "result": self.result,
            "settlement": None
            if self.settlement is None
            else [s.__dict__.copy() for s in self.settlement],
            "voided": self.voided,
            "void_reason": self.void_reason,
            "bets_closed": self.bets_closed,
            **self.extra_json(),
        }

    def extra_json(self) -> dict[str, Any]:
        return {}


@dataclass
class WarRound(Round):
    """Casino War: the pure engine's round (:class:`station.games.war.rules.WarRound`) does the
    order of play; ``engine`` is ``None`` until "no more bets" starts it over the wagers."""

    engine: war.WarRound | None = None

    def extra_json(self) -> dict[str, Any]:
        engine = self.engine
        if engine is None:
            return {"choices": []}
        return {"choices": [[b, p, c.value] for b, p, c in engine.choices]}
