"""``station simulate pedals``: a simulated pedal unit on a Unix socket, driven by commands.

The ``simulate`` command (in ``station/cli``) calls :func:`add_arguments` and :func:`run`.
It prints the ``usb-sim://`` URL to configure in the station, then reads one command per
line from standard input (and first from ``--script``), answering ``ok`` or ``error: ...``::

    press left | release left | click right [N] | long centre | hold left
    unplug | replug | corrupt [N] [checksum|truncate|garbage|report-id|semantic|oversize]
    duplicate [N] | drop [N] | stall [persistent] | unstall | slow SECONDS | hang | unhang
    switch-fault stuck|open|none | status | sleep SECONDS | help | quit

End of input does not stop the simulator (it may run with no terminal); ``quit``, Ctrl-C or
SIGTERM do. Run it directly with ``python -m drivers.simulators.pedals.console`` as well.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from typing import TextIO

from drivers.simulators.launch import start_simulator
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.faults import CORRUPTIONS, SimulatorError
from drivers.usb import protocol as p

HELP = """\
press B | release B       push / let go of button B (name, or number from 1)
click B [N]               N short presses
long B | hold B           a whole long press / push and hold past the threshold
unplug | replug           pull / reinsert the cable
corrupt [N] [HOW]         damage the next N reports (HOW: checksum by default)
duplicate [N] | drop [N]  deliver the next N reports twice / lose them in the device
stall [persistent]        halt the interrupt endpoint (persistent: clearing does not help)
unstall                   end a stall
slow SECONDS              delay every new report (0 ends it)
hang | unhang             firmware stops / resumes answering, still enumerated
switch-fault stuck|open|none   what the next self-test reports
status | sleep SECONDS | help | quit"""


def default_socket_path() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "station-pedals-sim.sock")
    return os.path.join(tempfile.gettempdir(), f"station-pedals-sim-{os.getuid()}.sock")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--socket", default=None,
        help="Unix socket to serve on (default: $XDG_RUNTIME_DIR/station-pedals-sim.sock, else /tmp)",
    )
    parser.add_argument("--serial", default="PED-SIM-0001", help="USB serial number string (default: %(default)s)")
    parser.add_argument(
        "--buttons", default=",".join(p.DEFAULT_BUTTONS), help="comma-separated button names (default: %(default)s)"
    )
    parser.add_argument(
        "--firmware", default="1.02", help="firmware version MAJOR.MINOR for bcdDevice (default: %(default)s)"
    )
    parser.add_argument(
        "--long-press-ms", type=int, default=p.DEFAULT_LONG_PRESS_MS,
        help="hold time for a long press (default: %(default)s)",
    )
    parser.add_argument(
        "--no-kernel-driver", action="store_true", help="simulate a system where no OS driver is bound to the pedals"
    )
    parser.add_argument("--script", default=None, help="file of commands to run before reading standard input")
    parser.add_argument(
        "--protocol-version", type=int, choices=list(p.PROTOCOL_VERSIONS), default=p.PROTOCOL_VERSION,
        help="the pedal protocol version the unit speaks (default: %(default)s; 1 has the CRC-8 reports)",
    )


class CommandError(ValueError):
    """A command line the simulator does not understand."""


def _count(args: list[str], default: int = 1) -> int:
    if not args:
        return default
    if not args[0].isdigit() or int(args[0]) < 1:
        raise CommandError(f"{args[0]!r} is not a positive whole number")
    return int(args[0])


def _seconds(args: list[str]) -> float:
    try:
        value = float(args[0])
    except (IndexError, ValueError):
        raise CommandError("expected a number of seconds") from None
    if value < 0:
        raise CommandError("seconds cannot be negative")
    return value


def execute(pedal: SimulatedPedal, line: str) -> str | None:
    """Carry out one command; return what to print (``None`` for ``quit``)."""
    words = line.split("#", 1)[0].split()
    if not words:
        return ""
    command, args = words[0].lower(), words[1:]
    button: Callable[[], str] = lambda: args[0] if args else _missing("a button name or number")  # noqa: E731
    try:
        if command == "press":
            pedal.press(button())
        elif command == "release":
            pedal.release(button())
        elif command == "click":
            pedal.click(button(), _count(args[1:]))
        elif command == "long":
            pedal.long_press(button())
        elif command == "hold":
            pedal.hold_long(button())
        elif command == "unplug":
            pedal.unplug()
        elif command == "replug":
            pedal.replug()
        elif command == "corrupt":
            count = _count(args[:1]) if args and args[0].isdigit() else 1
            rest = args[1:] if args and args[0].isdigit() else args
            pedal.corrupt_next(count, rest[0] if rest else "checksum")
        elif command == "duplicate":
            pedal.duplicate_next(_count(args))
        elif command == "drop":
            pedal.drop_next(_count(args))
        elif command == "stall":
            pedal.stall(persistent=bool(args) and args[0] == "persistent")
        elif command == "unstall":
            pedal.unstall()
        elif command == "slow":
            pedal.set_latency(_seconds(args))
        elif command == "hang":
            pedal.hang()
        elif command == "unhang":
            pedal.unhang()
        elif command == "switch-fault":
            kind = args[0] if args else "none"
            if kind not in ("stuck", "open", "none"):
                raise CommandError("switch-fault takes stuck, open or none")
            pedal.set_switch_fault(stuck=kind == "stuck", wiring_open=kind == "open")
        elif command == "status":
            return json.dumps(pedal.status())
        elif command == "sleep":
            time.sleep(_seconds(args))
        elif command == "help":
            return HELP + f"\ncorruptions: {', '.join(CORRUPTIONS)}"
        elif command == "quit":
            return None
        else:
            raise CommandError(f"unknown command {command!r} (try: help)")
    except (SimulatorError, CommandError) as exc:
        return f"error: {exc}"
    return "ok"


def _missing(what: str) -> str:
    raise CommandError(f"expected {what}")


def _feed(pedal: SimulatedPedal, lines: Iterable[str], out: TextIO) -> bool:
    """Run commands; ``False`` once ``quit`` was given."""
    for line in lines:
        reply = execute(pedal, line)
        if reply is None:
            return False
        if reply:
            print(reply, file=out, flush=True)
    return True


def run(args: argparse.Namespace) -> int:
    buttons = tuple(b.strip() for b in str(args.buttons).split(",") if b.strip())
    path = args.socket or default_socket_path()
    options = {
        "transport": "socket", "socket": path, "serial": args.serial, "buttons": buttons, "firmware": args.firmware,
        "long_press_ms": args.long_press_ms, "kernel_driver": not args.no_kernel_driver,
        "protocol_version": args.protocol_version,
    }
    try:
        running = start_simulator("pedals", options)
    except ValueError as exc:
        print(f"pedal simulator: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pedal simulator: cannot serve on {path}: {exc}", file=sys.stderr)
        return 1
    pedal: SimulatedPedal = running.simulator
    done = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: done.set())
    out = sys.stdout
    print(
        f"Simulated dealer pedals {p.VENDOR_ID:04x}:{p.PRODUCT_ID:04x} serial {pedal.serial}, "
        f"buttons {', '.join(pedal.buttons)}",
        file=out,
    )
    print(f"Connect the station to: {running.endpoint}", file=out)
    print("Type commands (help lists them); quit or Ctrl-C to stop.", file=out, flush=True)
    try:
        keep_going = True
        if args.script:
            with open(args.script, encoding="utf-8") as script:
                keep_going = _feed(pedal, script, out)
        if keep_going:

            def read_commands() -> None:
                if not _feed(pedal, sys.stdin, out):
                    done.set()  # quit; at end of input the simulator keeps serving

            reader = threading.Thread(target=read_commands, name="pedal-sim-commands", daemon=True)
            reader.start()
            done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m drivers.simulators.pedals.console", description="Simulated dealer pedals."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
