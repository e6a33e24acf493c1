"""The station's TOML configuration, validated before anything starts.

A table PC is configured by a technician editing a file at 3 a.m.; a typo must not become a
table that pays the wrong odds. So the whole file is validated at start: unknown keys, wrong
types and impossible values (10 decks, a tie payout of 7:1, a differential below the table
minimum, Dealing Style B with a continuous shuffler, two devices on one port) each produce
one line naming the file and the dotted key, and ``station run`` exits with status 78.

pydantic does the type and range checking (``extra="forbid"`` catches unknown keys and
``strict=True`` refuses ``"8"`` where a number belongs); the cross-field rules of the game
live in the ``model_validator`` methods below, each adding a problem that names the key it
concerns; every problem of a file is found in one run (:mod:`station.config.rules`).
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationInfo, model_validator

from station.config.chip_reader import ChipReaderSection
from station.config.dealer import DealerSection, button_problems, sign_in_button_problems
from station.config.devices import DevicesSection, device_problems
from station.config.errors import ConfigError
from station.config.file import DEFAULT_CONFIG, read_config_data
from station.config.rules import Findings, judge
from station.config.strict import StrictSection
from station.config.table import StationSection, TableSection
from station.config.users import ControlSection, user_problems
from station.console.settings import ConsoleSection
from station.floor.settings import FloorSection, MetricsSection
from station.games.registry import game_named
from station.integrity.settings import IntegritySection
from station.web.settings import WebSection


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
    chip_reader: ChipReaderSection | None = None

    @model_validator(mode="before")
    @classmethod
    def _progressive_member(cls, data: Any) -> Any:
        """A progressive's table is named in its pool as the floor names it (docs/progressive.md),
        written into ``[table.progressive]`` so the journal's configuration record keeps it."""
        table = data.get("table") if isinstance(data, dict) else None
        if not isinstance(table, dict):
            return data
        progressive = table.get("progressive")
        if not isinstance(progressive, dict) or progressive.get("member"):
            return data
        from station.floor.settings import slug

        floor, station = data.get("floor", {}), data.get("station", {})
        name = (floor.get("table") if isinstance(floor, dict) else "") or slug(
            str(station.get("name", "table")) if isinstance(station, dict) else "table")
        return {**data, "table": {**table, "progressive": {**progressive, "member": name}}}

    @model_validator(mode="after")
    def _cross_sections(self, info: ValidationInfo) -> StationConfig:
        found = Findings(info)
        devices = {name: getattr(self.devices, name) for name in DevicesSection.model_fields}
        if (self.table.equipment in ("batch", "continuous") and self.devices.shuffler is None
                and found.judged("table.equipment", "devices.shuffler")):
            found.add("devices.shuffler", f"equipment '{self.table.equipment}' needs a [devices.shuffler] section")
        device_problems(devices, found)
        if found.judged("table.game", "table.side_bets", "dealer.bets"):
            for region, amount in self.dealer.bets.items():
                problem = simulated_bet_problem(self.table, region, amount)
                if problem is not None:
                    found.add(f"dealer.bets.{region}", problem)
        button_problems(self.dealer.buttons, "buttons" in self.dealer.model_fields_set, devices, found)
        user_problems(list(self.control.users), found)
        sign_in_button_problems(self.dealer.sign_in_button, devices, found)
        chip_reader_problems(self, found)
        found.done()
        return self


def chip_reader_problems(config: StationConfig, found: Findings) -> None:
    """A chip reader needs its device and the table's rule for chip bets, and each antenna's
    place must be a box and a bet of this table (docs/chips.md)."""
    reader, rule = config.chip_reader, config.table.chip_bets
    if reader is None:
        if rule is not None and found.judged("table.chip_bets"):
            found.add("table.chip_bets", "bets from chips need a reader: add a [chip_reader] section")
        return
    if rule is None and found.judged("chip_reader"):
        found.add("table.chip_bets", "a [chip_reader] needs the table's rule for chip bets: add [table.chip_bets]")
    if getattr(config.devices, "chipreader", None) is None and found.judged("chip_reader", "devices"):
        found.add("devices.chipreader", "a [chip_reader] needs its device: add [devices.chipreader]")
    if not found.judged("chip_reader.antennas", "table.game", "table.boxes", "table.side_bets"):
        return
    game = game_named(config.table.game)
    regions = (*game.regions, *(name for name in config.table.side_bets if name not in game.regions))
    boxes = {str(n) for n in range(1, config.table.boxes + 1)} | {
        f"S{n}" for n in range(1, config.table.standing_regions + 1)}
    for number, place in reader.places().items():
        if place.box and place.box not in boxes:
            found.add(f"chip_reader.antennas.{number}", f"box {place.box!r} is not a box of this table "
                                                        f"(1 to {config.table.boxes})")
        elif place.is_spot and place.region not in regions:
            found.add(f"chip_reader.antennas.{number}",
                      f"{place.region!r} is not a bet of this table; use one of {', '.join(regions)}")


def simulated_bet_problem(table: TableSection, region: str, amount: int) -> str | None:
    """Why the simulated dealer cannot place ``amount`` on ``region`` every round at ``table``
    (``[dealer] bets``, ``station demo --bet``), or None. The table's side bets are regions too."""
    game = game_named(table.game)
    allowed = (*game.regions, *(name for name in table.side_bets if name not in game.regions))
    if region not in allowed:
        return f"unknown betting region {region!r} in {game.title}; use one of {', '.join(allowed)}"
    if amount <= 0:
        return "a bet must be a positive amount in minor units"
    return None


@dataclass(frozen=True)
class LoadedConfig:
    path: Path
    config: StationConfig


def judge_config(data: dict[str, Any]) -> tuple[StationConfig | None, list[tuple[str, str]]]:
    """Every problem of a configuration, and the configuration with the refused keys at their
    defaults (None when even that cannot be built): :func:`~station.config.rules.judge`."""
    return judge(StationConfig, data)


def parse_config(data: dict[str, Any], path: Path) -> StationConfig:
    config, problems = judge_config(data)
    if problems or config is None:
        raise ConfigError(path, problems or [("", "cannot be read as a configuration")], config)
    return config



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
