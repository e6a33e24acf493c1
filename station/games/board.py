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


@dataclass(frozen=True)
class HandsShown:
    """A result shown as two hands (baccarat): the round's number in the shoe, the outcome's
    letter (``B``, ``P``, ``T``), the totals and cards, the natural and the pairs, and whether
    it was a Dragon 7 (the Banker wins with a three-card 7) or a Panda 8 (the Player wins with
    a three-card 8), as EZ Baccarat scoreboards mark them."""

    round_no: int
    outcome: str
    player_total: int
    banker_total: int
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    natural: bool = False
    player_pair: bool = False
    banker_pair: bool = False
    dragon_7: bool = False
    panda_8: bool = False


@dataclass(frozen=True)
class BoxShown:
    """One box of a result shown box by box: its card, how it ended (the game's word: win,
    lose, tie, war-win, war-lose, surrender) and its war card, if it went to war."""

    box: int
    card: Card
    outcome: str
    war_card: Card | None = None


@dataclass(frozen=True)
class BoxesShown:
    """A result shown box by box against the dealer's card (Casino War)."""

    round_no: int
    dealer: Card
    boxes: tuple[BoxShown, ...]
    dealer_war: Card | None = None


#: What a board shows of a round: a game's picture in no device's words.
Shown = HandsShown | BoxesShown


class ResultsBoard(Protocol):
    """What the players are shown of the shoe's results, for one game, in no device's words
    (:data:`Shown`, and the shoe's :class:`~station.roads.cells.Roads`): a game knows nothing
    of a device; the service puts them in the display board's wire types
    (:mod:`station.service.board`)."""

    def reset(self) -> None:
        """A new shoe: nothing to show."""
        ...

    def add_round(self, round_: BoardRound) -> Shown | None:
        """A round settled now; returns what shows it, if anything."""
        ...

    def add_record(self, round_no: int, record: Mapping[str, Any]) -> None:
        """A round as the table's state keeps it (the game's own result record, with the shoe's
        other results): the board rebuilt after a restart."""
        ...

    def last_shown(self) -> Shown | None:
        """What shows the shoe's last round (for a board painted anew), or None."""
        ...

    def display_roads(self) -> Any:
        """The roads for the display board, or None when the game has none."""
        ...

    def snapshot_parts(self) -> dict[str, Any]:
        """The web snapshot's game-specific fields (``roads``, ``last_result``, ``war``)."""
        ...
