"""``station diag sign-test``: the progressive sign shows its self-test, test amounts and a hit."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, cast

from station.cli.commands.diag.shared import device_options, need_kind, out, refuse_if_busy, resolve, talks_to_devices
from station.cli.main import CliError

if TYPE_CHECKING:
    from drivers.devices.sign import SignDriver


def add_parser(sub: Any) -> None:
    sign = sub.add_parser("sign-test", help="self-test, test amounts, a hit, a message, brightness, clear")
    device_options(sign, default="sign")
    sign.add_argument(
        "--pause", type=float, default=1.0, help="seconds between steps, to look at the sign (default 1)"
    )
    sign.add_argument("--json", action="store_true")
    sign.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from station.diag.display_test import format_step
    from station.diag.sign_test import run_sign_test
    from station.diag.target import DiagError, open_session

    target, config = resolve(args)
    need_kind(target, "sign")
    refuse_if_busy(target, config)
    money = (config.table.currency, config.table.minor_digits) if config is not None else ("", 2)
    try:
        with open_session(target, wait=args.wait) as session:
            if not args.json:
                out(f"sign test on {session.where()}")
            sign = cast("SignDriver", session.driver)  # need_kind made sure it is the sign
            steps = run_sign_test(
                sign, money=money, pause=max(0.0, args.pause),
                on_step=None if args.json else (lambda step: out(format_step(step))),
            )
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    failed = [s.name for s in steps if not s.passed]
    if args.json:
        out(json.dumps({"passed": not failed, "steps": [vars(s) for s in steps]}, indent=2))
    else:
        out(f"FAILED: {', '.join(failed)}" if failed else "sign test passed")
    return 1 if failed else 0
