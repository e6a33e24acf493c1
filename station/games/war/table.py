"""Options of one Casino War table, validated when built (seed 002).

Layout size, limits, box and player maxima, the Tie Wager's odds and the optional
tie-after-tie bonus. What every game shares (chips, limits, the error naming a bad option)
is in :mod:`station.games.table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from station.games.table import (
    MAX_PLAYERS_PER_BOX,
    Chips,
    TableOptionError,
    as_chips,
    check_limits,
    require_int,
)
from station.money import Money

MAX_WAR_BOXES = 7


@dataclass(frozen=True)
class WarTable:
    """Options of one Casino War table (seed 002).

    ``box_max``: total of all players' wagers on one box (5.10), ``player_max``: one
    player's total on one box (5.10); ``None`` when not set. ``tie_pays`` is the Tie Wager's
    odds to 1 (10 by default [choice]). ``tie_after_tie_bonus`` is the bonus, in odds to 1 on
    the Go to War Wager, paid when the war cards tie again; ``None`` (the default) means no
    bonus [choice]. ``max_boxes_per_player`` limits how many boxes one player may bet on
    (5.7/5.8).
    """

    boxes: int
    min_bet: int
    max_bet: int
    chips: Chips
    players_per_box: int = MAX_PLAYERS_PER_BOX
    box_max: int | None = None
    player_max: int | None = None
    tie_pays: int = 10
    tie_after_tie_bonus: int | None = None
    max_boxes_per_player: int = 1
    #: How the reasons of refusals write amounts (``[table] currency``, ``minor_digits``):
    #: presentation, never a rule, so it takes no part in comparing two tables.
    money: Money = field(default=Money(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "chips", as_chips(self.chips))
        require_int("boxes", self.boxes, minimum=1)
        if self.boxes > MAX_WAR_BOXES:
            raise TableOptionError(
                "boxes", f"a Casino War table has at most {MAX_WAR_BOXES} boxes (3.1), got {self.boxes}"
            )
        check_limits(self.min_bet, self.max_bet, self.chips)
        require_int("players_per_box", self.players_per_box, minimum=1)
        if self.players_per_box > MAX_PLAYERS_PER_BOX:
            raise TableOptionError(
                "players_per_box",
                f"at most {MAX_PLAYERS_PER_BOX} players may bet on one box (5.9), got {self.players_per_box}",
            )
        for name in ("box_max", "player_max"):
            value = getattr(self, name)
            if value is not None:
                require_int(name, value, minimum=1)
                if value < self.min_bet:
                    raise TableOptionError(
                        name, f"{value} is below the table minimum {self.min_bet}"
                    )
        require_int("tie_pays", self.tie_pays, minimum=1)
        if self.tie_after_tie_bonus is not None:
            require_int("tie_after_tie_bonus", self.tie_after_tie_bonus, minimum=1)
        require_int("max_boxes_per_player", self.max_boxes_per_player, minimum=1)
        if self.max_boxes_per_player > self.boxes:
            raise TableOptionError(
                "max_boxes_per_player",
                f"{self.max_boxes_per_player} is more than the {self.boxes} boxes on the table",
            )

    @property
    def smallest_chip(self) -> int:
        return self.chips.smallest
