"""The station's TOML configuration, validated before anything starts.

A table PC is configured by a technician editing a file at 3 a.m.; a typo must not become a
table that pays the wrong odds. So the whole file is validated at start: unknown keys, wrong
types and impossible values (10 decks, a tie payout of 7:1, a differential below the table
minimum, Dealing Style B with a continuous shuffler, two devices on one port) each produce
one line naming the file and the dotted key, and ``station run`` exits with status 2.

pydantic does the type and range checking (``extra="forbid"`` catches unknown keys and
``strict=True`` refuses ``"8"`` where a number belongs); the cross-field rules of the game
live in the ``model_validator`` methods below, each raising :class:`ConfigRuleError` with the
key it concerns, so the message still names a key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator

from station.floor.settings import FloorSection, MetricsSection
from station.games.registry import game_named
from station.resources import default_configuration
from station.strict_model import StrictSection

#: The default (simulated) configuration, shipped with the station (:mod:`station.resources`).
DEFAULT_CONFIG = default_configuration()

Game = Literal["baccarat", "war"]
Variant = Literal["mini", "midi", "full"]
Equipment = Literal["manual", "batch", "continuous"]
DealingStyle = Literal["A", "B", "C", "D"]
Role = Literal["dealer", "supervisor", "technician"]


class ConfigRuleError(ValueError):
    """A cross-field rule broken; ``key`` is the dotted key the message is about."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class ConfigError(Exception):
    """The configuration file cannot be used. ``problems`` are ``(key, message)`` pairs."""

    def __init__(self, path: Path, problems: list[tuple[str, str]]) -> None:
        self.path = path
        self.problems = problems
        lines = [f"{path}: {key}: {message}" if key else f"{path}: {message}" for key, message in problems]
        super().__init__("\n".join(lines))


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

    @model_validator(mode="before")
    @classmethod
    def _players_per_box_by_variant(cls, data: Any) -> Any:
        if isinstance(data, dict) and "players_per_box" not in data:
            full = data.get("game", "baccarat") == "baccarat" and data.get("variant") == "full"
            data = {**data, "players_per_box": 1 if full else 3}
        return data

    @model_validator(mode="after")
    def _rules(self) -> TableSection:
        layout = game_named(self.game).settings_problem(self)  # the layout the game allows
        if layout is not None:
            raise ConfigRuleError(f"table.{layout[0]}", layout[1])
        if self.max_bet < self.min_bet:
            raise ConfigRuleError("table.max_bet", f"maximum {self.max_bet} is below the minimum {self.min_bet}")
        if not self.chips or any(c <= 0 for c in self.chips):
            raise ConfigRuleError("table.chips", "chip denominations must be positive whole minor units")
        if len(set(self.chips)) != len(self.chips):
            raise ConfigRuleError("table.chips", "a chip denomination is listed twice")
        if self.min_bet % min(self.chips):
            raise ConfigRuleError(
                "table.min_bet", f"minimum {self.min_bet} cannot be made with a smallest chip of {min(self.chips)}"
            )
        if self.differential and self.differential < self.min_bet:
            raise ConfigRuleError(
                "table.differential", f"a differential of {self.differential} is below the table minimum {self.min_bet}"
            )
        if self.equipment == "continuous" and self.dealing_style in ("B", "D"):
            raise ConfigRuleError(
                "table.dealing_style",
                f"Dealing Style {self.dealing_style} is not allowed with a continuous shuffler (rule 3.3)",
            )
        if self.equipment == "continuous" and self.cut_cards != 1:
            raise ConfigRuleError("table.cut_cards", "a continuous shuffler has no cutting card in its shoe")
        if self.set_colours[0] == self.set_colours[1]:
            raise ConfigRuleError("table.set_colours", "the two card sets must have different back colours")
        from station.money import minor_digits_problem

        problem = minor_digits_problem(self.currency, self.minor_digits)
        if problem is not None:
            raise ConfigRuleError("table.minor_digits", problem)
        for side in ("tie", "pair"):
            low, high = getattr(self, f"{side}_min"), getattr(self, f"{side}_max")
            if (low or high) and not 0 < low <= high:
                raise ConfigRuleError(
                    f"table.{side}_max", f"{side} limits need 0 < {side}_min <= {side}_max (both 0: not shown), "
                    f"got {low}..{high}",
                )
        if self.region_cap != "none" and self.variant == "full":
            raise ConfigRuleError("table.region_cap", "region caps apply to mini and midi baccarat only (rule 5.8)")
        return self

    @property
    def smallest_chip(self) -> int:
        return min(self.chips)


class DeviceSection(StrictSection):
    url: str = Field(min_length=1)
    """``sim:`` starts the simulated device; otherwise a pyserial URL or device path, or for USB
    pedals ``usb://VID:PID?serial=...`` / ``usb-sim:///socket``."""
    baudrate: int = Field(default=115_200, gt=0)
    options: dict[str, Any] = Field(default_factory=dict)
    """Simulator options (``seed``, ``cut_position``, ...), ignored for real devices."""


class DevicesSection(StrictSection):
    shoe: DeviceSection | None = DeviceSection(url="sim:")
    shuffler: DeviceSection | None = None
    display: DeviceSection | None = None
    pedals: DeviceSection | None = None
    buttonbox: DeviceSection | None = None

    def configured(self) -> Iterator[tuple[str, DeviceSection]]:
        for name in ("shoe", "shuffler", "display", "pedals", "buttonbox"):
            section = getattr(self, name)
            if section is not None:
                yield name, section

    @model_validator(mode="after")
    def _openable_urls(self) -> DevicesSection:
        """A URL the station could never open is refused now, naming the key, rather than
        becoming a device that never connects."""
        from drivers.transport.urls import url_problem

        for name, section in self.configured():
            problem = url_problem(name, section.url)
            if problem is not None:
                raise ConfigRuleError(f"devices.{name}.url", problem)
        return self

    @model_validator(mode="after")
    def _distinct_ports(self) -> DevicesSection:
        seen: dict[str, str] = {}
        for name, section in self.configured():
            if section.url.startswith("sim:"):
                continue
            other = seen.get(section.url)
            if other is not None:
                raise ConfigRuleError(
                    f"devices.{name}.url",
                    f"{section.url} is already used by devices.{other}; each device needs its own port",
                )
            seen[section.url] = name
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
    bets: dict[str, int] = Field(default_factory=dict)
    """Simulated bets placed for one player in box 1 every round: region -> minor units."""
    buttons: dict[str, DealerActionName] = Field(default_factory=_default_buttons)


class ControlUser(StrictSection):
    name: str = Field(min_length=1)
    role: Role
    token_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 (hex) of the user's secret token; the token itself is never stored."""


class ControlSection(StrictSection):
    socket: str = ""
    """Unix socket path; empty means $RUNTIME_DIRECTORY/control.sock or the state directory."""
    socket_mode: int = Field(default=0o660, ge=0, le=0o777)
    users: list[ControlUser] = Field(default_factory=list)


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
    integrity: IntegritySection = IntegritySection()
    floor: FloorSection = FloorSection()
    metrics: MetricsSection = MetricsSection()

    @model_validator(mode="after")
    def _cross_sections(self) -> StationConfig:
        if self.table.equipment in ("batch", "continuous") and self.devices.shuffler is None:
            raise ConfigRuleError(
                "devices.shuffler", f"equipment '{self.table.equipment}' needs a [devices.shuffler] section"
            )
        for region, amount in self.dealer.bets.items():
            allowed = game_named(self.table.game).regions
            if region not in allowed:
                raise ConfigRuleError(
                    f"dealer.bets.{region}", f"unknown betting region; use one of {', '.join(allowed)}"
                )
            if amount <= 0:
                raise ConfigRuleError(f"dealer.bets.{region}", "a bet must be a positive amount in minor units")
        return self


@dataclass(frozen=True)
class LoadedConfig:
    path: Path
    config: StationConfig


def _dotted(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif parts:
            parts.append(f".{item}")
        else:
            parts.append(str(item))
    return "".join(parts)


def _problems(exc: ValidationError) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for error in exc.errors(include_url=False):
        loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        ctx_error = (error.get("ctx") or {}).get("error")
        if isinstance(ctx_error, ConfigRuleError):
            problems.append((ctx_error.key, str(ctx_error)))
            continue
        key = _dotted(loc)
        if error["type"] == "extra_forbidden":
            problems.append((key, "unknown key (check the spelling; `station config show-default` shows every key)"))
        elif error["type"] == "literal_error":
            problems.append(
                (key, f"{error['input']!r} is not allowed (use {error['msg'].removeprefix('Input should be ')})")
            )
        elif error["type"] == "value_error":
            problems.append((key, f"{error['msg'].removeprefix('Value error, ')} (got {error['input']!r})"))
        else:
            problems.append((key, f"{error['msg']} (got {error['input']!r})"))
    return problems


def parse_config(data: dict[str, Any], path: Path) -> StationConfig:
    try:
        return StationConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(path, _problems(exc)) from None


def load_config(path: str | Path | None = None) -> LoadedConfig:
    """Read and validate a configuration file; raise :class:`ConfigError` naming file and key."""
    config_path = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        raw = config_path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(config_path, [("", "no such configuration file")]) from None
    except OSError as exc:
        raise ConfigError(config_path, [("", f"cannot read: {exc.strerror}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(config_path, [("", "not UTF-8 text")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(config_path, [("", f"not valid TOML: {exc}")]) from None
    return LoadedConfig(config_path, parse_config(data, config_path))
