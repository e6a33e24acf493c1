"""``station diag selftest``: every configured device connects and tests itself."""

from __future__ import annotations

import argparse
import json
from typing import Any

from station.cli.commands.diag.shared import configuration, out, positive_float, refuse_if_busy, talks_to_devices
from station.cli.main import CliError


def add_parser(sub: Any) -> None:
    selftest = sub.add_parser("selftest", help="every configured device: connect and self-test")
    selftest.add_argument(
        "--wait", type=positive_float, default=5.0, help="seconds to wait for each device (default 5)"
    )
    selftest.add_argument("--json", action="store_true")
    selftest.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from station.diag.selftest import check_device, format_verdict, targets

    config = configuration(args, needed=True)
    found = targets(config.devices)
    if not found:
        raise CliError("no devices are configured ([devices.*] sections)", 2)
    for target in found:  # refuse before touching anything
        refuse_if_busy(target, config)
    verdicts = []
    if not args.json:
        out(f"self-test of {len(found)} configured device(s)")
    for target in found:
        verdict = check_device(target, wait=args.wait)
        verdicts.append(verdict)
        if not args.json:
            out(format_verdict(verdict))
    failed = [v.device for v in verdicts if not v.passed]
    if args.json:
        out(json.dumps({"passed": not failed, "devices": [v.as_dict() for v in verdicts]}, indent=2))
    else:
        out(f"FAILED: {', '.join(failed)}" if failed else "all devices passed")
    return 1 if failed else 0
