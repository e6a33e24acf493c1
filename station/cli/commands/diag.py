"""``station diag``: technicians' diagnostics for the table's devices, real or simulated.

    station diag ports [--json]                       serial ports (by-id links) and USB devices
    station diag probe DEVICE                         identity, firmware, status, link statistics
    station diag monitor DEVICE [--count N] [--seconds S] [--raw|--json]
                                                      live frames, decoded and in hex
    station diag selftest                             every configured device tests itself
    station diag deck-check [DEVICE]                  the shuffler's count per rank and suit
    station diag display-test [DEVICE]                test pattern and one of everything
    station diag pedals [DEVICE] [--seconds S]        press test

DEVICE is a configured name (shoe, shuffler, display, pedals, buttonbox) from the station's
configuration (-c FILE, else $STATION_CONFIG, else the default), or the device is given
directly with --url (a serial path, /dev/serial/by-id/..., socket://host:port,
usb://VID:PID?serial=..., usb-sim:///socket?serial=...) and --kind.

Anything that talks to a device is refused (exit 1) while the running station service holds
that device, and everything is refused while a round is live. Exit status: 0 all good,
1 a failure or refusal, 2 a usage or configuration error.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from typing import Any

from station.cli.main import CliError

DEVICE_KINDS = ("shoe", "shuffler", "display", "buttonbox", "pedals")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diag",
        help="technicians' diagnostics: ports, probe, monitor, selftest, deck-check, display-test, pedals",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-c", "--config", help="station configuration file (default: $STATION_CONFIG or the default)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                        help="driver log lines on stderr from this level (default: warning)")
    sub = parser.add_subparsers(dest="diag_command", metavar="SUBCOMMAND", required=True)

    ports = sub.add_parser("ports", help="serial ports with by-id links, USB devices with VID:PID and serial")
    ports.add_argument("--json", action="store_true")
    ports.set_defaults(handler=_ports)

    probe = sub.add_parser("probe", help="identity (model, serial, firmware), status and link statistics")
    _device_options(probe, required=True)
    probe.add_argument("--json", action="store_true")
    probe.set_defaults(handler=_probe)

    monitor = sub.add_parser("monitor", help="live frames to and from a device, decoded and in raw hex")
    _device_options(monitor, required=True)
    monitor.add_argument("--count", type=_positive_int, help="stop after N frames from the device")
    monitor.add_argument("--seconds", type=_positive_float, help="stop after S seconds")
    shape = monitor.add_mutually_exclusive_group()
    shape.add_argument("--raw", action="store_true", help="raw hex only, one line per frame (no decoding)")
    shape.add_argument("--json", action="store_true", help="one JSON object per frame or event")
    monitor.set_defaults(handler=_monitor)

    selftest = sub.add_parser("selftest", help="every configured device: connect and self-test")
    selftest.add_argument("--wait", type=_positive_float, default=5.0, help="seconds to wait for each device (default 5)")
    selftest.add_argument("--json", action="store_true")
    selftest.set_defaults(handler=_selftest)

    deck = sub.add_parser("deck-check", help="the shuffler's card count per rank and suit")
    _device_options(deck, default="shuffler")
    deck.add_argument("--json", action="store_true")
    deck.set_defaults(handler=_deck_check)

    display = sub.add_parser("display-test", help="test pattern, limits, result, roads, brightness, clear")
    _device_options(display, default="display")
    display.add_argument("--pause", type=float, default=1.0, help="seconds between steps, to look at the board (default 1)")
    display.add_argument("--json", action="store_true")
    display.set_defaults(handler=_display_test)

    pedals = sub.add_parser("pedals", help="press test: shows each press, then the buttons never pressed")
    _device_options(pedals, default="pedals")
    pedals.add_argument("--seconds", type=_positive_float, default=30.0, help="how long the test runs (default 30)")
    pedals.add_argument("--until-all", action="store_true", help="end as soon as every button has been pressed")
    pedals.add_argument("--json", action="store_true", help="print the tally as JSON at the end")
    pedals.set_defaults(handler=_pedals)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _device_options(parser: argparse.ArgumentParser, *, required: bool = False, default: str | None = None) -> None:
    help_text = "configured device name" + (f" (default: {default})" if default else "")
    parser.add_argument("device", nargs="?", metavar="DEVICE", help=help_text + (" (or give --url)" if required else ""))
    parser.add_argument("--url", help="talk to this port or locator instead of the configured one")
    parser.add_argument("--kind", choices=DEVICE_KINDS, help="what the device at --url is")
    parser.add_argument("--baudrate", type=_positive_int, help="serial speed (default: configured, else 115200)")
    parser.add_argument("--wait", type=_positive_float, default=5.0, help="seconds to wait for the device to answer (default 5)")
    parser.set_defaults(default_kind=default)


# --- shared plumbing ---------------------------------------------------------------------------


class _Stderr:
    """Whatever ``sys.stderr`` is at the moment of writing (it may be replaced after set-up)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def _talks_to_devices(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Driver log lines go to stderr while the command runs, so stdout stays the report (and
    valid JSON with --json); the process's previous logging set-up is put back afterwards."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        import structlog

        from station.service.logging import configure_logging

        previous = structlog.get_config()
        configure_logging("console", args.log_level, stream=_Stderr())  # type: ignore[arg-type]
        try:
            return handler(args)
        finally:
            structlog.configure(**previous)

    return run


def _config(args: argparse.Namespace, *, needed: bool) -> Any:
    """The configuration (a ``StationConfig``), or ``None`` when it is not needed and not there."""
    from station.service.config import ConfigError, load_config
    from station.service.paths import default_config_path

    path = args.config or default_config_path()
    try:
        return load_config(path).config
    except ConfigError as exc:
        if needed or args.config:
            raise CliError(str(exc), 2) from None
        return None


def _target(args: argparse.Namespace) -> tuple[Any, Any]:
    """The :class:`~station.diag.target.Target` and the configuration (``None`` if there is none)."""
    from station.diag.target import DiagError, resolve_target

    config = _config(args, needed=not args.url)
    try:
        return resolve_target(
            config.devices if config is not None else None, args.device, args.url, args.kind,
            args.default_kind, args.baudrate,
        ), config
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None


def _refuse_if_busy(target: Any) -> None:
    from station.diag.target import check_free
    from station.service.holder import DeviceBusy

    try:
        check_free(target)
    except DeviceBusy as exc:
        raise CliError(str(exc), 1) from None


def _out(text: str) -> None:
    print(text, flush=True)


def _need_kind(target: Any, *kinds: str) -> None:
    if target.kind not in kinds:
        raise CliError(f"{target.name} is a {target.kind}; this test needs a {' or '.join(kinds)}", 2)


# --- sub-commands ------------------------------------------------------------------------------


def _ports(args: argparse.Namespace) -> int:
    from station.diag.ports import ports_report

    report = ports_report(json_output=args.json)
    _out(json.dumps(report, indent=2) if args.json else str(report))
    return 0


@_talks_to_devices
def _probe(args: argparse.Namespace) -> int:
    from station.diag.probe import format_probe, probe
    from station.diag.target import DiagError, open_session

    if args.url and not args.kind and not args.device:
        return _identify_port(args)
    target, _ = _target(args)
    _refuse_if_busy(target)
    try:
        with open_session(target, wait=args.wait) as session:
            report = probe(session)
            where = session.where()
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    _out(json.dumps(report, indent=2) if args.json else format_probe(report, where))
    return 1 if report["errors"] else 0


def _identify_port(args: argparse.Namespace) -> int:
    """``probe --url PORT`` without ``--kind``: ask whatever is on a serial port who it is.

    Every station serial protocol shares the framing and ``Identify``, so this needs no kind
    (``drivers.probe``); it cannot read the device's status, which needs its kind.
    """
    from drivers.probe import probe as identify
    from station.diag.target import Target, check_free
    from station.service.config import DeviceSection
    from station.service.holder import DeviceBusy

    if args.url.startswith(("usb://", "usb-sim:")):
        raise CliError("USB pedals are probed with --kind pedals", 2)
    port = Target(args.url, "unknown", DeviceSection(url=args.url, baudrate=args.baudrate or 115_200), configured=False)
    try:
        check_free(port)
    except DeviceBusy as exc:
        raise CliError(str(exc), 1) from None
    result = identify(args.url, baudrate=port.section.baudrate)
    if args.json:
        _out(json.dumps({
            "url": result.url, "found": result.found, "error": result.error,
            "identity": vars(result.identity) if result.identity else None,
            "frames": [{"dir": d, "hex": h} for d, h in result.frames],
        }, indent=2))
    elif result.identity is not None:
        ident = result.identity
        _out(f"{args.url}: model {ident.model}, serial {ident.serial}, firmware {ident.firmware}")
        _out("  (give --kind to read its status and link statistics)")
    else:
        _out(f"{args.url}: no station device found: {result.error}")
        for direction, raw in result.frames:
            _out(f"  {direction}  {raw}")
    return 0 if result.found else 1


@_talks_to_devices
def _monitor(args: argparse.Namespace) -> int:
    from drivers.devices import PedalDriver
    from station.diag.monitor import FrameMonitor, json_line, run_monitor
    from station.diag.target import DiagError, EventSink, open_session

    target, _ = _target(args)
    _refuse_if_busy(target)
    holder: dict[str, FrameMonitor] = {}

    def attach(driver: Any) -> None:
        monitor = FrameMonitor(driver if isinstance(driver, PedalDriver) else None)
        holder["monitor"] = monitor
        driver.add_tap(monitor.tap)

    def emit_line(line: Any) -> None:
        if args.json:
            _out(json_line(line))
        else:
            text = line.render(raw_only=args.raw)
            if text:
                _out(text)

    sink = EventSink(lambda event: holder["monitor"].event(event) if "monitor" in holder else None)
    interrupted = False
    try:
        with open_session(target, sink, wait=args.wait, before_start=attach) as session:
            monitor = holder["monitor"]
            try:  # from the header on: Ctrl-C right after it must still end with the summary
                if not args.json:
                    bound = [f"{args.count} frames" if args.count else "", f"{args.seconds:g} s" if args.seconds else ""]
                    until = " or ".join(b for b in bound if b) or "Ctrl-C"
                    _out(f"monitoring {session.where()} until {until}")
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
        _out(f"{monitor.device_frames} frame(s) from the device, {monitor.corrupt_frames} corrupt"
             + (" (interrupted)" if interrupted else ""))
    return 0


@_talks_to_devices
def _selftest(args: argparse.Namespace) -> int:
    from station.diag.selftest import check_device, format_verdict, targets

    config = _config(args, needed=True)
    found = targets(config.devices)
    if not found:
        raise CliError("no devices are configured ([devices.*] sections)", 2)
    for target in found:  # refuse before touching anything
        _refuse_if_busy(target)
    verdicts = []
    if not args.json:
        _out(f"self-test of {len(found)} configured device(s)")
    for target in found:
        verdict = check_device(target, wait=args.wait)
        verdicts.append(verdict)
        if not args.json:
            _out(format_verdict(verdict))
    failed = [v.device for v in verdicts if not v.passed]
    if args.json:
        _out(json.dumps({"passed": not failed, "devices": [v.as_dict() for v in verdicts]}, indent=2))
    else:
        _out(f"FAILED: {', '.join(failed)}" if failed else "all devices passed")
    return 1 if failed else 0


@_talks_to_devices
def _deck_check(args: argparse.Namespace) -> int:
    from drivers.devices import DeviceError
    from station.diag.deck import deck_report, format_deck
    from station.diag.target import DiagError, open_session

    target, _ = _target(args)
    _need_kind(target, "shuffler")
    _refuse_if_busy(target)
    try:
        with open_session(target, wait=args.wait) as session:
            try:
                check = session.driver.deck_check()  # type: ignore[union-attr]
            except DeviceError as exc:
                raise CliError(f"deck check failed: {exc}", 1) from None
            where = session.where()
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    report = deck_report(check)
    _out(json.dumps(report, indent=2) if args.json else format_deck(report, where))
    return 0 if report["complete"] else 1


@_talks_to_devices
def _display_test(args: argparse.Namespace) -> int:
    from station.diag.display_test import format_step, run_display_test
    from station.diag.target import DiagError, open_session

    target, config = _target(args)
    _need_kind(target, "display")
    _refuse_if_busy(target)
    limits = (config.table.min_bet, config.table.max_bet) if config is not None else (1000, 500_000)
    try:
        with open_session(target, wait=args.wait) as session:
            if not args.json:
                _out(f"display test on {session.where()}")
            steps = run_display_test(
                session.driver, limits=limits, pause=max(0.0, args.pause),  # type: ignore[arg-type]
                on_step=None if args.json else (lambda step: _out(format_step(step))),
            )
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    failed = [s.name for s in steps if not s.passed]
    if args.json:
        _out(json.dumps({"passed": not failed, "steps": [vars(s) for s in steps]}, indent=2))
    else:
        _out(f"FAILED: {', '.join(failed)}" if failed else "display test passed")
    return 1 if failed else 0


@_talks_to_devices
def _pedals(args: argparse.Namespace) -> int:
    from station.diag.press_test import PressTally, corrupt_note, format_press, format_summary, run_press_test
    from station.diag.target import DiagError, EventSink, open_session

    target, config = _target(args)
    _need_kind(target, "pedals", "buttonbox")
    _refuse_if_busy(target)
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
                    _out(f"press test on {session.where()}")
                    _out(f"press each button, short and long: {', '.join(buttons)}; "
                         f"ending in {args.seconds:g} s{' or when all are pressed' if args.until_all else ''} (Ctrl-C ends it)")
                run_press_test(
                    sink.queue, tally, seconds=args.seconds, until_all=args.until_all,
                    on_press=None if args.json else (lambda t, press: _out(format_press(t, press, actions))),
                    on_fault=None if args.json else (lambda text: _out(f"          {text}")),
                )
            except KeyboardInterrupt:
                interrupted = True
    except DiagError as exc:
        raise CliError(str(exc), exc.status) from None
    if args.json:
        _out(json.dumps(tally.as_dict(actions), indent=2))
    else:
        _out(format_summary(tally) + (" (interrupted)" if interrupted else ""))
    return 1 if tally.never_pressed else 0

