"""``station diag chip-read``: the chip reader inventories each antenna; one line per antenna."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, cast

from station.cli.commands.diag.shared import device_options, need_kind, out, refuse_if_busy, resolve, talks_to_devices
from station.cli.main import CliError

if TYPE_CHECKING:
    from drivers.devices.chipreader import ChipReaderDriver


def add_parser(sub: Any) -> None:
    chip = sub.add_parser("chip-read", help="the chip reader: the chips each antenna reads, a faulted antenna named")
    device_options(chip, default="chipreader")
    chip.add_argument("--json", action="store_true")
    chip.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from drivers.devices import DeviceError
    from station.diag.chip_read import format_outcome, format_verdict, read_every_antenna
    from station.diag.target import DiagError, open_session

    target, config = resolve(args)
    need_kind(target, "chipreader")
    refuse_if_busy(target, config)
    try:
        with open_session(target, wait=args.wait) as session:
            if not args.json:
                out(f"chip read on {session.where()}")
            reader = cast("ChipReaderDriver", session.driver)  # need_kind made sure it is the chip reader
            try:
                report = read_every_antenna(reader, None if args.json else (lambda o: out(format_outcome(o))))
            except DeviceError as exc:
                raise CliError(f"the antenna list could not be read: {exc}", 1) from None
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    out(json.dumps(report.as_dict(), indent=2) if args.json else format_verdict(report))
    return 0 if report.passed else 1
