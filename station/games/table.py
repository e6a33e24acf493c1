"""Table options for a baccarat table and a Casino War table, validated when built.

These are the operator's settings that the rules leave open (RULES.md, seeds 000 and 002):
layout size, limits, payout odds, chips. They are frozen dataclasses so that the state
machine can hold one per round and record from which round a changed option (for example
the no-commission Banker payout, rule 5.11) took effect.

All money is ``int`` in the table's smallest currency unit ("minor units"). A value that no
real table could have (a tie paying 7 to 1, a minimum above the maximum, a chip of 0) is
refused with a :class:`TableOptionError` that names the offending field, so a typo in the
configuration is caught at start-up rather than at the first payout.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

MAX_BOXES_BY_VARIANT = {"mini": 7, "midi": 9, "full": 14}
MAX_PLAYERS_PER_BOX = 3
MAX_WAR_BOXES = 7
BACCARAT_TIE_PAYOUTS = (8, 9)


class TableOptionError(ValueError):
    """A table option that cannot be right. ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class Variant(str, Enum):
    """Baccarat table size (RULES "Table and equipment", seed 000 rule 3.1)."""

    MINI = "mini"
    MIDI = "midi"
    FULL = "full"

    @property
    def max_boxes(self) -> int:
        return MAX_BOXES_BY_VARIANT[self.value]


class BankerPayout(str, Enum):
    """How a winning Banker bet is paid: 1:1 less 5% (5.10), or no commission (5.11)."""

    COMMISSION = "commission"
    NO_COMMISSION = "no_commission"


class RegionCap(str, Enum):
    """Optional mini/midi cap of rule 5.8(b) on one betting region (one spot of one box).

    ``ALL_PLAYERS``: the total of all players' bets on the region may not exceed the table
    maximum. ``EACH_PLAYER``: one player's total on the region may not exceed the table
    maximum (this matters when a player has a personal maximum above the table's).
    """

    NONE = "none"
    ALL_PLAYERS = "all_players"
    EACH_PLAYER = "each_player"


def _require_int(field: str, value: object, *, minimum: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TableOptionError(field, f"must be a whole number of minor units, got {value!r}")
    if minimum is not None and value < minimum:
        raise TableOptionError(field, f"must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class Chips:
    """The chip denominations in use, in minor units.

    The smallest chip decides what can be paid "exactly in chips" (rules 5.12/5.13): any
    whole multiple of it can be paid. For that to hold every other denomination must be a
    multiple of the smallest one, so a set such as 100 and 250 is refused [choice].
    """

    denominations: tuple[int, ...]

    def __post_init__(self) -> None:
        values = self.denominations
        if not isinstance(values, tuple) or not values:
            raise TableOptionError("chips", f"give at least one chip denomination, got {values!r}")
        for value in values:
            _require_int("chips", value, minimum=1)
        if len(set(values)) != len(values):
            raise TableOptionError("chips", f"denominations repeat: {values}")
        smallest = min(values)
        odd = [value for value in values if value % smallest]
        if odd:
            raise TableOptionError(
                "chips",
                f"every chip must be a multiple of the smallest chip {smallest}; {odd} are not",
            )
        object.__setattr__(self, "denominations", tuple(sorted(values)))

    @property
    def smallest(self) -> int:
        return self.denominations[0]

    def payable(self, amount: int) -> bool:
        """Can ``amount`` be paid exactly in these chips?"""
        return amount >= 0 and amount % self.smallest == 0

    def round_down(self, amount: int) -> int:
        """The largest amount payable in chips that does not exceed ``amount``."""
        return max(0, amount) // self.smallest * self.smallest


def _as_chips(value: object) -> Chips:
    """Accept a :class:`Chips` or a plain list/tuple of denominations (as a config file gives)."""
    if isinstance(value, Chips):
        return value
    if isinstance(value, (list, tuple)):
        return Chips(tuple(value))
    raise TableOptionError("chips", f"must be a list of chip denominations, got {value!r}")


def _check_limits(min_bet: int, max_bet: int, chips: Chips, prefix: str = "") -> None:
    _require_int(f"{prefix}min_bet", min_bet, minimum=1)
    _require_int(f"{prefix}max_bet", max_bet, minimum=1)
    if min_bet > max_bet:
        raise TableOptionError(
            f"{prefix}min_bet", f"minimum {min_bet} is above the maximum {max_bet}"
        )
    for name, value in ((f"{prefix}min_bet", min_bet), (f"{prefix}max_bet", max_bet)):
        if not chips.payable(value):
            raise TableOptionError(
                name, f"{value} cannot be made of chips of {chips.smallest}"
            )


@dataclass(frozen=True)
class BaccaratTable:
    """Options of one baccarat table.

    ``standing_regions`` is the number of betting regions for standing players; they exist
    only on full baccarat tables (rule 5.6). ``table_differential`` is the largest allowed
    difference between the totals bet on Banker and on Player (5.17), ``None`` when the
    operator sets none.
    """

    variant: Variant
    boxes: int
    min_bet: int
    max_bet: int
    chips: Chips
    players_per_box: int = 0  # 0 means the variant's default: 3 mini/midi, 1 full
    standing_regions: int = 0
    tie_pays: int = 8
    banker_payout: BankerPayout = BankerPayout.COMMISSION
    region_cap: RegionCap = RegionCap.NONE
    table_differential: int | None = None

    def __post_init__(self) -> None:
        try:
            variant = Variant(self.variant)
        except ValueError:
            raise TableOptionError(
                "variant", f"must be mini, midi or full, got {self.variant!r}"
            ) from None
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "chips", _as_chips(self.chips))
        _require_int("boxes", self.boxes, minimum=1)
        if self.boxes > variant.max_boxes:
            raise TableOptionError(
                "boxes", f"{variant.value} baccarat has at most {variant.max_boxes} boxes, got {self.boxes}"
            )
        _check_limits(self.min_bet, self.max_bet, self.chips)
        _require_int("players_per_box", self.players_per_box, minimum=0)
        if variant is Variant.FULL:
            if self.players_per_box not in (0, 1):
                raise TableOptionError(
                    "players_per_box",
                    f"full baccarat allows exactly one seated player per box (5.7), got {self.players_per_box}",
                )
            object.__setattr__(self, "players_per_box", 1)
        else:
            if self.players_per_box > MAX_PLAYERS_PER_BOX:
                raise TableOptionError(
                    "players_per_box",
                    f"at most {MAX_PLAYERS_PER_BOX} players may bet on one box (5.8), got {self.players_per_box}",
                )
            if self.players_per_box == 0:
                object.__setattr__(self, "players_per_box", MAX_PLAYERS_PER_BOX)
        _require_int("standing_regions", self.standing_regions, minimum=0)
        if self.standing_regions and variant is not Variant.FULL:
            raise TableOptionError(
                "standing_regions",
                f"only full baccarat has standing-player regions (5.6), not {variant.value}",
            )
        _require_int("tie_pays", self.tie_pays)
        if self.tie_pays not in BACCARAT_TIE_PAYOUTS:
            raise TableOptionError(
                "tie_pays", f"a Tie bet pays 8 to 1 or 9 to 1 (5.10), got {self.tie_pays} to 1"
            )
        try:
            object.__setattr__(self, "banker_payout", BankerPayout(self.banker_payout))
        except ValueError:
            raise TableOptionError(
                "banker_payout", f"must be commission or no_commission, got {self.banker_payout!r}"
            ) from None
        try:
            object.__setattr__(self, "region_cap", RegionCap(self.region_cap))
        except ValueError:
            raise TableOptionError(
                "region_cap", f"must be none, all_players or each_player, got {self.region_cap!r}"
            ) from None
        if self.region_cap is not RegionCap.NONE and variant is Variant.FULL:
            raise TableOptionError(
                "region_cap", "region caps (5.8) apply to mini and midi baccarat only"
            )
        if self.table_differential is not None:
            _require_int("table_differential", self.table_differential, minimum=0)

    @property
    def smallest_chip(self) -> int:
        return self.chips.smallest

    @property
    def commission(self) -> bool:
        """True when Banker wins pay 1:1 less 5% (and rule 5.12 applies)."""
        return self.banker_payout is BankerPayout.COMMISSION


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "chips", _as_chips(self.chips))
        _require_int("boxes", self.boxes, minimum=1)
        if self.boxes > MAX_WAR_BOXES:
            raise TableOptionError(
                "boxes", f"a Casino War table has at most {MAX_WAR_BOXES} boxes (3.1), got {self.boxes}"
            )
        _check_limits(self.min_bet, self.max_bet, self.chips)
        _require_int("players_per_box", self.players_per_box, minimum=1)
        if self.players_per_box > MAX_PLAYERS_PER_BOX:
            raise TableOptionError(
                "players_per_box",
                f"at most {MAX_PLAYERS_PER_BOX} players may bet on one box (5.9), got {self.players_per_box}",
            )
        for name in ("box_max", "player_max"):
            value = getattr(self, name)
            if value is not None:
                _require_int(name, value, minimum=1)
                if value < self.min_bet:
                    raise TableOptionError(
                        name, f"{value} is below the table minimum {self.min_bet}"
                    )
        _require_int("tie_pays", self.tie_pays, minimum=1)
        if self.tie_after_tie_bonus is not None:
            _require_int("tie_after_tie_bonus", self.tie_after_tie_bonus, minimum=1)
        _require_int("max_boxes_per_player", self.max_boxes_per_player, minimum=1)
        if self.max_boxes_per_player > self.boxes:
            raise TableOptionError(
                "max_boxes_per_player",
                f"{self.max_boxes_per_player} is more than the {self.boxes} boxes on the table",
            )

    @property
    def smallest_chip(self) -> int:
        return self.chips.smallest
