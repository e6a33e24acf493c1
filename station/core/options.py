"""Options of the core machine: game, equipment mode, dealing style and the table's rules.

Everything that changes how a journal replays lives here, so that one set of options and one
journal always give the same state. The game is named here once and its rules found in
:mod:`station.games.registry` (:attr:`CoreOptions.rules`); nothing after asks its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from station.cards import check_deck_count
from station.core.chip_table import ChipRules
from station.core.progressive import ProgressiveSettings
from station.games.interface import Game, TableOptions
from station.games.limits import TableLimits
from station.games.registry import GAMES, UnknownGame, game_named

EQUIPMENT = ("manual", "batch", "continuous")
STYLES = ("A", "B", "C", "D")


class CoreOptionError(ValueError):
    """Options that cannot run a table (e.g. Dealing Style B with a continuous shuffler)."""


@dataclass(frozen=True)
class CoreOptions:
    """How this table runs.

    ``equipment``: ``manual`` shoe, ``batch`` shuffler with two differently coloured sets
    (``set_colours``), or ``continuous`` shuffler (no cut card, no burn, no shoe end).
    ``game`` names the game (a key of :data:`station.games.registry.GAMES`).
    ``dealing_style`` A-D as in RULES.md, for games whose cards may be dealt face down
    (baccarat); the others turn each card as it is dealt.
    ``rounds_after_cut``: rounds dealt after the round in which the cut card appears.
    ``cut_cards``: 1, or 2 with a second cutting card behind the last card (docs/games.md).
    ``round_devices``: devices whose loss stops a round in progress (``None``: every device).
    ``betting_seconds``: when > 0, betting closes by itself after so many seconds (a journaled
    timer); 0 leaves it to the dealer's "no more bets".
    ``buttons``: dealer button name -> dealer action (a button not listed acts as the action of
    the same name).
    ``burn_on_dealer_change``: a dealer who relieves another burns one card before their first
    round (docs/dealers.md).
    ``progressive``: the meter of the table's progressive side bet (docs/progressive.md).
    ``chips``: how the table takes bets from the chips its reader sees, and whether a wrong
    payment holds the next round (docs/chips.md); ``None``: no chip reader.
    ``limits``: the limits the journal starts under (``None``: those of ``table``); a
    supervisor changes them later by an event (docs/limits.md).
    """

    game: str = "baccarat"
    equipment: str = "manual"
    dealing_style: str = "A"
    decks: int = 8
    rounds_after_cut: int = 1
    set_colours: tuple[str, str] = ("red", "blue")
    table: TableOptions | None = None
    round_devices: frozenset[str] | None = None
    betting_seconds: int = 0
    buttons: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    cut_cards: int = 1
    burn_on_dealer_change: bool = False
    limits: TableLimits | None = None
    progressive: ProgressiveSettings | None = None
    chips: ChipRules | None = None

    def __post_init__(self) -> None:
        try:
            rules = game_named(self.game)
        except UnknownGame as exc:
            raise CoreOptionError(str(exc)) from None
        if self.equipment not in EQUIPMENT:
            raise CoreOptionError(f"equipment must be one of {', '.join(EQUIPMENT)}, got {self.equipment!r}")
        if self.dealing_style not in STYLES:
            raise CoreOptionError(f"dealing style must be one of A, B, C, D, got {self.dealing_style!r}")
        if self.equipment == "continuous" and self.dealing_style in ("B", "D"):
            raise CoreOptionError(
                f"Dealing Style {self.dealing_style} is not allowed with a continuous shuffler (RULES 3.3)"
            )
        check_deck_count(self.decks)
        if not isinstance(self.rounds_after_cut, int) or not 0 <= self.rounds_after_cut <= 3:
            raise CoreOptionError(f"rounds after the cut card must be 0 to 3, got {self.rounds_after_cut!r}")
        if self.cut_cards not in (1, 2) or isinstance(self.cut_cards, bool):
            raise CoreOptionError(f"a shoe holds 1 or 2 cutting cards, got {self.cut_cards!r}")
        if len(self.set_colours) != 2 or self.set_colours[0] == self.set_colours[1]:
            raise CoreOptionError(f"a batch shuffler needs two different set colours, got {self.set_colours!r}")
        if not isinstance(self.betting_seconds, int) or self.betting_seconds < 0:
            raise CoreOptionError(f"betting seconds must be 0 or more, got {self.betting_seconds!r}")
        if self.table is None:
            object.__setattr__(self, "table", rules.default_table())
        expected = rules.table_type
        if not isinstance(self.table, expected):
            raise CoreOptionError(
                f"a {self.game} table needs {expected.__name__} options, got {type(self.table).__name__}"
            )
        object.__setattr__(self, "buttons", MappingProxyType(dict(self.buttons)))
        if self.limits is None:
            object.__setattr__(self, "limits", rules.limits_of(self.table))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its buttons as a plain dict (a read-only mapping view does not pickle),
        for a simulated table started in a fresh interpreter."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["buttons"] = dict(self.buttons)
        return (_rebuild_options, (values,))

    @property
    def rules(self) -> Game[Any, Any]:
        """The rules of the game this table plays."""
        return GAMES[self.game]

    @property
    def hidden_cards(self) -> bool:
        """Cards are known when they leave the shoe but shown only on the dealer's reveal."""
        return self.rules.hides_cards and self.dealing_style != "A"

    @property
    def squeeze(self) -> bool:
        """Styles B and D: each stage (first four cards, each third card) is squeezed and revealed."""
        return self.rules.hides_cards and self.dealing_style in ("B", "D")


def _rebuild_options(values: dict[str, Any]) -> CoreOptions:
    return CoreOptions(**values)
