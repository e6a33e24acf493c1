"""A round result as the scoreboard reads it: the outcome letter, pairs, natural, totals, and
whether it was a Dragon 7 (the Banker wins with a three-card 7) or a Panda 8 (the Player wins
with a three-card 8), as EZ Baccarat scoreboards mark them.

The scoreboard takes a baccarat round's result (anything shaped like
:class:`~station.games.baccarat.rules.BaccaratResult`), an outcome, or a single letter B, P
or T (a history typed by hand), and refuses anything else before it reaches a road, so a
typo never becomes a result. It names those shapes (:class:`RoundResultLike`,
:class:`OutcomeLike`) rather than importing the game: the game's board builds on the roads,
so the roads import nothing of the games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

BANKER = "B"
PLAYER = "P"
TIE = "T"


@runtime_checkable
class OutcomeLike(Protocol):
    """An outcome that knows its scoreboard letter (``Outcome.BANKER.letter == "B"``)."""

    @property
    def letter(self) -> str: ...


@runtime_checkable
class RoundResultLike(Protocol):
    """A decided round's result, as the scoreboard reads it."""

    @property
    def outcome(self) -> OutcomeLike: ...
    @property
    def player_pair(self) -> bool: ...
    @property
    def banker_pair(self) -> bool: ...
    @property
    def natural(self) -> bool: ...
    @property
    def player_total(self) -> int: ...
    @property
    def banker_total(self) -> int: ...
    @property
    def dragon_7(self) -> bool: ...
    @property
    def panda_8(self) -> bool: ...


class RoadsInputError(ValueError):
    """A result the scoreboard cannot take (unknown letter, impossible total...)."""


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """What the scoreboard needs to know about one round.

    Built from a round's result (:class:`RoundResultLike`) by :func:`as_record`, or from a
    letter (``"B"``, ``"P"``, ``"T"``) when only the outcome is known (a hand-typed history).
    Totals are ``None`` when unknown; ``dragon_7`` and ``panda_8`` are False unless the round's
    cards said so (a typed history never marks them).
    """

    outcome: str
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False
    player_total: int | None = None
    banker_total: int | None = None
    dragon_7: bool = False
    panda_8: bool = False

    def __post_init__(self) -> None:
        if self.outcome not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(f"outcome must be 'B', 'P' or 'T', got {self.outcome!r}")
        for name in ("player_total", "banker_total"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not (isinstance(value, int) and 0 <= value <= 9)):
                raise RoadsInputError(f"{name} must be a point count 0-9, got {value!r}")

    @property
    def winning_total(self) -> int | None:
        """The total shown on a bead: the winner's, or the tied total."""
        if self.outcome == PLAYER:
            return self.player_total
        return self.banker_total if self.banker_total is not None else self.player_total

    @classmethod
    def from_round(cls, result: RoundResultLike) -> ResultRecord:
        return cls(
            outcome=result.outcome.letter,
            player_pair=result.player_pair,
            banker_pair=result.banker_pair,
            natural=result.natural,
            player_total=result.player_total,
            banker_total=result.banker_total,
            dragon_7=result.dragon_7,
            panda_8=result.panda_8,
        )


ResultLike = ResultRecord | RoundResultLike | OutcomeLike | str


def as_record(item: ResultLike) -> ResultRecord:
    """Accept a round result, an outcome, a record or a single letter (any case)."""
    if isinstance(item, ResultRecord):
        return item
    if isinstance(item, RoundResultLike):
        return ResultRecord.from_round(item)
    if isinstance(item, OutcomeLike):
        return ResultRecord(item.letter)
    if isinstance(item, str):
        letter = item.strip().upper()
        if letter not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(f"unknown result {item!r}: use B (Banker), P (Player) or T (Tie)")
        return ResultRecord(letter)
    raise RoadsInputError(f"cannot read a round result from {type(item).__name__}")
