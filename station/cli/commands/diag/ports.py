"""``station diag ports``: serial ports with their by-id links, USB devices with VID:PID and serial,
and the input devices that send keys (foot switches, keypads) with the evdev: URL for each."""

from __future__ import annotations

import argparse
import json
from typing import Any

from station.cli.commands.diag.shared import out


def add_parser(sub: Any) -> None:
    ports = sub.add_parser(
        "ports", help="serial ports with by-id links, USB devices with VID:PID and serial, foot switches and keypads"
    )
    ports.add_argument("--json", action="store_true")
    ports.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from station.diag.ports import ports_report

    report = ports_report(json_output=args.json)
    out(json.dumps(report, indent=2) if args.json else str(report))
    return 0
