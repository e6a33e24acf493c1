"""``[station]`` and ``[table]``: the table's name and journal, its game, limits and shoe.

The game's own rules of layout are the game's to say (:func:`~station.games.registry.game_named`);
the rules between the table's keys are each added as a problem of their own (:class:`Findings`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from station.config.chip_reader import ChipBetsSection
from station.config.rules import Findings
from station.config.strict import StrictSection
from station.games.registry import game_named
from station.localtime import DEFAULT_GAMING_DAY_START, DEFAULT_TIMEZONE, day_start_problem, timezone_problem

Game = Literal["baccarat", "war"]
Variant = Literal["mini", "midi", "full"]
Equipment = Literal["manual", "batch", "continuous"]
DealingStyle = Literal["A", "B", "C", "D"]


class StationSection(StrictSection):
    name: str = Field(default="table", min_length=1, max_length=60)
    journal: str = ""
    """Journal path; empty means the documented default (see docs/journal.md)."""
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    disk_warning_mb: int = Field(default=500, ge=0)
    """Warn (log, ``ctl status``) when the journal's file system has less free space than this."""


class WarOptions(StrictSection):
    tie_pays: int = Field(default=10, ge=2, le=50)
    tie_after_tie_bonus: int = Field(default=0, ge=0, le=50)
    """Extra odds paid on the go-to-war wager when the war cards tie again; 0 = off."""
    box_max: int = Field(default=0, ge=0)
    player_max: int = Field(default=0, ge=0)
    max_boxes_per_player: int = Field(default=1, ge=1, le=7)
    """Boxes one player may bet on (5.7, 5.8): one unless the operator allows more."""


class SideBetSection(StrictSection):
    """One side bet a baccarat table offers (``[table.side_bets.dragon_7]``): docs/side-bets.md."""

    pays: str = ""
    """The name of its pay table (station/games/baccarat/side_bets.py); empty: the side bet's default."""
    min: int = Field(gt=0)
    max: int = Field(gt=0)
    """Its own limits per player per box, in minor units."""


class ProgressiveSection(StrictSection):
    """The meter of the table's progressive side bet (``[table.progressive]``): docs/progressive.md."""

    pool: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """The progressive's name: tables that name one pool share one meter through the floor broker."""
    seed: int = Field(ge=0)
    """What the meter starts at, and goes back to after its jackpot is paid (minor units)."""
    share_bp: int = Field(gt=0, le=10_000)
    """The share of every progressive wager that goes to the meter, in basis points (1500 = 15%)."""
    region: str = "progressive"
    """The side bet whose wagers feed the meter and whose hands win it."""
    member: str = Field(default="", max_length=64)
    """This table's name in the pool; empty: its floor id (``[floor] table``, or made from
    ``[station] name``), filled in when the configuration is read."""


class TableSection(StrictSection):
    game: Game = "baccarat"
    variant: Variant = "mini"
    boxes: int = Field(default=7, ge=1, le=14)
    players_per_box: int = Field(default=3, ge=1, le=3)
    """Players who may bet on one box; left out: 1 in full baccarat (5.7), otherwise 3."""
    standing_regions: int = Field(default=0, ge=0, le=8)
    decks: int = Field(default=8, ge=4, le=8)
    equipment: Equipment = "manual"
    dealing_style: DealingStyle = "A"
    rounds_after_cut: int = Field(default=1, ge=0, le=3)
    set_colours: list[str] = Field(default_factory=lambda: ["red", "blue"], min_length=2, max_length=2)
    min_bet: int = Field(default=1000, gt=0)
    max_bet: int = Field(default=500_000, gt=0)
    chips: list[int] = Field(default_factory=lambda: [100, 500, 1000, 2500, 10000, 50000], min_length=1)
    chip_colours: dict[str, str] = Field(default_factory=dict)
    """The console's colour of a chip, by its amount in minor units (``"1000" = "blue"``); a chip
    left out takes its face value's usual colour (station/config/chip_colours.py)."""
    tie_pays: Literal[8, 9] = 8
    banker_payout: Literal["commission", "no_commission", "ez"] = "commission"
    """How a winning Banker bet is paid: 1:1 less 5% commission, no commission (a win on 6 pays
    half), or EZ Baccarat (no commission; a win with a three-card 7 pushes)."""
    region_cap: Literal["none", "table_total", "player_total"] = "none"
    differential: int = Field(default=0, ge=0)
    """Largest allowed difference between total Banker and total Player bets; 0 = none."""
    differential_reduction: Literal["automatic", "supervisor"] = "automatic"
    """Who reduces bets that exceed the differential (5.18): the station at "no more bets"
    when it can, calling a supervisor when it cannot (automatic), or always a supervisor."""
    cut_cards: int = Field(default=1, ge=1, le=2)
    """Cutting cards in the shoe (seed 000 3.3): 2 puts a second one behind the last card."""
    war: WarOptions = WarOptions()
    side_bets: dict[str, SideBetSection] = Field(default_factory=dict)
    """Baccarat's side bets the table offers, by region (``dragon_7``, ``panda_8``, ...), each with its
    pay table and limits (docs/side-bets.md)."""
    progressive: ProgressiveSection | None = None
    """The meter of the progressive side bet (``side_bets.progressive``), if the table offers one."""
    chip_bets: ChipBetsSection | None = None
    """Bets taken from the chips a reader under the layout sees (docs/chips.md): needs ``[chip_reader]``."""
    currency: str = Field(default="", pattern=r"^([A-Z]{3})?$")
    """ISO 4217 code shown with every amount players read ("EUR"); empty: none shown."""
    minor_digits: int = Field(default=2, ge=0, le=4)
    """Digits of the currency's minor unit (ISO 4217: 2 for EUR, 0 for JPY): where the point goes
    when an amount in minor units is written for people (1000 -> 10.00)."""
    tie_min: int = Field(default=0, ge=0)
    tie_max: int = Field(default=0, ge=0)
    """Tie bet limits shown on the limits sign (minor units); 0 and 0: not shown."""
    pair_min: int = Field(default=0, ge=0)
    pair_max: int = Field(default=0, ge=0)
    """Pair bet limits shown on the limits sign (minor units); 0 and 0: not shown."""
    timezone: str = DEFAULT_TIMEZONE
    """IANA name of the table's time zone ("Europe/Vienna"): every time a person reads is shown
    in it (the journal keeps UTC)."""
    gaming_day_start: str = DEFAULT_GAMING_DAY_START
    """Local time ("06:00") at which a gaming day begins: the meters' day and the archive's."""
    burn_on_dealer_change: bool = False
    """A dealer who relieves another burns one card, face down, before their first round."""
    cash_log_at: int = Field(default=300_000, ge=0)
    """A player's cash bought in during a gaming day from which the meters flag it for the
    multiple transaction log (minor units; 0: never). docs/ratings.md."""
    cash_report_over: int = Field(default=1_000_000, ge=0)
    """... above which the meters flag it for a currency transaction report (0: never)."""

    @model_validator(mode="before")
    @classmethod
    def _players_per_box_by_variant(cls, data: Any) -> Any:
        if isinstance(data, dict) and "players_per_box" not in data:
            full = data.get("game", "baccarat") == "baccarat" and data.get("variant") == "full"
            data = {**data, "players_per_box": 1 if full else 3}
        return data

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> TableSection:
        """Every rule between the table's keys; each broken one is a problem of its own."""
        found = Findings(info, "table.")
        layout = game_named(self.game).settings_problem(self)  # the layout the game allows
        if layout is not None and found.judged("game", "variant", "boxes", "players_per_box", "standing_regions"):
            found.add(*layout)
        if self.max_bet < self.min_bet and found.judged("max_bet", "min_bet"):
            found.add("max_bet", f"maximum {self.max_bet} is below the minimum {self.min_bet}")
        chips_usable = found.judged("chips") and bool(self.chips) and all(c > 0 for c in self.chips)
        if found.judged("chips") and not chips_usable:
            found.add("chips", "chip denominations must be positive whole minor units")
        if chips_usable and len(set(self.chips)) != len(self.chips):
            found.add("chips", "a chip denomination is listed twice")
        if chips_usable and found.judged("min_bet") and self.min_bet % min(self.chips):
            found.add("min_bet", f"minimum {self.min_bet} cannot be made with a smallest chip of {min(self.chips)}")
        if self.differential and self.differential < self.min_bet and found.judged("differential", "min_bet"):
            found.add("differential",
                      f"a differential of {self.differential} is below the table minimum {self.min_bet}")
        continuous = self.equipment == "continuous" and found.judged("equipment")
        if continuous and self.dealing_style in ("B", "D") and found.judged("dealing_style"):
            found.add("dealing_style", f"Dealing Style {self.dealing_style} is not allowed with a continuous shuffler "
                                       "(rule 3.3)")
        if continuous and self.cut_cards != 1 and found.judged("cut_cards"):
            found.add("cut_cards", "a continuous shuffler has no cutting card in its shoe")
        if self.set_colours[0] == self.set_colours[1] and found.judged("set_colours"):
            found.add("set_colours", "the two card sets must have different back colours")
        from station.money import minor_digits_problem

        for key, problem_of in (("timezone", timezone_problem), ("gaming_day_start", day_start_problem)):
            problem = problem_of(getattr(self, key))
            if problem is not None and found.judged(key):
                found.add(key, problem)
        problem = minor_digits_problem(self.currency, self.minor_digits)
        if problem is not None and found.judged("currency", "minor_digits"):
            found.add("minor_digits", problem)
        for side in ("tie", "pair"):
            low, high = getattr(self, f"{side}_min"), getattr(self, f"{side}_max")
            if (low or high) and not 0 < low <= high and found.judged(f"{side}_min", f"{side}_max"):
                found.add(f"{side}_max", f"{side} limits need 0 < {side}_min <= {side}_max (both 0: not shown), "
                                         f"got {low}..{high}")
        if self.region_cap != "none" and self.variant == "full" and found.judged("region_cap", "variant"):
            found.add("region_cap", "region caps apply to mini and midi baccarat only (rule 5.8)")
        if chips_usable and found.judged("game", "chips"):
            for key, problem in game_named(self.game).side_bet_problems(self):
                if found.judged(key):
                    found.add(key, problem)
        if self.progressive is not None and found.judged("progressive") and \
                self.progressive.region not in self.side_bets:
            found.add("progressive.region", f"the table offers no {self.progressive.region!r} side bet for the "
                                            f"meter: add [table.side_bets.{self.progressive.region}]")
        if self.progressive is None and "progressive" in self.side_bets and found.judged("side_bets"):
            found.add("progressive", "the progressive side bet needs its meter: [table.progressive] with pool, "
                                     "seed and share_bp")
        if chips_usable and found.judged("chip_colours"):
            from station.config.chip_colours import colour_key_problems

            for key, problem in colour_key_problems(self.chip_colours, self.chips):
                found.add(f"chip_colours.{key}", problem)
        found.done()
        return self

    @property
    def smallest_chip(self) -> int:
        return min(self.chips)
