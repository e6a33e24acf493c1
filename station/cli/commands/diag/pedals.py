"""``station diag pedals``: a press test of the dealer's pedals (or the serial button box)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from station.cli.commands.diag.shared import (
    device_options,
    need_kind,
    out,
    positive_float,
    refuse_if_busy,
    resolve,
    talks_to_devices,
)
from station.cli.main import CliError


def add_parser(sub: Any) -> None:
    pedals = sub.add_parser("pedals", help="press test: shows each press, then the buttons never pressed")
    device_options(pedals, default="pedals")
    pedals.add_argument("--seconds", type=positive_float, default=30.0, help="how long the test runs (default 30)")
    pedals.add_argument("--until-all", action="store_true", help="end as soon as every button has been pressed")
    pedals.add_argument("--json", action="store_true", help="print the tally as JSON at the end")
    pedals.set_defaults(handler=run)


@talks_to_devices
def run(args: argparse.Namespace) -> int:
    from station.diag.press_test import PressTally, corrupt_note, format_press, format_summary, run_press_test
    from station.diag.target import DiagError, EventSink, open_session

    target, config = resolve(args)
    need_kind(target, "pedals", "buttonbox")
    refuse_if_busy(target, config)
    actions: dict[str, str] = dict(config.dealer.buttons) if config is not None and target.kind == "pedals" else {}
    sink = EventSink()

    def watch_frames(driver: Any) -> None:
        def tap(direction: str, raw: bytes, decoded: Any) -> None:
            note = corrupt_note(direction, raw, decoded)
            if note is not None:
                sink.queue.put(note)

        driver.add_tap(tap)

    interrupted = False
    try:
        with open_session(target, sink, wait=args.wait, before_start=watch_frames) as session:
            driver: Any = session.driver
            buttons = tuple(driver.buttons.values()) if isinstance(driver.buttons, dict) else tuple(driver.buttons)
            tally = PressTally(buttons)
            try:  # from the header on: Ctrl-C right after it must still end with the summary
                if not args.json:
                    out(f"press test on {session.where()}")
                    until_all = " or when all are pressed" if args.until_all else ""
                    out(f"press each button, short and long: {', '.join(buttons)}; "
                        f"ending in {args.seconds:g} s{until_all} (Ctrl-C ends it)")
                run_press_test(
                    sink.queue, tally, seconds=args.seconds, until_all=args.until_all,
                    on_press=None if args.json else (lambda t, press: out(format_press(t, press, actions))),
                    on_fault=None if args.json else (lambda text: out(f"          {text}")),
                )
            except KeyboardInterrupt:
                interrupted = True
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    if args.json:
        out(json.dumps(tally.as_dict(actions), indent=2))
    else:
        out(format_summary(tally) + (" (interrupted)" if interrupted else ""))
    return 1 if tally.never_pressed else 0
