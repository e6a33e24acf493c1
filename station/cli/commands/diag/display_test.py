"""``station diag display-test``: the display board shows a test pattern and one of everything."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, cast

from station.cli.commands.diag.shared import device_options, need_kind, out, refuse_if_busy, resolve, talks_to_devices
from station.cli.main import CliError

if TYPE_CHECKING:
    from drivers.devices.display import DisplayDriver


def add_parser(sub: Any) -> None:
    display = sub.add_parser("display-test", help="test pattern, limits, result, roads, brightness, clear")
    device_options(display, default="display")
    display.add_argument(
        "--pause", type=float, default=1.0, help="seconds between steps, to look at the board (default 1)"
    )
    display.add_argument("--json", action="store_true")
    display.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from station.diag.display_test import format_step, run_display_test
    from station.diag.target import DiagError, open_session

    target, config = resolve(args)
    need_kind(target, "display")
    refuse_if_busy(target, config)
    limits = (config.table.min_bet, config.table.max_bet) if config is not None else (1000, 500_000)
    money = (config.table.currency, config.table.minor_digits) if config is not None else ("", 2)
    try:
        with open_session(target, wait=args.wait) as session:
            if not args.json:
                out(f"display test on {session.where()}")
            display = cast("DisplayDriver", session.driver)  # need_kind made sure it is the display
            steps = run_display_test(
                display, limits=limits, money=money, pause=max(0.0, args.pause),
                on_step=None if args.json else (lambda step: out(format_step(step))),
            )
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    failed = [s.name for s in steps if not s.passed]
    if args.json:
        out(json.dumps({"passed": not failed, "steps": [vars(s) for s in steps]}, indent=2))
    else:
        out(f"FAILED: {', '.join(failed)}" if failed else "display test passed")
    return 1 if failed else 0
