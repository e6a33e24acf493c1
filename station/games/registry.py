"""The games this station can run, by the name the configuration gives them.

The configuration names the game once (``[table] game = "war"``); everything after asks
the :class:`~station.games.interface.Game` found here, so no other module needs to know
which games exist. A new game is a package beside ``baccarat/`` and ``war/`` implementing
the interface, and one line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from station.games.baccarat.game import BaccaratGame
from station.games.interface import Game
from station.games.war.game import WarGame

#: Every game, by its configured name. Read-only: the games are stateless.
GAMES: Mapping[str, Game[Any, Any]] = MappingProxyType({game.name: game for game in (BaccaratGame(), WarGame())})


class UnknownGame(ValueError):
    """A game name no game answers to."""


def game_named(name: str) -> Game[Any, Any]:
    """The game the configuration calls ``name`` (``"baccarat"``, ``"war"``)."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(f"game must be one of {', '.join(GAMES)}, got {name!r}") from None
