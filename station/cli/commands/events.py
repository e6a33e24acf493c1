"""``station events``: the significant-event log of a journal (docs/events.md)."""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from station.cli.main import CliError

_AGO = re.compile(r"^(\d+)([mhd])$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "events", help="the significant-event log: starts and stops, devices, doors, alarms, access, dealers",
        description="The significant events of the journal, oldest first, each with its time in the table's "
        "zone, the device and a stable code (docs/events.md). Read-only.")
    parser.add_argument("--since", metavar="WHEN", help="from WHEN: a gaming day (2026-12-01, from its "
                        "[table] gaming_day_start), a local time (2026-12-01 21:30), a time of day (09:00: the last "
                        "one past), a time ago (30m, 2h, 7d), or "
                        "'all' for the whole log (which reads the whole journal); by default the 24 hours up to "
                        "the journal's newest record")
    parser.add_argument("--code", action="append", metavar="CODE", help="only this code, or every code of this "
                        "family (station, device, integrity, journal, access, table); may be given again")
    parser.add_argument("--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL and the "
                        "configuration)")
    parser.add_argument("--config", metavar="FILE", help="station configuration (its journal path; the zone of a "
                        "journal that names none)")
    parser.add_argument("--json", action="store_true", help="one JSON array of events instead of lines")
    parser.set_defaults(handler=run)


def wanted_codes(given: list[str] | None) -> frozenset[str]:
    """The codes ``--code`` names (a family stands for its codes); an unknown one is an error."""
    from station.significant.codes import CODES, FAMILIES

    codes: set[str] = set()
    for name in given or ():
        if name in FAMILIES:
            codes.update(c.name for c in CODES.values() if c.family == name)
        elif name in CODES:
            codes.add(name)
        else:
            raise CliError(f"--code: no code or family {name!r}; the families are {', '.join(FAMILIES)}, the "
                           f"codes {', '.join(CODES)}")
    return frozenset(codes)


def since_time(text: str | None, zone_name: str, day_start: str, now: datetime | None = None) -> str:
    """``--since`` as a journal time (UTC), or "" for none."""
    from station.journal.store import format_time
    from station.localtime import day_start as parse_day_start
    from station.localtime import gaming_day_bounds, zone

    if not text:
        return ""
    text = text.strip()
    ago = _AGO.match(text)
    if ago:
        moment = (now or datetime.now(UTC)) - timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
        return format_time(moment)
    tz = zone(zone_name)
    clock = _CLOCK.match(text)
    if clock:  # a time of day: its last occurrence in the table's zone (today's, or yesterday's)
        wall_now = (now or datetime.now(UTC)).astimezone(tz)
        hour, minute = int(clock.group(1)), int(clock.group(2))
        if hour > 23 or minute > 59:
            raise CliError(f"--since: {text!r} is not a time of day (09:00)")
        moment = wall_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        return format_time(moment if moment <= wall_now else moment - timedelta(days=1))
    try:
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d").date()
            return format_time(gaming_day_bounds(day, tz, parse_day_start(day_start))[0])
        wall = datetime.fromisoformat(text.replace(" ", "T"))
    except ValueError:
        raise CliError(f"--since: {text!r} is not a day (2026-12-01), a local time (2026-12-01 21:30), a time "
                       "of day (09:00) or a time ago (30m, 2h, 7d)") from None
    return format_time(wall.replace(tzinfo=tz) if wall.tzinfo is None else wall)


def run(args: argparse.Namespace) -> int:
    from station.cli.commands.recall import journal_and_options, journal_gaming_day_start, journal_timezone
    from station.cli.progress import Progress
    from station.journal import JournalError
    from station.localtime import DEFAULT_GAMING_DAY_START, zone
    from station.significant.log import as_rows, read_log

    codes = wanted_codes(args.code)
    path, options, config_path = journal_and_options(args.journal, args.config)
    try:
        zone_name = journal_timezone(path, config_path)
        if args.since is not None and args.since.strip() == "all":
            with Progress.of_journal("events: the whole log", path) as progress:
                found = read_log(path, options, codes=codes, progress=progress)
        else:
            when = args.since if args.since is not None else _day_before_newest(path)
            since = since_time(when, zone_name, journal_gaming_day_start(path) or DEFAULT_GAMING_DAY_START)
            found = read_log(path, options, since=since, codes=codes)
        rows = as_rows(found, zone(zone_name))
    except JournalError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print(f"no significant events in {path} for what was asked"
              + ("" if args.since else " (the last 24 hours of the journal; --since all for the whole log)"))
    else:
        from station.cli.width import hanging, output_width

        width = output_width()
        for row in rows:
            prefix = f"{row['local_time']}  #{row['seq']:<7} {row['code']:<26} {row['device']:<10} "
            # The text goes on under the record's number: under its own column it would have
            # a third of a line.
            print("\n".join(hanging(prefix, row["text"], width, indent=len(row["local_time"]) + 2)))
    return 0


def _day_before_newest(path: Any) -> str:
    """24 hours before the journal's newest record, as ``--since`` takes a time: the default
    window, which follows the table's own last day rather than the clock of who asks."""
    from station.journal import JournalReader
    from station.localtime import parse_journal_time

    with JournalReader(path) as reader:
        newest = reader.last()
    if newest is None:
        return ""
    return (parse_journal_time(newest.time) - timedelta(hours=24)).isoformat()
