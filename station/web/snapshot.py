"""What the web scoreboard shows at one moment, as one immutable value.

The service builds a :class:`Snapshot` whenever something visible changes (a result revealed,
the table state changed) and hands it to :meth:`ScoreboardServer.publish`; every page gets the
whole snapshot, never a diff, so a page that connects late or reconnects after a restart is
complete at once. Typical call from the service::

    server.publish(Snapshot(table, "betting", scoreboard.roads(), last_result))

Only revealed results may go in: the service publishes after the last card of a round has been
turned on the table (RULES.md, dealing styles), never when the shoe reader first sees it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from station.cards import Card
from station.games.baccarat.rules import BaccaratResult
from station.games.registry import GAMES as GAME_RULES
from station.roads.cells import Roads
from station.roads.war_board import WarBoard

TABLE_STATES = ("betting", "dealing", "shuffling", "last round", "shoe end", "paused")
"""States the page knows; a fault is ``"fault: <reason>"``."""

#: The games a page can show, in its words (``"casino war"``).
GAMES = tuple(game.title for game in GAME_RULES.values())
FAULT_PREFIX = "fault: "
MESSAGE_KINDS = ("", "alert", "notice")


class SnapshotError(ValueError):
    """A snapshot that the page could not show truthfully."""


def check_state(state: str) -> str:
    """Accept a table state from :data:`TABLE_STATES` or ``"fault: <reason>"``."""
    if state in TABLE_STATES:
        return state
    if isinstance(state, str) and state.startswith(FAULT_PREFIX) and state[len(FAULT_PREFIX):].strip():
        return state
    allowed = ", ".join(repr(s) for s in TABLE_STATES)
    raise SnapshotError(f"unknown table state {state!r}: use {allowed} or 'fault: <reason>'")


def _is_money(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Limit:
    """One line of the limits sign, in the table's smallest money unit (integers, never floats)."""

    name: str
    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        if not (_is_money(self.minimum) and _is_money(self.maximum)):
            raise SnapshotError(f"limit {self.name!r}: amounts must be integers in the smallest unit")
        if not 0 < self.minimum <= self.maximum:
            raise SnapshotError(f"limit {self.name!r}: need 0 < minimum <= maximum, got {self.minimum}..{self.maximum}")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "minimum": self.minimum, "maximum": self.maximum}


@dataclass(frozen=True)
class TableInfo:
    """The fixed part of the display: which table, which game, the limits sign.

    ``decimals`` says how the smallest unit is written (2: 150050 is shown as 1,500.50).
    """

    name: str
    game: str = "baccarat"
    variant: str = ""
    limits: tuple[Limit, ...] = ()
    currency: str = ""
    decimals: int = 0

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise SnapshotError(f"unknown game {self.game!r}: use one of {', '.join(GAMES)}")
        if not isinstance(self.decimals, int) or not 0 <= self.decimals <= 4:
            raise SnapshotError("decimals must be 0-4")
        object.__setattr__(self, "limits", tuple(self.limits))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "variant": self.variant,
            "limits": [limit.to_dict() for limit in self.limits],
            "currency": self.currency,
            "decimals": self.decimals,
        }


def _hand(cards: Iterable[Card], total: int) -> dict[str, Any]:
    return {"cards": [card.code for card in cards], "total": total}


def round_result_dict(result: BaccaratResult) -> dict[str, Any]:
    """A revealed baccarat round for the page: both hands' cards and totals, the outcome, the
    natural and pairs, and whether it was a Dragon 7 or a Panda 8 round (docs/roads.md)."""
    return {
        "outcome": result.outcome.letter,
        "player": _hand(result.player, result.player_total),
        "banker": _hand(result.banker, result.banker_total),
        "natural": result.natural,
        "player_pair": result.player_pair,
        "banker_pair": result.banker_pair,
        "dragon_7": result.dragon_7,
        "panda_8": result.panda_8,
    }


def _board_dict(war: WarBoard | Mapping[str, Any] | None) -> dict[str, Any] | None:
    if isinstance(war, WarBoard):
        return war.to_dict()
    return None if war is None else dict(war)


@dataclass(frozen=True)
class Snapshot:
    """Everything the scoreboard page shows.

    ``roads`` is the baccarat scoreboard of the current shoe (:meth:`Scoreboard.roads`);
    ``war`` the Casino War board for a War table; ``last_result`` the latest revealed round.
    """

    table: TableInfo
    state: str
    roads: Roads | None = None
    last_result: BaccaratResult | None = None
    war: WarBoard | Mapping[str, Any] | None = field(default=None)
    shoe: int = 0
    """The shoe's number since the journal began (0: no shoe yet)."""
    round_no: int = 0
    """The round in play, or the last one opened, by its number in the shoe."""
    last_round_no: int = 0
    """The number of the round whose result is shown (``last_result`` or War's latest)."""
    cards_left: int | None = None
    """Cards still in the shoe (None: not known, e.g. before the first shoe)."""
    message: str = ""
    """The banner players see ("Round paused — please wait"), or empty."""
    message_kind: str = ""
    """``alert`` (the round is held), ``notice`` (e.g. a void round), or empty."""

    def __post_init__(self) -> None:
        check_state(self.state)
        if self.message_kind not in MESSAGE_KINDS:
            raise SnapshotError(f"message_kind must be one of {MESSAGE_KINDS}, not {self.message_kind!r}")
        for name in ("shoe", "round_no", "last_round_no"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise SnapshotError(f"{name} must be a whole number, got {value!r}")
        if isinstance(self.war, WarBoard):
            # Freeze the mutable board now, so a later add() cannot change a published picture.
            object.__setattr__(self, "war", self.war.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table.to_dict(),
            "state": self.state,
            "roads": self.roads.to_dict() if self.roads is not None else None,
            "last_result": round_result_dict(self.last_result) if self.last_result is not None else None,
            "war": _board_dict(self.war),
            "shoe": self.shoe,
            "round_no": self.round_no,
            "last_round_no": self.last_round_no,
            "cards_left": self.cards_left,
            "message": self.message,
            "message_kind": self.message_kind,
        }


def encode_snapshot(snapshot: Snapshot | Mapping[str, Any]) -> bytes:
    """A snapshot as the JSON every page gets: encoded once per picture, by its publisher."""
    payload = snapshot.to_dict() if isinstance(snapshot, Snapshot) else dict(snapshot)
    return json.dumps(payload, separators=(",", ":")).encode()
