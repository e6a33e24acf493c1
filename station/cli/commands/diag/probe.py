"""``station diag probe``: a device's identity, status and link statistics; with only ``--url``,
whatever answers on a serial port."""

from __future__ import annotations

import argparse
import json
from typing import Any

from station.cli.commands.diag.shared import (
    configuration,
    device_options,
    out,
    refuse_if_busy,
    resolve,
    table_journal,
    talks_to_devices,
)
from station.cli.main import CliError


def add_parser(sub: Any) -> None:
    probe = sub.add_parser("probe", help="identity (model, serial, firmware), status and link statistics")
    device_options(probe, required=True)
    probe.add_argument("--json", action="store_true")
    probe.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from station.diag.probe import format_probe, probe
    from station.diag.target import DiagError, open_session

    if args.url and not args.kind and not args.device:
        return _identify_port(args)
    target, config = resolve(args)
    refuse_if_busy(target, config)
    try:
        with open_session(target, wait=args.wait) as session:
            report = probe(session)
            where = session.where()
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    out(json.dumps(report, indent=2) if args.json else format_probe(report, where))
    return 1 if report["errors"] else 0


def _identify_port(args: argparse.Namespace) -> int:
    """``probe --url PORT`` without ``--kind``: ask whatever is on a serial port who it is.

    Every station serial protocol shares the framing and ``Identify``, so this needs no kind
    (``drivers.probe``); it cannot read the device's status, which needs its kind.
    """
    from drivers.probe import probe as identify
    from station.config.devices import DeviceSection
    from station.diag.target import Target, check_free
    from station.service.holder import DeviceBusy

    if args.url.startswith(("usb://", "usb-sim:")):
        raise CliError("USB pedals are probed with --kind pedals", 2)
    port = Target(args.url, "unknown", DeviceSection(url=args.url, baudrate=args.baudrate or 115_200), configured=False)
    try:
        check_free(port, journal=table_journal(configuration(args, needed=False)))
    except DeviceBusy as exc:
        raise CliError(str(exc), 1) from None
    result = identify(args.url, baudrate=port.section.baudrate)
    if args.json:
        out(json.dumps({
            "url": result.url, "found": result.found, "error": result.error,
            "identity": vars(result.identity) if result.identity else None,
            "frames": [{"dir": d, "hex": h} for d, h in result.frames],
        }, indent=2))
    elif result.identity is not None:
        ident = result.identity
        out(f"{args.url}: model {ident.model}, serial {ident.serial}, firmware {ident.firmware}, "
            f"protocol version {ident.protocol_version}")
        out("  (give --kind to read its status and link statistics)")
    else:
        out(f"{args.url}: no station device found: {result.error}")
        for direction, raw in result.frames:
            out(f"  {direction}  {raw}")
    return 0 if result.found else 1
