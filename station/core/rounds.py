"""One round on the table: its bets, the cards dealt, what has been revealed, and its end.

Round ids are ``<shoe>-<round>`` (``12-34`` is the 34th round of the 12th shoe in this
journal): short enough for a dealer to read out, and unique within a journal because shoe
numbers only grow. Under a continuous shuffler the "shoe" is the shuffler session.

A round is the table's bookkeeping; what the game's rules know of it (which position gets
the next card, the decisions, the result) is its ``play``, the game's immutable value
(:class:`station.games.interface.Play`). State transitions are the machine's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from station.cards import Card
from station.games.interface import Play
from station.games.layout import BetKey, SettledBet

__all__ = ["BetKey", "Round", "round_id"]


def round_id(shoe: int, number: int) -> str:
    return f"{shoe}-{number}"


@dataclass
class Round:
    """One round of any game. ``dealt`` is every card placed, in order, as (position, card);
    ``revealed`` counts how many of them have been turned face up."""

    round_id: str
    game: str
    play: Play
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

    @property
    def settled(self) -> bool:
        return self.settlement is not None or self.voided

    def place(self, position: str, card: Card) -> None:
        """A card goes to ``position`` (in dealing order)."""
        self.dealt.append((position, card))

    def returned(self) -> tuple[SettledBet, ...]:
        """Every bet handed back whole (a voided round)."""
        return tuple(SettledBet(b, p, r, a, 0, a, "void", 0) for (b, p, r), a in self.bets.items())

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
            **self.play.to_json(),
        }
