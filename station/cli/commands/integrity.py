"""``station integrity report``: per shoe, the composition account, the edge curve, the tests
and their p-values, the deck checks and the alerts (docs/integrity.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from station.cli.main import CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "integrity", help="game integrity: the report of a journal's shoes",
        description="Game integrity (docs/integrity.md). 'report' replays the journal read-only and shows, per "
        "shoe, the cards read against the decks, the edge of each wager after each round, the tests of the "
        "first cards and of the results with their p-values, the deck checks and the alarms and alerts.",
    )
    actions = parser.add_subparsers(dest="integrity_command", metavar="ACTION", required=True)
    report = actions.add_parser("report", help="per shoe: account, edges, tests, alerts")
    report.add_argument("--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL and the "
                        "configuration)")
    report.add_argument("--config", metavar="FILE", help="station configuration (table rules, journal path, "
                        "[integrity] settings)")
    report.add_argument("--shoe", type=int, metavar="N", help="only shoe N")
    report.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from station.cli.progress import Progress
    from station.config.errors import ConfigError
    from station.config.options import core_options, journal_options
    from station.integrity.report import describe_shoe, integrity_report, shoe_report
    from station.journal import JournalError
    from station.journal.location import journal_path
    from station.service.config import load_config

    try:
        loaded = load_config(args.config)
        options = core_options(loaded.config, loaded.path)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    section = loaded.config.integrity
    settings = section.monitor_settings()
    path = journal_path(args.journal, loaded.config.station.journal or None)
    try:
        options = journal_options(path, loaded.path) or options
        if args.shoe is not None:
            report = shoe_report(path, options, settings, args.shoe)
        else:
            with Progress.of_journal("integrity report: every shoe", path) as progress:
                report = integrity_report(path, options, settings, progress=progress)
    except JournalError as exc:
        raise CliError(str(exc)) from None
    if args.shoe is not None and not report["shoes"]:
        raise CliError(f"no shoe {args.shoe} in {path}", 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    from station.cli.width import fitted, output_width

    width = output_width()
    lines = [f"{path}: {options.game}, {options.decks} decks, {options.equipment}; "
             f"{len(report['shoes'])} shoe(s); alerts raised: "
             + (", ".join(f"{k} {v}" for k, v in report["alert_counts"].items()) or "none")]
    for shoe in report["shoes"]:
        lines += ["", *describe_shoe(shoe).splitlines()]
    for alert in report["other_alerts"] if args.shoe is None else []:
        lines.append(f"{alert['severity'].upper()} #{alert['ident']} {alert['code']}: {alert['detail']}")
    print("\n".join(fitted(lines, width)))
    return 0
