"""What a game shows of its rounds: the results board of the display, the web page and the floor.

The publisher (:mod:`station.service.publisher`) keeps the display board's picture and the web
scoreboard's snapshot, but what a round's result looks like is the game's: baccarat shows the
roads of the shoe and the last hands, Casino War the results of each box. So every game
offers its board (:meth:`station.games.interface.Game.board`), and the service tells it of each
round as a :class:`BoardRound` (from the table's settlement, or from the shoe's results kept in
the table's state after a restart) without asking which game it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from station.cards import Card


@dataclass(frozen=True)
class BoardRound:
    """A settled round as the players are shown it: its number in the shoe, the cards by
    position in dealing order, the totals, the outcome (the game's words), baccarat's natural
    and pairs, and the boxes whose players surrendered (Casino War)."""

    round_no: int
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    totals: tuple[tuple[str, int], ...]
    outcome: str
    natural: bool = False
    player_pair: bool = False
    banker_pair: bool = False
    surrendered: tuple[str, ...] = ()


class ResultsBoard(Protocol):
    """What the players are shown of the shoe's results, for one game. The commands it returns
    are the display board's (``drivers.codec.display``: ``ShowResult``, ``ShowWarResult``,
    ``ShowRoads``)."""

    def reset(self) -> None:
        """A new shoe: nothing to show."""
        ...

    def add_round(self, round_: BoardRound) -> Any:
        """A round settled now; returns the board's command that shows it, if any."""
        ...

    def add_record(self, round_no: int, record: Mapping[str, Any]) -> None:
        """A round as the table's state keeps it (the game's own result record, with the shoe's
        other results): the board rebuilt after a restart."""
        ...

    def last_shown(self) -> Any:
        """The command that shows the shoe's last round (for a board painted anew), or None."""
        ...

    def display_roads(self) -> Any:
        """The roads for the display board (``ShowRoads``), or None when the game has none."""
        ...

    def snapshot_parts(self) -> dict[str, Any]:
        """The web snapshot's game-specific fields (``roads``, ``last_result``, ``war``)."""
        ...
