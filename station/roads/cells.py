"""What the roads are made of: the cells of each road, the ask-road predictions, the shoe's
statistics, and :class:`Roads`, the whole scoreboard of one shoe at one moment.

Plain immutable values with the JSON shape the web scoreboard and ``station roads --json``
use; the rules that place them are :mod:`station.roads.rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from station.roads.results import BANKER, PLAYER, ResultRecord

ROWS = 6
"""Every road is drawn six cells high, as on the standard Asian scoreboard."""

RED = "red"
BLUE = "blue"

DERIVED_ROADS: tuple[tuple[str, int], ...] = (
    ("big_eye_boy", 1),
    ("small_road", 2),
    ("cockroach_pig", 3),
)
"""Each derived road with its offset k: how many streak columns back it compares."""


@dataclass(frozen=True, slots=True)
class BeadPlateCell:
    """One result on the Bead Plate (``index`` counts rounds of the shoe from 0); ``dragon_7``
    and ``panda_8`` mark a Banker win with a three-card 7 and a Player win with a three-card 8
    (docs/roads.md, "Dragon 7 and Panda 8")."""

    index: int
    col: int
    row: int
    result: str
    player_pair: bool
    banker_pair: bool
    natural: bool
    total: int | None
    dragon_7: bool = False
    panda_8: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "col": self.col,
            "row": self.row,
            "result": self.result,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
            "total": self.total,
            "dragon_7": self.dragon_7,
            "panda_8": self.panda_8,
        }


@dataclass(frozen=True, slots=True)
class BigRoadEntry:
    """One Banker or Player win on the Big Road.

    ``col``/``row`` are where it is drawn (after dragon-tail bending); ``streak``/``depth`` are
    its logical position: which streak column it belongs to and how far down that streak.
    ``ties`` counts every tie drawn on this cell; on the first cell it includes the
    ``leading_ties`` that came before any Banker/Player win.
    """

    col: int
    row: int
    streak: int
    depth: int
    result: str
    ties: int
    leading_ties: int
    round_index: int
    player_pair: bool
    banker_pair: bool
    natural: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "col": self.col,
            "row": self.row,
            "result": self.result,
            "ties": self.ties,
            "leading_ties": self.leading_ties,
            "streak": self.streak,
            "depth": self.depth,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
        }


@dataclass(frozen=True, slots=True)
class DerivedCell:
    """One mark of a derived road; ``entry`` is the Big Road entry (0-based) that made it."""

    col: int
    row: int
    streak: int
    depth: int
    colour: str
    entry: int

    def to_dict(self) -> dict[str, Any]:
        return {"col": self.col, "row": self.row, "colour": self.colour}


@dataclass(frozen=True, slots=True)
class AskPrediction:
    """What each derived road would add for one hypothetical next result (``None``: nothing)."""

    big_eye_boy: str | None
    small_road: str | None
    cockroach_pig: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {name: getattr(self, name) for name, _ in DERIVED_ROADS}


@dataclass(frozen=True, slots=True)
class Stats:
    rounds: int
    banker: int
    player: int
    tie: int
    naturals: int
    player_pairs: int
    banker_pairs: int
    longest_banker_streak: int
    longest_player_streak: int
    current_streak_side: str | None
    current_streak_length: int
    dragon_7s: int = 0
    panda_8s: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "naturals": self.naturals,
            "player_pairs": self.player_pairs,
            "banker_pairs": self.banker_pairs,
            "longest_banker_streak": self.longest_banker_streak,
            "longest_player_streak": self.longest_player_streak,
            "current_streak": {"side": self.current_streak_side, "length": self.current_streak_length},
            "dragon_7s": self.dragon_7s,
            "panda_8s": self.panda_8s,
        }


@dataclass(frozen=True)
class Roads:
    """The whole baccarat scoreboard of one shoe at one moment."""

    results: tuple[ResultRecord, ...]
    bead_plate: tuple[BeadPlateCell, ...]
    big_road: tuple[BigRoadEntry, ...]
    leading_ties: int
    big_eye_boy: tuple[DerivedCell, ...]
    small_road: tuple[DerivedCell, ...]
    cockroach_pig: tuple[DerivedCell, ...]
    predictions: Mapping[str, AskPrediction]
    stats: Stats

    def derived(self, name: str) -> tuple[DerivedCell, ...]:
        return {"big_eye_boy": self.big_eye_boy, "small_road": self.small_road,
                "cockroach_pig": self.cockroach_pig}[name]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``station roads --json`` and of the web scoreboard.

        Each derived road is its marks in order under its own name, and its drawn grid under
        ``<name>_grid``.
        """
        out: dict[str, Any] = {
            "bead_plate": [cell.to_dict() for cell in self.bead_plate],
            "big_road": [cell.to_dict() for cell in self.big_road],
            "big_road_leading_ties": self.leading_ties,
        }
        for name, _ in DERIVED_ROADS:
            cells = self.derived(name)
            out[name] = [cell.colour for cell in cells]
            out[f"{name}_grid"] = [cell.to_dict() for cell in cells]
        out["predictions"] = {side: self.predictions[side].to_dict() for side in (BANKER, PLAYER)}
        out["stats"] = self.stats.to_dict()
        return out
