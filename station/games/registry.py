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


def region_words(region: str) -> str:
    """A betting region in people's words, whichever game has it: ``"banker"`` is "Banker",
    ``"dragon_7"`` "Dragon 7", ``"dragon_bonus_player"`` "Dragon Bonus Player", ``"war"``
    "War" (each game's :attr:`~station.games.interface.Game.region_words`). Screens and
    reports for people say these; the journal, the feed and every ``--json`` keep the region.
    A region no game names (a journal of a later version) is written from its name."""
    for game in GAMES.values():
        words = game.region_words.get(region)
        if words is not None:
            return words
    return region.replace("_", " ").capitalize()
