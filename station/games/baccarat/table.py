"""Options of one baccarat table, validated when built (seed 000 rules 3.1, 5.6-5.18).

The operator's settings that the rules leave open: the variant (mini, midi, full), the
layout's size, limits, the Tie odds, the Banker payout, the optional region cap and table
differential. What every game shares (chips, limits, the error naming a bad option) is in
:mod:`station.games.table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from math import gcd

from station.games.baccarat.side_bets import OfferedSideBet, SideBet, offer_problems
from station.games.table import (
    MAX_PLAYERS_PER_BOX,
    Chips,
    TableOptionError,
    as_chips,
    check_limits,
    require_int,
)
from station.money import Money

MAX_BOXES_BY_VARIANT = {"mini": 7, "midi": 9, "full": 14}
BACCARAT_TIE_PAYOUTS = (8, 9)
#: Banker's commission (5.10) in percent: a winning Banker bet keeps 95% of 1:1 winnings.
COMMISSION_PERCENT = 5
BANKER_KEEPS_PERCENT = 100 - COMMISSION_PERCENT


def commission_step(chip: int) -> int:
    """Under commission a Banker bet must be a multiple of this to be paid exactly (5.12).

    A Banker bet ``v`` wins ``v * 95 / 100``; that must be a whole multiple of the smallest
    chip ``c``, and ``v`` itself must be made of chips. So ``v`` must be a multiple of ``c``
    and of ``100c / gcd(95, 100c)``: with ``c = 1`` that is 20, with ``c = 25`` it is 500,
    with ``c = 100`` (cents, chips of 1.00) it is 2000.
    """
    exact = 100 * chip // gcd(BANKER_KEEPS_PERCENT, 100 * chip)
    return exact * chip // gcd(exact, chip)


class Variant(StrEnum):
    """Baccarat table size (RULES "Table and equipment", seed 000 rule 3.1)."""

    MINI = "mini"
    MIDI = "midi"
    FULL = "full"

    @property
    def max_boxes(self) -> int:
        return MAX_BOXES_BY_VARIANT[self.value]


class BankerPayout(StrEnum):
    """How a winning Banker bet is paid: 1:1 less 5% (5.10), no commission (5.11: a win on 6
    pays half), or EZ Baccarat (RULES "Baccarat side bets": no commission, a win with a
    three-card 7 is a push, any other win 1:1, a win on 6 included)."""

    COMMISSION = "commission"
    NO_COMMISSION = "no_commission"
    EZ = "ez"


class RegionCap(StrEnum):
    """Optional mini/midi cap of rule 5.8(b) on one betting region (one spot of one box),
    named as the configuration names it.

    ``TABLE_TOTAL``: the total of all players' bets on the region may not exceed the table
    maximum. ``PLAYER_TOTAL``: one player's total on the region may not exceed the table
    maximum (this matters when a player has a personal maximum above the table's).
    """

    NONE = "none"
    TABLE_TOTAL = "table_total"
    PLAYER_TOTAL = "player_total"
    ALL_PLAYERS = "table_total"  # the rule's words: all players' bets on the region
    EACH_PLAYER = "player_total"  # the rule's words: each player's bets on the region


class DifferentialMode(StrEnum):
    """Who reduces the bets when the table differential is exceeded (5.18 says the dealer
    *may* reduce them pro rata).

    ``AUTOMATIC``: the station reduces them at "no more bets" whenever a reduction in whole
    chips meets the differential, and calls a supervisor only when none does.
    ``SUPERVISOR``: the station reduces nothing by itself; a supervisor decides each time
    (the station's reduction, or accepting the imbalance).
    """

    AUTOMATIC = "automatic"
    SUPERVISOR = "supervisor"


@dataclass(frozen=True)
class BaccaratTable:
    """Options of one baccarat table.

    ``standing_regions`` is the number of betting regions for standing players; they exist
    only on full baccarat tables (rule 5.6). ``table_differential`` is the largest allowed
    difference between the totals bet on Banker and on Player (5.17), ``None`` when the
    operator sets none; ``differential_reduction`` says who reduces bets that exceed it.
    Under commission at least one Banker bet between the minimum and the maximum must be
    payable exactly in chips (5.12), or nobody could bet on Banker.
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
    differential_reduction: DifferentialMode = DifferentialMode.AUTOMATIC
    #: The side bets the table offers, each with its pay table and limits (``[table.side_bets]``).
    side_bets: tuple[OfferedSideBet, ...] = ()
    #: How the reasons of refusals write amounts (``[table] currency``, ``minor_digits``):
    #: presentation, never a rule, so it takes no part in comparing two tables.
    money: Money = field(default=Money(), compare=False)

    def __post_init__(self) -> None:
        try:
            variant = Variant(self.variant)
        except ValueError:
            raise TableOptionError(
                "variant", f"must be mini, midi or full, got {self.variant!r}"
            ) from None
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "chips", as_chips(self.chips))
        require_int("boxes", self.boxes, minimum=1)
        if self.boxes > variant.max_boxes:
            raise TableOptionError(
                "boxes", f"{variant.value} baccarat has at most {variant.max_boxes} boxes, got {self.boxes}"
            )
        check_limits(self.min_bet, self.max_bet, self.chips)
        require_int("players_per_box", self.players_per_box, minimum=0)
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
        require_int("standing_regions", self.standing_regions, minimum=0)
        if self.standing_regions and variant is not Variant.FULL:
            raise TableOptionError(
                "standing_regions",
                f"only full baccarat has standing-player regions (5.6), not {variant.value}",
            )
        require_int("tie_pays", self.tie_pays)
        if self.tie_pays not in BACCARAT_TIE_PAYOUTS:
            raise TableOptionError(
                "tie_pays", f"a Tie bet pays 8 to 1 or 9 to 1 (5.10), got {self.tie_pays} to 1"
            )
        try:
            object.__setattr__(self, "banker_payout", BankerPayout(self.banker_payout))
        except ValueError:
            raise TableOptionError(
                "banker_payout", f"must be commission, no_commission or ez, got {self.banker_payout!r}"
            ) from None
        try:
            object.__setattr__(self, "region_cap", RegionCap(self.region_cap))
        except ValueError:
            raise TableOptionError(
                "region_cap", f"must be none, table_total or player_total, got {self.region_cap!r}"
            ) from None
        if self.region_cap is not RegionCap.NONE and variant is Variant.FULL:
            raise TableOptionError(
                "region_cap", "region caps (5.8) apply to mini and midi baccarat only"
            )
        if self.table_differential is not None:
            require_int("table_differential", self.table_differential, minimum=0)
        try:
            object.__setattr__(self, "differential_reduction", DifferentialMode(self.differential_reduction))
        except ValueError:
            raise TableOptionError(
                "differential_reduction",
                f"must be automatic or supervisor, got {self.differential_reduction!r}",
            ) from None
        self._check_side_bets()
        if self.commission:
            step = commission_step(self.chips.smallest)
            if -(-self.min_bet // step) * step > self.max_bet:
                raise TableOptionError(
                    "max_bet",
                    f"under commission a Banker bet must be a multiple of {step} to be paid exactly in chips "
                    f"of {self.chips.smallest} (5.12): none lies between {self.min_bet} and {self.max_bet}",
                )

    def _check_side_bets(self) -> None:
        object.__setattr__(self, "side_bets", tuple(self.side_bets))
        seen: set[SideBet] = set()
        for offer in self.side_bets:
            if not isinstance(offer, OfferedSideBet):
                raise TableOptionError("side_bets", f"{offer!r} is not a side bet offer")
            if offer.bet in seen:
                raise TableOptionError(f"side_bets.{offer.region}", "offered twice")
            seen.add(offer.bet)
            for key, message in offer_problems(str(offer.bet), offer.pays, offer.min_bet, offer.max_bet,
                                               self.chips.smallest):
                raise TableOptionError(".".join(part for part in ("side_bets", offer.region, key) if part), message)

    def side_bet(self, region: str) -> OfferedSideBet | None:
        """The side bet the table offers on ``region`` (``"dragon_7"``), or None."""
        return next((offer for offer in self.side_bets if offer.region == region), None)

    @property
    def smallest_chip(self) -> int:
        return self.chips.smallest

    @property
    def smallest_banker_bet(self) -> int:
        """The smallest Banker bet this table accepts: the table minimum, or under commission
        the first amount at or above it that can be paid exactly in chips (5.12)."""
        if not self.commission:
            return self.min_bet
        step = commission_step(self.chips.smallest)
        return -(-self.min_bet // step) * step

    @property
    def largest_banker_bet(self) -> int:
        """The largest Banker bet a player may make under the table maximum (5.12 as above)."""
        if not self.commission:
            return self.max_bet
        step = commission_step(self.chips.smallest)
        return self.max_bet // step * step

    @property
    def commission(self) -> bool:
        """True when Banker wins pay 1:1 less 5% (and rule 5.12 applies)."""
        return self.banker_payout is BankerPayout.COMMISSION
