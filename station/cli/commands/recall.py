"""``station recall``: any past round from the journal, with every card, bet and decision."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from station.cli.main import CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "recall",
        help="show past rounds from the journal",
        description="Show past rounds (every card, the bets, the decisions, the settlement) from the journal, "
        "read-only: only the stretch of it they were dealt in, from the checkpoint before them. Without --round, "
        "--day or --last, shows the last 10 rounds.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--last", type=int, metavar="N",
                       help="the last N rounds (0: every round in the journal, which reads all of it)")
    which.add_argument("--round", metavar="ID", help="one round by id, e.g. 12-34 (shoe 12, round 34)")
    which.add_argument("--day", metavar="DATE", help="the rounds of one gaming day, e.g. 2026-12-01 (from the "
                       "table's gaming day start, in its time zone)")
    parser.add_argument(
        "--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL and the configuration)"
    )
    parser.add_argument("--config", metavar="FILE", help="station configuration (table rules and journal path)")
    parser.add_argument("--json", action="store_true", help="one JSON array of rounds instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so other commands stay light.
    from station.config.errors import ConfigError
    from station.core.recall import describe

    path, options, config_path = journal_and_options(args.journal, args.config)
    last = 10 if args.last is None else args.last
    if last < 0:
        raise CliError("--last must be 0 or more")
    try:
        rounds = _rounds(args, path, options, config_path, last)
        _name_the_software(path, rounds)
        _local_times(path, config_path, rounds)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    if args.round and not rounds:
        raise CliError(f"no round {args.round} in {path}", 1)
    if args.json:
        print(json.dumps(rounds, indent=2))
    elif not rounds:
        print(f"no rounds in {path}" + (f" on gaming day {args.day}" if args.day else ""))
    else:
        # Amounts in the table's money as the journal's configuration (or the file) writes it.
        money = options.table.money if options.table is not None else None
        print("\n\n".join(describe({**r, "opened_at": r["opened"], "closed_at": r["closed"]}, money)
                            for r in rounds))
    return 0


def _rounds(args: argparse.Namespace, path: Path, options: Any, config_path: Path | None,
            last: int) -> list[dict[str, Any]]:
    """The rounds asked for, each read from only its stretch of the journal (every round for
    ``--last 0``, with the progress of that whole reading on standard error)."""
    from station.cli.progress import Progress
    from station.core.recall import recall_between, recall_last, recall_round, recall_rounds
    from station.journal import JournalError

    try:
        if args.round:
            try:
                found = recall_round(path, options, args.round)
            except ValueError:
                raise CliError(f"--round: {args.round!r} is not a round id; ids are <shoe>-<round>, "
                               "e.g. 12-34") from None
            return [found] if found is not None else []
        if args.day:
            start, end = gaming_day_times(path, config_path, args.day)
            return recall_between(path, options, start, end)
        if last == 0:
            with Progress.of_journal("recall: every round", path) as progress:
                return recall_rounds(path, options, progress=progress)
        return recall_last(path, options, last)
    except JournalError as exc:
        raise CliError(str(exc)) from None


def gaming_day_times(path: Path, config_path: Path | None, text: str) -> tuple[str, str]:
    """The journal times (UTC) gaming day ``text`` (YYYY-MM-DD) runs from and to, in the
    table's zone and from its gaming day start as the journal records them."""
    from datetime import datetime

    from station.journal.store import format_time
    from station.localtime import DEFAULT_GAMING_DAY_START, day_start, gaming_day_bounds, zone

    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d").date()
    except ValueError:
        raise CliError(f"--day: {text!r} is not a date (2026-12-01)") from None
    tz = zone(journal_timezone(path, config_path))
    start, end = gaming_day_bounds(day, tz, day_start(journal_gaming_day_start(path) or DEFAULT_GAMING_DAY_START))
    return format_time(start), format_time(end)


def journal_and_options(journal: str | None, config: str | None) -> tuple[Path, Any, Path | None]:
    """The journal a reading command reads, the options it replays under, and the
    configuration file named (if any). The journal says which configuration its rounds were
    dealt under, and that is what is used: a configuration file is read only when asked for
    (for its journal path), or for a journal too old to record its own."""
    from station.config.errors import ConfigError
    from station.config.options import core_options, journal_options
    from station.journal import JournalError
    from station.journal.location import journal_path
    from station.service.config import load_config

    configured_journal = None
    config_path = Path(config) if config else None
    try:
        if config_path is not None:
            configured_journal = load_config(config_path).config.station.journal or None
        path = journal_path(journal, configured_journal)
        options = journal_options(path, config_path or path)
        if options is None:
            loaded = load_config(config_path)
            options = core_options(loaded.config, loaded.path)
    except (ConfigError, JournalError) as exc:
        raise CliError(str(exc)) from None
    return path, options, config_path


def journal_timezone(path: Path, config_path: Path | None) -> str:
    """The zone people at the table read times in: the one the journal's configuration names
    (``[table] timezone``), else the configuration file's, else UTC."""
    from station.config.errors import ConfigError
    from station.config.options import CONFIGURATION_RECORD
    from station.journal import JournalReader
    from station.localtime import DEFAULT_TIMEZONE, timezone_problem
    from station.service.config import load_config

    with JournalReader(path) as reader:
        record = reader.last_of_kind(CONFIGURATION_RECORD)
    table = record.payload.get("table", {}) if record is not None else {}
    name = table.get("timezone") if isinstance(table, dict) else None
    if not isinstance(name, str) and config_path is not None:
        try:
            name = load_config(config_path).config.table.timezone
        except ConfigError:
            name = None
    return name if isinstance(name, str) and not timezone_problem(name) else DEFAULT_TIMEZONE


def journal_gaming_day_start(path: Path) -> str | None:
    """``[table] gaming_day_start`` as the journal's configuration records it."""
    from station.config.options import CONFIGURATION_RECORD
    from station.journal import JournalReader

    with JournalReader(path) as reader:
        record = reader.last_of_kind(CONFIGURATION_RECORD)
    table = record.payload.get("table", {}) if record is not None else {}
    start = table.get("gaming_day_start") if isinstance(table, dict) else None
    return start if isinstance(start, str) else None


def _local_times(path: Path, config_path: Path | None, rounds: list[dict[str, Any]]) -> None:
    """Times as people at the table read them (:func:`journal_timezone`). The journal's own UTC
    times stay in ``opened_at``/``closed_at``; ``opened``/``closed`` are local."""
    from station.localtime import local_time, zone

    name = journal_timezone(path, config_path)
    tz = zone(name)
    for round_ in rounds:
        round_["timezone"] = name
        round_["opened"] = local_time(round_.get("opened_at") or "", tz)
        round_["closed"] = local_time(round_.get("closed_at") or "", tz)
        for correction in round_.get("corrections", []):
            correction["local_time"] = local_time(correction["time"], tz)


def _name_the_software(path: Path, rounds: list[dict[str, Any]]) -> None:
    """Each round gets ``software``: the version of the station that had the journal open when
    the round began (from the journal's Configuration and Software records, found through its
    index of kinds in each file of its history)."""
    from station.config.options import CONFIGURATION_RECORD, SOFTWARE_KEY, SOFTWARE_RECORD
    from station.journal import JournalReader
    from station.journal.seams import chain

    found: list[tuple[int, str, str]] = []  # (seq, journal time, version)
    for item in chain(path):  # the archives of its first records too
        if not item.present:
            continue
        with JournalReader(item.path) as reader:
            for record in reader.of_kind(SOFTWARE_RECORD):
                found.append((record.seq, record.time, str(record.payload.get("version", ""))))
            for record in reader.of_kind(CONFIGURATION_RECORD):
                if SOFTWARE_KEY in record.payload:
                    found.append((record.seq, record.time, str(record.payload[SOFTWARE_KEY].get("version", ""))))
    versions = [(time, version) for _, time, version in sorted(found)]
    for round_ in rounds:
        began = round_.get("opened_at") or ""
        round_["software"] = next((v for t, v in reversed(versions) if t <= began), "") if began else ""
