"""The station's TOML configuration, validated before anything starts.

A table PC is configured by a technician editing a file at 3 a.m.; a typo must not become a
table that pays the wrong odds. So the whole file is validated at start: unknown keys, wrong
types and impossible values (10 decks, a tie payout of 7:1, a differential below the table
minimum, Dealing Style B with a continuous shuffler, two devices on one port) each produce
one line naming the file and the dotted key, and ``station run`` exits with status 78.

pydantic does the type and range checking (``extra="forbid"`` catches unknown keys and
``strict=True`` refuses ``"8"`` where a number belongs); the cross-field rules of the game
live in the ``model_validator`` methods below, each adding a problem that names the key it
concerns; every problem of a file is found in one run (:mod:`station.service.config_rules`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationInfo, field_validator, model_validator

from station.console.settings import ConsoleSection
from station.floor.settings import FloorSection, MetricsSection
from station.games.registry import game_named
from station.localtime import DEFAULT_GAMING_DAY_START, DEFAULT_TIMEZONE, day_start_problem, timezone_problem
from station.resources import default_configuration
from station.service.config_rules import (
    Findings,
    button_problems,
    device_problems,
    judge,
    sign_in_button_problems,
    user_problems,
)
from station.strict_model import StrictSection

#: The default (simulated) configuration, shipped with the station (:mod:`station.resources`).
DEFAULT_CONFIG = default_configuration()

Game = Literal["baccarat", "war"]
Variant = Literal["mini", "midi", "full"]
Equipment = Literal["manual", "batch", "continuous"]
DealingStyle = Literal["A", "B", "C", "D"]
Role = Literal["dealer", "supervisor", "technician"]


class ConfigError(Exception):
    """The configuration file cannot be used. ``problems`` are ``(key, message)`` pairs, every
    one found (not only the first); ``partial`` is the configuration with the refused keys at
    their defaults, when it could be built (``--check`` checks the machine against it)."""

    def __init__(self, path: Path, problems: list[tuple[str, str]], partial: StationConfig | None = None) -> None:
        self.path = path
        self.problems = problems
        self.partial = partial
        lines = [f"{path}: {key}: {message}" if key else f"{path}: {message}" for key, message in problems]
        super().__init__("\n".join(lines))


class ConfigFileError(ConfigError):
    """The configuration file is not there or cannot be read at all: a file named on the
    command line that cannot be used (exit status 2), unlike a file with wrong keys (78)."""


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
    tie_pays: Literal[8, 9] = 8
    banker_payout: Literal["commission", "no_commission"] = "commission"
    region_cap: Literal["none", "table_total", "player_total"] = "none"
    differential: int = Field(default=0, ge=0)
    """Largest allowed difference between total Banker and total Player bets; 0 = none."""
    differential_reduction: Literal["automatic", "supervisor"] = "automatic"
    """Who reduces bets that exceed the differential (5.18): the station at "no more bets"
    when it can, calling a supervisor when it cannot (automatic), or always a supervisor."""
    cut_cards: int = Field(default=1, ge=1, le=2)
    """Cutting cards in the shoe (seed 000 3.3): 2 puts a second one behind the last card."""
    war: WarOptions = WarOptions()
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
        found.done()
        return self

    @property
    def smallest_chip(self) -> int:
        return min(self.chips)


class DeviceSection(StrictSection):
    url: str = Field(min_length=1)
    """``sim:`` starts the simulated device; otherwise a pyserial URL or device path, or for USB
    pedals ``usb://VID:PID?serial=...`` / ``usb-sim:///socket``, or for a commodity foot switch
    ``evdev://VID:PID`` / ``evdev:///dev/input/by-id/...``."""
    baudrate: int = Field(default=115_200, gt=0)
    options: dict[str, Any] = Field(default_factory=dict)
    """Options of the device's simulator (a ``sim:`` device: ``ack_timeout``, the shuffler's
    ``steps``, ...); a real device's driver reads none, so a real device may have none."""
    keys: dict[str, str] = Field(default_factory=dict)
    """A foot switch's keys and the buttons they are (``KEY_F13 = "left"``); empty: F13, F14,
    F15 are left, centre, right (docs/drivers.md)."""


class DevicesSection(StrictSection):
    shoe: DeviceSection | None = None
    """A table whose devices are all simulated (or that names none) gets a simulated shoe when
    it names none; beside a real device the shoe must be named (``url = "sim:"`` for the
    simulated one), never simulated by default."""
    shuffler: DeviceSection | None = None
    display: DeviceSection | None = None
    pedals: DeviceSection | None = None
    buttonbox: DeviceSection | None = None

    def configured(self) -> Iterator[tuple[str, DeviceSection]]:
        for name in ("shoe", "shuffler", "display", "pedals", "buttonbox"):
            section = getattr(self, name)
            if section is not None:
                yield name, section

    @model_validator(mode="before")
    @classmethod
    def _a_simulated_table_has_a_simulated_shoe(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "shoe" in data:
            return data
        urls = [section.get("url") if isinstance(section, dict) else getattr(section, "url", None)
                for section in data.values()]
        if all(isinstance(url, str) and url.startswith("sim:") for url in urls):
            return {**data, "shoe": {"url": "sim:"}}
        return data

    @model_validator(mode="after")
    def _openable_distinct_ports(self, info: ValidationInfo) -> DevicesSection:
        """A URL the station could never open is refused now, naming the key, rather than
        becoming a device that never connects; and no two devices share a port."""
        from drivers.transport.urls import url_problem

        found = Findings(info, "devices.")
        seen: dict[str, str] = {}
        for name, section in self.configured():
            problem = url_problem(name, section.url)
            if problem is not None:
                found.add(f"{name}.url", problem)
            elif not section.url.startswith("sim:") and section.url in seen:
                found.add(f"{name}.url", f"{section.url} is already used by devices.{seen[section.url]}; each device "
                                         "needs its own port")
            seen.setdefault(section.url, name)
        found.done()
        return self

    @model_validator(mode="after")
    def _foot_switch_keys(self, info: ValidationInfo) -> DevicesSection:
        """Keys belong to a foot switch (the pedals, opened through evdev), each a key name the
        kernel knows, each naming a button."""
        from drivers.input.keys import key_code
        from drivers.input.locator import is_evdev_url

        found = Findings(info, "devices.")
        for name, section in self.configured():
            if not section.keys:
                continue
            if not (name == "pedals" and (is_evdev_url(section.url) or "hid=footswitch" in section.url)):
                found.add(f"{name}.keys", 'only a foot switch or keypad has keys ([devices.pedals] with url = "evdev://...")')
                continue
            for key, button in section.keys.items():
                try:
                    key_code(key)
                except ValueError as exc:
                    found.add(f"{name}.keys.{key}", str(exc))
                    continue
                if not button.strip():
                    found.add(f"{name}.keys.{key}", "names no button")
        found.done()
        return self


DealerActionName = Literal[
    "no_more_bets", "confirm_cut", "shuffle_done", "reveal", "next_round", "call_supervisor",
    "war", "surrender", "decline_tie",
]


def _default_buttons() -> dict[str, DealerActionName]:
    return {"left": "no_more_bets", "centre": "reveal", "right": "next_round"}


class DealerSection(StrictSection):
    simulated: bool = False
    """A simulated dealer plays the simulated devices (for demonstration and soak testing)."""
    pace_ms: int = Field(default=1500, ge=0, le=60_000)
    """Time the simulated dealer takes per action; about human pace by default."""
    patience_ms: int = Field(default=15_000, ge=50, le=3_600_000)
    """How long the station may stand still before the simulated dealer says so: ``station
    run``'s dealer then logs that it waits (for a supervisor, for the journal's disk) and
    waits on; ``station demo``'s stops the demo."""
    bets: dict[str, int] = Field(default_factory=dict)
    """Simulated bets placed for one player in box 1 every round: region -> minor units."""
    buttons: dict[str, DealerActionName] = Field(default_factory=_default_buttons)
    sign_in_button: str = ""
    """The button box's button whose long press begins a dealer's sign-in (their dealer_id as
    button numbers; docs/dealers.md); empty: no sign-in on the box."""


class ControlUser(StrictSection):
    name: str
    """Letters, digits, ``.``, ``-`` and ``_`` (:mod:`station.service.users`)."""
    role: Role
    token_sha256: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")
    """SHA-256 (hex) of the user's secret token for ``station ctl``; the token itself is never stored."""
    pin_scrypt: str = Field(default="", validate_default=True)
    """The user's console PIN as a salted scrypt hash (``station ctl new-user``); never the PIN."""
    dealer_id: str = Field(default="", pattern=r"^([1-9]{2,8})?$")
    """The dealer's id on the button box: 2 to 8 button numbers (docs/dealers.md); not a secret."""

    @field_validator("pin_scrypt")
    @classmethod
    def _pin_or_token(cls, value: str, info: ValidationInfo) -> str:
        from station.console.pins import stored_problem

        if value:
            problem = stored_problem(value)
            if problem:
                raise ValueError(problem)
        elif not info.data.get("token_sha256"):
            raise ValueError("a user needs a token_sha256 (station ctl new-token) or a pin_scrypt "
                             "(station ctl new-user), or both")
        return value

    @field_validator("name")
    @classmethod
    def _a_user_name(cls, value: str) -> str:
        from station.service.users import user_name_problem

        problem = user_name_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class ControlSection(StrictSection):
    socket: str = ""
    """Unix socket path; empty means $RUNTIME_DIRECTORY/control.sock or the state directory."""
    socket_mode: int = Field(default=0o660, ge=0, le=0o777)
    users: list[ControlUser] = Field(default_factory=list)


def one_address(value: str) -> str:
    """A page's listening address: loopback or one address of the PC, never the wildcard
    (it would serve the page on every network the PC is on). Shared by ``[web] bind`` and
    the pit page's ``[pit] bind``; raises ValueError saying why not."""
    import ipaddress

    if value == "localhost":
        return value
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address (use 127.0.0.1, or an address of this PC)") from None
    if address.is_unspecified:
        raise ValueError(
            f"{value} would serve the page on every network of the PC: name the one address the "
            "pit screens reach (docs/web-scoreboard.md)"
        )
    if address.is_multicast:
        raise ValueError(f"{value} is a multicast address")
    return value


class WebSection(StrictSection):
    """The web scoreboard (docs/web-scoreboard.md): a read-only page served by a process of its own."""

    enabled: bool = False
    bind: str = Field(default="127.0.0.1", validation_alias=AliasChoices("bind", "host"))
    """The address the page is served on: loopback for a screen on the table PC, or the
    address of one of the PC's interfaces for pit screens on the table's network (``host`` is
    the older name of this key)."""
    port: int = Field(default=8080, ge=1, le=65535)
    max_connections: int = Field(default=512, ge=1, le=10_000)
    """Connections served at once (pages and their event streams); more are answered 503."""

    @field_validator("bind")
    @classmethod
    def _one_address(cls, value: str) -> str:
        return one_address(value)

    @property
    def host(self) -> str:
        """The older name of :attr:`bind`."""
        return self.bind


class IntegritySection(StrictSection):
    """The integrity monitor (docs/integrity.md). It never changes how a journal replays, so it
    is not part of the configuration a journal records."""

    repeat_depth: int = Field(default=20, ge=1, le=100)
    """Earlier shoes a new shoe is compared with (the repeated-shoe test)."""
    advantage_percent: float = Field(default=1.0, ge=0.0, le=100.0)
    """Alert when a wager's edge for the players exceeds this many percent."""
    significance: float = Field(default=0.001, gt=0.0, lt=0.5)
    """Result statistics alert below this p-value."""
    window_rounds: int = Field(default=400, ge=50, le=10_000)
    """Rounds in the rolling window of the result statistics."""


class StationConfig(StrictSection):
    station: StationSection = StationSection()
    table: TableSection = TableSection()
    devices: DevicesSection = DevicesSection()
    dealer: DealerSection = DealerSection()
    control: ControlSection = ControlSection()
    web: WebSection = WebSection()
    console: ConsoleSection = ConsoleSection()
    integrity: IntegritySection = IntegritySection()
    floor: FloorSection = FloorSection()
    metrics: MetricsSection = MetricsSection()

    @model_validator(mode="after")
    def _cross_sections(self, info: ValidationInfo) -> StationConfig:
        found = Findings(info)
        devices = {name: getattr(self.devices, name) for name in DevicesSection.model_fields}
        if (self.table.equipment in ("batch", "continuous") and self.devices.shuffler is None
                and found.judged("table.equipment", "devices.shuffler")):
            found.add("devices.shuffler", f"equipment '{self.table.equipment}' needs a [devices.shuffler] section")
        device_problems(devices, found)
        if found.judged("table.game", "dealer.bets"):
            for region, amount in self.dealer.bets.items():
                problem = simulated_bet_problem(self.table.game, region, amount)
                if problem is not None:
                    found.add(f"dealer.bets.{region}", problem)
        button_problems(self.dealer.buttons, "buttons" in self.dealer.model_fields_set, devices, found)
        user_problems(list(self.control.users), found)
        sign_in_button_problems(self.dealer.sign_in_button, devices, found)
        found.done()
        return self


def simulated_bet_problem(game: str, region: str, amount: int) -> str | None:
    """Why the simulated dealer cannot place ``amount`` on ``region`` every round of ``game``
    (``[dealer] bets``, ``station demo --bet``), or None."""
    allowed = game_named(game).regions
    if region not in allowed:
        return f"unknown betting region {region!r} in {game_named(game).title}; use one of {', '.join(allowed)}"
    if amount <= 0:
        return "a bet must be a positive amount in minor units"
    return None


@dataclass(frozen=True)
class LoadedConfig:
    path: Path
    config: StationConfig


def judge_config(data: dict[str, Any]) -> tuple[StationConfig | None, list[tuple[str, str]]]:
    """Every problem of a configuration, and the configuration with the refused keys at their
    defaults (None when even that cannot be built): :func:`~station.service.config_rules.judge`."""
    return judge(StationConfig, data)


def parse_config(data: dict[str, Any], path: Path) -> StationConfig:
    config, problems = judge_config(data)
    if problems or config is None:
        raise ConfigError(path, problems or [("", "cannot be read as a configuration")], config)
    return config


def read_config_data(path: Path) -> dict[str, Any]:
    """The TOML of a configuration file, or :class:`ConfigError` (:class:`ConfigFileError`
    when there is no file to read)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigFileError(path, [("", "no such configuration file")]) from None
    except OSError as exc:
        raise ConfigFileError(path, [("", f"cannot read: {exc.strerror}")]) from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(path, [("", "not UTF-8 text")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, [("", f"not valid TOML: {exc}")]) from None


def load_config(path: str | Path | None = None,
                more_checks: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = None) -> LoadedConfig:
    """Read and validate a configuration file; raise :class:`ConfigError` naming the file and
    the key of every problem. ``more_checks`` adds problems only a caller can judge (whether a
    simulator takes an option: the commands that start simulators ask)."""
    config_path = Path(path) if path is not None else DEFAULT_CONFIG
    data = read_config_data(config_path)
    config, problems = judge_config(data)
    if more_checks is not None:
        problems += [p for p in more_checks(data) if p not in problems]
    if problems or config is None:
        raise ConfigError(config_path, problems or [("", "cannot be read as a configuration")], config)
    return LoadedConfig(config_path, config)
