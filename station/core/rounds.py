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

__all__ = ["BetKey", "Round", "RoundId", "round_id"]


class RoundId(str):
    """A round's id, ``<shoe>-<round>``: text wherever it is written (outputs, the journal's
    derived records, the floor feed), and its two numbers as typed fields (:attr:`shoe`,
    :attr:`number`) for whoever needs them, so nobody takes the text apart."""

    shoe: int
    number: int

    def __new__(cls, shoe: int, number: int) -> RoundId:
        made = super().__new__(cls, f"{int(shoe)}-{int(number)}")
        made.shoe = int(shoe)
        made.number = int(number)
        return made

    def __getnewargs__(self) -> tuple[int, int]:  # type: ignore[override]  # pickled by its numbers
        return (self.shoe, self.number)

    @classmethod
    def parse(cls, text: str) -> RoundId:
        """The id as the station wrote it (a checkpoint's state, an older record); raises
        ValueError for anything else."""
        shoe, sep, number = str(text).partition("-")
        if not sep or not shoe.isdigit() or not number.isdigit():
            raise ValueError(f"not a round id: {text!r}")
        return cls(int(shoe), int(number))

    def following(self) -> RoundId:
        """The next round of the same shoe: where bets left on after this one (a Tie's Banker
        and Player bets) are played, unless the shoe ends first."""
        return RoundId(self.shoe, self.number + 1)


def round_id(shoe: int, number: int) -> RoundId:
    return RoundId(shoe, number)


@dataclass
class Round:
    """One round of any game. ``dealt`` is every card placed, in order, as (position, card);
    ``revealed`` counts how many of them have been turned face up."""

    round_id: RoundId
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
    #: The dealer's payout confirmations, each {"boxes": [...], "role", "who"} (docs/console.md).
    confirmations: list[dict[str, Any]] = field(default_factory=list)
    #: Who deals it (docs/dealers.md), and the card they burned first on taking the table.
    dealer: str = ""
    dealer_burned: Card | None = None
    #: The limits it was played under (:meth:`station.games.limits.TableLimits.to_json`).
    limits: dict[str, Any] = field(default_factory=dict)
    #: At a table that reads its chips, what they said of the round (docs/chips.md): the bets
    #: proposed, the taps confirming them, chips moved, each box's payment, a wrong payment held
    #: or accepted, the chips that raised an alarm. Empty elsewhere (and then not written).
    chips: dict[str, Any] = field(default_factory=dict)

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
            "confirmations": [dict(c) for c in self.confirmations],
            "dealer": self.dealer,
            "dealer_burned": self.dealer_burned.code if self.dealer_burned is not None else None,
            "limits": self.limits,
            **({"chips": self.chips} if self.chips else {}),
            **self.play.to_json(),
        }
