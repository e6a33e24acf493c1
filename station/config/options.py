"""From a validated configuration to the core's options.

The configuration file speaks the technician's words (``region_cap = "table_total"``); the
game rules speak theirs (:class:`~station.games.baccarat.table.RegionCap.ALL_PLAYERS`). The
configured game reads its own options from the ``[table]`` section
(:meth:`~station.games.interface.Game.table_from_settings`); any rule it refuses comes back
here as a :class:`~station.config.errors.ConfigError` naming the file and the key, like
every other configuration problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from station.config.dealer import DealerSection
from station.config.devices import DevicesSection
from station.config.errors import ConfigError
from station.config.table import TableSection
from station.core.chip_table import ChipRules
from station.core.options import CoreOptionError, CoreOptions
from station.core.progressive import ProgressiveSettings
from station.games.limits import TableLimits
from station.games.registry import game_named
from station.games.table import TableOptionError

#: Kind of the journal record that holds the configuration a journal is written under.
CONFIGURATION_RECORD = "Configuration"
#: Kind of the journal record naming the software that opened the journal (when it changes).
SOFTWARE_RECORD = "Software"
#: The part of a Configuration record that says which software wrote it, not how to replay.
SOFTWARE_KEY = "software"



class TableConfiguration(Protocol):
    """The sections that decide how a journal replays: any whole configuration has them
    (:class:`~station.service.config.StationConfig`), and nothing here needs the features'."""

    @property
    def table(self) -> TableSection: ...
    @property
    def dealer(self) -> DealerSection: ...
    @property
    def devices(self) -> DevicesSection: ...


#: Field names of the game modules -> dotted keys of the configuration file.
_KEYS = {"table_differential": "differential", "tie_after_tie_bonus": "war.tie_after_tie_bonus",
         "box_max": "war.box_max", "player_max": "war.player_max",
         "max_boxes_per_player": "war.max_boxes_per_player"}


#: ``[table]`` keys that change only how the console draws the table (the chips' colours) or
#: what the meters flag (cash levels): not in the configuration record, so changing one never
#: asks for a new journal.
NOT_RECORDED = {"chip_colours", "cash_log_at", "cash_report_over"}


def _round_devices(config: TableConfiguration) -> list[str]:
    """Devices whose loss stops a round: those that read cards."""
    return sorted(name for name, _ in config.devices.configured() if name in ("shoe", "shuffler"))


def configuration_record(config: TableConfiguration) -> dict[str, Any]:
    """Everything that decides how a journal replays: the table's rules, the button mapping
    and the devices whose loss stops a round. Journaled at start so that a journal is only
    ever replayed under the configuration it was written with."""
    return {
        "table": config.table.model_dump(mode="json", exclude=NOT_RECORDED),
        "buttons": dict(sorted(config.dealer.buttons.items())),
        "round_devices": _round_devices(config),
    }


def software_record() -> dict[str, Any]:
    """Which software writes the journal: its version and the journal schema it writes."""
    from station.journal.store import SCHEMA_VERSION
    from station.version import installed_version

    return {"version": installed_version(), "journal_schema": SCHEMA_VERSION}


def new_journal_record(config: TableConfiguration) -> dict[str, Any]:
    """The Configuration record a new journal starts with: the rules, and the software."""
    return {**configuration_record(config), SOFTWARE_KEY: software_record()}


def replay_rules(recorded: dict[str, Any]) -> dict[str, Any]:
    """A recorded Configuration without the software that wrote it: what must match."""
    return {key: value for key, value in recorded.items() if key != SOFTWARE_KEY}


def with_defaults(record: dict[str, Any]) -> dict[str, Any]:
    """A journal's configuration record with the table options added since it was written set
    to their defaults (which keep the rules it was written under), so a journal is refused
    only over keys whose values really changed."""
    try:
        table = TableSection.model_validate(record.get("table", {}), strict=False).model_dump(
            mode="json", exclude=NOT_RECORDED)
    except ValidationError:
        return record
    return {**record, "table": table}


#: ``[table]`` keys that only say how amounts and times are written for people (and which local
#: day a figure is counted in): a journal written before they existed is read under whatever
#: the configuration says now.
PRESENTATION_KEYS = ("currency", "minor_digits", "timezone", "gaming_day_start")


def upgraded_record(recorded: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """A configuration record written before some ``[table]`` keys existed, as it reads now:
    a missing key had its default then (a presentation key takes the current value). So an
    existing journal written under the default configuration is not refused because the
    station learned new keys, while a non-default value of a new key is still a change."""
    table = recorded.get("table")
    if not isinstance(table, dict) or not isinstance(current.get("table"), dict):
        return recorded
    missing = [key for key in current["table"] if key not in table]
    if not missing:
        return recorded
    defaults = TableSection().model_dump(mode="json")
    filled = dict(table)
    for key in missing:
        filled[key] = current["table"][key] if key in PRESENTATION_KEYS else defaults.get(key)
    return {**recorded, "table": filled}


def recorded_rules(recorded: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """A journal's Configuration record as the rules it must match now: without the software
    that wrote it, keys learned since filled in (:func:`upgraded_record`), the table section
    read with today's defaults (:func:`with_defaults`)."""
    return with_defaults(upgraded_record(replay_rules(recorded), current))


def changed_keys(recorded: dict[str, Any], current: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two configuration records (an older record is
    read as :func:`upgraded_record` says)."""
    if not prefix:
        recorded = upgraded_record(recorded, current)
    keys = []
    for key in sorted(set(recorded) | set(current)):
        old, new = recorded.get(key), current.get(key)
        name = f"{prefix}{key}"
        if isinstance(old, dict) and isinstance(new, dict):
            keys += changed_keys(old, new, f"{name}.")
        elif old != new:
            keys.append(name)
    return keys


#: Dotted keys of the table's limits and chips: a supervisor changes them by an event, so a
#: journal written under other values of them is not refused; ``station run`` applies the
#: file's values as such a change (docs/limits.md).
LIMIT_CONFIG_KEYS = frozenset({"table.min_bet", "table.max_bet", "table.chips", "table.differential",
                               "table.tie_min", "table.tie_max", "table.pair_min", "table.pair_max",
                               "table.war.box_max", "table.war.player_max"})

#: What still needs a new journal when it changes, in the words of the refusal.
NEW_JOURNAL_KEYS = ("the game, its variant, the boxes and players per box, the standing regions, the decks, "
                    "the equipment and dealing style, the rounds after the cut and the cutting cards, the set "
                    "colours, the payouts (tie_pays, banker_payout, war.tie_pays ...), the side bets and their "
                    "limits, the region cap and "
                    "differential reduction, the currency and its minor digits, the time zone and gaming day "
                    "start, the burn on a dealer change, the buttons and the devices that read cards")


def journal_changes(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """The keys whose change means a journal cannot go on under this configuration: every
    changed key but the limits (:data:`LIMIT_CONFIG_KEYS`), which change by an event."""
    return [key for key in changed_keys(recorded_rules(recorded, current), current) if key not in LIMIT_CONFIG_KEYS]


def recorded_limits(recorded: dict[str, Any], current: dict[str, Any]) -> TableLimits:
    """The limits a journal's Configuration record started it under."""
    table = TableSection.model_validate(recorded_rules(recorded, current)["table"], strict=False)
    return TableLimits.from_settings(table)


def options_from_record(record: dict[str, Any], path: Path) -> CoreOptions:
    """The core's options as they were when a journal was written (for replay and recall)."""
    table = TableSection.model_validate(record["table"], strict=False)
    buttons = DealerSection(buttons=record.get("buttons", {})).buttons
    return _options(table, dict(buttons), list(record.get("round_devices", [])), path)


def core_options(config: TableConfiguration, path: Path) -> CoreOptions:
    """The core's options for this configuration; rule violations name the config key."""
    return _options(config.table, dict(config.dealer.buttons), _round_devices(config), path)


def _options(t: TableSection, buttons: dict[str, str], round_devices: list[str], path: Path) -> CoreOptions:
    try:
        table = game_named(t.game).table_from_settings(t)
    except TableOptionError as exc:
        raise ConfigError(path, [(f"table.{_KEYS.get(exc.field, exc.field)}", str(exc))]) from None
    try:
        return CoreOptions(
            game=t.game, equipment=t.equipment, dealing_style=t.dealing_style, decks=t.decks,
            rounds_after_cut=t.rounds_after_cut, set_colours=(t.set_colours[0], t.set_colours[1]),
            table=table, round_devices=frozenset(round_devices), buttons=buttons, cut_cards=t.cut_cards,
            burn_on_dealer_change=t.burn_on_dealer_change, limits=TableLimits.from_settings(t),
            progressive=None if t.progressive is None else ProgressiveSettings(
                **{**t.progressive.model_dump(), "member": t.progressive.member or "table"}),
            chips=None if t.chip_bets is None else ChipRules(t.chip_bets.confirm, t.chip_bets.hold_wrong_payment),
        )
    except CoreOptionError as exc:
        raise ConfigError(path, [("table", str(exc))]) from None


def journal_options(journal: Path, config_path: Path) -> CoreOptions | None:
    """The options recorded in an existing journal, or None when it holds no configuration."""
    from station.journal.store import JournalReader

    if not Path(journal).exists():
        return None
    with JournalReader(journal) as reader:
        record = reader.last_of_kind(CONFIGURATION_RECORD)
    return None if record is None else options_from_record(record.payload, config_path)
