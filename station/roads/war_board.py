"""The Casino War board: the latest results of each betting box in the current shoe.

Casino War has no roads; players look at how each box has fared. Like the baccarat
:class:`~station.roads.scoreboard.Scoreboard` the board is rebuilt from the shoe's rounds
after a restart and reset at shoe end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from station.roads.results import RoadsInputError


class WarOutcome(StrEnum):
    """How one betting box's Casino War Wager ended in a round."""

    WIN = "win"
    LOSE = "lose"
    WAR_WIN = "war-win"
    WAR_LOSE = "war-lose"
    SURRENDER = "surrender"
    TIE = "tie"  # first cards tied and the box had no war or surrender (e.g. a Tie Wager only)


WAR_HISTORY = 10
"""How many latest results per box the War board keeps."""


class WarBoard:
    """Latest Casino War results per betting box for the current shoe.

    Each round is a mapping ``box number -> outcome`` for the boxes that played; boxes that sat
    a round out keep their history unchanged. Like :class:`Scoreboard` it is rebuilt from the
    shoe's rounds after a restart and reset at shoe end.
    """

    def __init__(self, rounds: Iterable[Mapping[int, WarOutcome | str]] = (), keep: int = WAR_HISTORY) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.keep = keep
        self.rounds = 0
        self._boxes: dict[int, list[WarOutcome]] = {}
        for round_ in rounds:
            self.add(round_)

    def reset(self) -> None:
        self.rounds = 0
        self._boxes.clear()

    def add(self, round_: Mapping[int, WarOutcome | str]) -> None:
        parsed: dict[int, WarOutcome] = {}
        for box, outcome in round_.items():
            if not isinstance(box, int) or box < 1:
                raise RoadsInputError(f"box must be a positive number, got {box!r}")
            try:
                parsed[box] = WarOutcome(outcome)
            except ValueError:
                allowed = ", ".join(o.value for o in WarOutcome)
                raise RoadsInputError(f"unknown war outcome {outcome!r} for box {box}: use {allowed}") from None
        self.rounds += 1
        for box, outcome in parsed.items():
            history = self._boxes.setdefault(box, [])
            history.append(outcome)
            del history[:-self.keep]

    def latest(self, box: int) -> tuple[WarOutcome, ...]:
        """Oldest first, newest last."""
        return tuple(self._boxes.get(box, ()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "boxes": {str(box): [o.value for o in self._boxes[box]] for box in sorted(self._boxes)},
        }
