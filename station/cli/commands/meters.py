"""``station meters``: the table's figures per gaming day, dealer session, dealer and shoe.

Read-only, from the journal (docs/meters.md), so the figures are the same after any restart.
Exit status 0 with the report, 1 when ``--dealer`` names nobody who dealt here, 2 for a bad
command line or a journal that cannot be read.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.cli.main import CliError

if TYPE_CHECKING:
    from station.core.options import CoreOptions
    from station.meters.report import Table
    from station.service.config import LoadedConfig


def _day(text: str) -> str:
    if text == "all":
        return text
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date written YYYY-MM-DD, or 'all', got {text!r}") from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "meters",
        help="the table's meters per gaming day, dealer session and shoe",
        description="The table's figures from the journal (read-only): rounds and rounds per hour, bets, stakes "
        "and the house's result by region, commission, void parts, voided rounds, corrections, refusals, "
        "irregularities and integrity alarms, per gaming day, dealer session, dealer and shoe. Without --day, "
        "the last gaming day with play. See docs/meters.md.",
    )
    parser.add_argument("--day", type=_day, metavar="DATE",
                        help="the gaming day YYYY-MM-DD (it begins at [table] gaming_day_start), or 'all'")
    parser.add_argument("--dealer", metavar="NAME", help="only the play dealt by this dealer")
    parser.add_argument("--json", action="store_true", help="one JSON object (docs/meters.md gives its schema)")
    parser.add_argument("--from-start", action="store_true",
                        help="read every record instead of starting at the newest checkpoint (slower; the same "
                        "figures: an audit of the checkpoints)")
    parser.add_argument(
        "--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL and the configuration)"
    )
    parser.add_argument("--config", metavar="FILE", help="station configuration (its journal path; the table's "
                        "zone and currency for a journal too old to record them)")
    # A checkpoint passed over is logged on stderr while the command runs: standard output is the
    # report (diag's set-up for its device logs does the same).
    from station.cli.commands.diag.shared import talks_to_devices

    parser.set_defaults(handler=talks_to_devices(run), log_level="warning")


def run(args: argparse.Namespace) -> int:
    # Imported here so other commands stay light.
    from pydantic import ValidationError

    from station.config.errors import ConfigError
    from station.journal import JournalError
    from station.journal.location import journal_path
    from station.meters.reading import read_meters
    from station.meters.render import render
    from station.meters.report import NoSuchDealer, build_report
    from station.service.config import load_config

    try:
        loaded = load_config(Path(args.config)) if args.config else None
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    configured = (loaded.config.station.journal or None) if loaded is not None else None
    path = journal_path(args.journal, configured)
    try:
        table, options = _table(path, loaded)
        reading = read_meters(path, options, table.timezone, table.gaming_day_start, from_start=args.from_start)
    except (ConfigError, JournalError) as exc:
        raise CliError(str(exc)) from None
    except ValidationError as exc:  # a configuration record of software that knows other [table] keys
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CliError(f"{path}: its configuration record is not one this station reads: table.{where}: "
                       f"{first['msg']} (read it with the software that wrote it)") from None
    try:
        report = build_report(reading.parts, table, journal=str(path), day=args.day, dealer=args.dealer,
                              read=reading.read())
    except NoSuchDealer as exc:
        raise CliError(str(exc), 1) from None
    from station.cli.width import output_width

    print(json.dumps(report, indent=2) if args.json else render(report, output_width()))
    return 0


def _table(path: Path, loaded: LoadedConfig | None) -> tuple[Table, CoreOptions | None]:
    """How the journal's table counts and writes its figures, and the core's options to replay
    it: as its last configuration record says; for what it does not say, the configuration
    file's (``--config``), else the defaults."""
    from station.config.options import CONFIGURATION_RECORD, core_options, options_from_record
    from station.config.table import TableSection
    from station.journal import JournalError, JournalReader
    from station.localtime import DEFAULT_GAMING_DAY_START, DEFAULT_TIMEZONE
    from station.meters.report import Table

    if not path.exists():
        raise JournalError(f"no journal at {path}")
    with JournalReader(path) as reader:
        record = reader.last_of_kind(CONFIGURATION_RECORD)
    fallback = loaded.config.table if loaded is not None else TableSection()
    recorded = record.payload.get("table", {}) if record is not None else {}
    recorded = recorded if isinstance(recorded, dict) else {}

    def value(key: str, default: Any) -> Any:
        found = recorded.get(key, getattr(fallback, key, default))
        return found if isinstance(found, type(default)) else default

    table = Table(game=value("game", "baccarat"), currency=value("currency", ""),
                  minor_digits=value("minor_digits", 2), timezone=value("timezone", DEFAULT_TIMEZONE),
                  gaming_day_start=value("gaming_day_start", DEFAULT_GAMING_DAY_START),
                  cash_log_at=value("cash_log_at", 300_000), cash_report_over=value("cash_report_over", 1_000_000))
    options: CoreOptions | None = None
    if record is not None:
        options = options_from_record(record.payload, loaded.path if loaded is not None else path)
    elif loaded is not None:
        options = core_options(loaded.config, loaded.path)
    return table, options
