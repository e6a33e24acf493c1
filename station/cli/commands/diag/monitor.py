"""``station diag monitor``: every frame to and from a device, decoded and in raw hex, live."""

from __future__ import annotations

import argparse
from typing import Any

from station.cli.commands.diag.shared import (
    device_options,
    out,
    positive_float,
    positive_int,
    refuse_if_busy,
    resolve,
    talks_to_devices,
)
from station.cli.main import CliError


def add_parser(sub: Any) -> None:
    monitor = sub.add_parser("monitor", help="live frames to and from a device, decoded and in raw hex")
    device_options(monitor, required=True)
    monitor.add_argument("--count", type=positive_int, help="stop after N frames from the device")
    monitor.add_argument("--seconds", type=positive_float, help="stop after S seconds")
    shape = monitor.add_mutually_exclusive_group()
    shape.add_argument("--raw", action="store_true", help="raw hex only, one line per frame (no decoding)")
    shape.add_argument("--json", action="store_true", help="one JSON object per frame or event")
    monitor.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from drivers.devices import PedalDriver
    from station.diag.monitor import FrameLine, FrameMonitor, json_line, run_monitor
    from station.diag.target import DiagError, EventSink, open_session

    target, config = resolve(args)
    refuse_if_busy(target, config)
    holder: dict[str, FrameMonitor] = {}

    def attach(driver: Any) -> None:
        monitor = FrameMonitor(driver if isinstance(driver, PedalDriver) else None)  # pedal reports name buttons
        holder["monitor"] = monitor
        driver.add_tap(monitor.tap)

    def emit_line(line: FrameLine) -> None:
        if args.json:
            out(json_line(line))
        else:
            text = line.render(raw_only=args.raw)
            if text:
                out(text)

    sink = EventSink(lambda event: holder["monitor"].event(event) if "monitor" in holder else None)
    interrupted = False
    try:
        with open_session(target, sink, wait=args.wait, before_start=attach) as session:
            monitor = holder["monitor"]
            try:  # from the header on: Ctrl-C right after it must still end with the summary
                if not args.json:
                    bound = [
                        f"{args.count} frames" if args.count else "", f"{args.seconds:g} s" if args.seconds else ""
                    ]
                    until = " or ".join(b for b in bound if b) or "Ctrl-C"
                    out(f"monitoring {session.where()} until {until}")
                run_monitor(monitor, emit_line, count=args.count, seconds=args.seconds)
            except KeyboardInterrupt:
                interrupted = True
            while not monitor.lines.empty():  # what arrived before the bound was reached
                line = monitor.lines.get_nowait()
                if line.direction == "event":
                    emit_line(line)
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    if not args.json:
        out(f"{monitor.device_frames} frame(s) from the device, {monitor.corrupt_frames} corrupt"
            + (" (interrupted)" if interrupted else ""))
    return 0
