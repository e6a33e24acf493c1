"""``station simulate shoe|shuffler|display|buttonbox|sign|chipreader|pedals``: run a simulated device by hand.

The simulator speaks the real wire protocol on a pseudo-terminal (or a TCP socket with
``--socket``) and prints where to connect. It runs until Ctrl-C; while it runs, lines
typed on standard input script it ("draw", "lid open", "unplug", ... ; "help" lists them).

``station simulate fault [--table DIR] DEVICE FAULT`` breaks a device of a simulated table
that a running station started (``station run`` on ``sim:`` devices), through the table's
fault door (``faults.sock`` in its folder); ``--list`` names its devices and the faults.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from station.cli.main import CliError

KINDS = ("shoe", "shuffler", "display", "buttonbox", "sign", "chipreader")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="run a simulated device (shoe, shuffler, display, buttonbox, sign, chipreader, pedals) until Ctrl-C, "
             "or break a device of a running simulated table (fault)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = parser.add_subparsers(dest="kind", metavar="DEVICE", required=True)
    for kind in KINDS:
        sub = kinds.add_parser(kind, help=f"simulated {kind}")
        _common_options(sub)
        {"shoe": _shoe_options, "shuffler": _shuffler_options, "display": _display_options,
         "buttonbox": _buttonbox_options, "sign": _sign_options, "chipreader": _chipreader_options}[kind](sub)
        sub.set_defaults(handler=run_serial_simulator)
    _fault_parser(kinds)
    pedals = kinds.add_parser("pedals", help="simulated USB dealer pedals")
    try:
        from drivers.simulators.pedals import console as usb_simulator
    except Exception as exc:  # optional: a missing or broken USB simulator must not break the station CLI
        reason = str(exc)
        pedals.set_defaults(handler=lambda args: _pedals_missing(reason))
    else:
        usb_simulator.add_arguments(pedals)
        pedals.set_defaults(handler=usb_simulator.run)


def _fault_parser(kinds: Any) -> None:
    fault = kinds.add_parser(
        "fault", help="break a device of a running simulated table (unplug, reboot, lost answers...)",
        description="Inject a fault into a device of a simulated table while its station runs, through the "
                    "table's fault door (faults.sock in the table's folder; docs/drivers.md). Prints what was "
                    "done; exit 0 done, 1 refused (or no table answers), 2 a bad command line.")
    fault.add_argument("device", nargs="?", metavar="DEVICE",
                       help="shoe, shuffler, display, buttonbox, sign or chipreader")
    fault.add_argument("fault", nargs="?", metavar="FAULT",
                       help="unplug, reboot, power_cycle, drop_replies, corrupt, lose_acks, garbage, mute")
    fault.add_argument("--table", metavar="DIR",
                       help="the table's folder (the folder of its device links, e.g. /tmp/station-sim-XXXX); "
                            "default: the only simulated table of this user that is running")
    fault.add_argument("--list", action="store_true", help="the table's devices and the faults it knows")
    fault.add_argument("--seconds", metavar="S", help="unplug, mute: how long the fault lasts")
    fault.add_argument("--count", metavar="N", help="drop_replies, corrupt, lose_acks: how many")
    fault.add_argument("--bytes", dest="data", metavar="HEX", help="garbage: the bytes to put on the line")
    fault.add_argument("--antenna", metavar="N", help="chipreader place, remove, miss, collide, lose_antenna, "
                                                      "restore_antenna: the antenna")
    fault.add_argument("--chips", metavar="UID,...",
                       help="chipreader place, remove: the chips' UIDs (16 hex digits each)")
    fault.set_defaults(handler=run_fault)


def run_fault(args: argparse.Namespace) -> int:
    """Check the request as the door would, find the table, ask it, print its words."""
    from station.sim.faults import SOCKET_NAME, DoorUnreachable, FaultRefused, ask, check_request, live_tables

    request = _fault_request(args)
    try:
        check_request(request)
    except FaultRefused as exc:
        raise CliError(str(exc)) from None
    if args.table is not None:
        folder = Path(args.table)
        if not folder.is_dir():
            raise CliError(f"--table {args.table}: no such folder")
    else:
        tables = live_tables()
        if not tables:
            raise CliError("no simulated table of this user is running (no station-sim-* folder with a live "
                           "table.lock in the temporary folder); name one with --table DIR", 1)
        if len(tables) > 1:
            raise CliError(f"{len(tables)} simulated tables are running ({', '.join(map(str, tables))}): "
                           "name one with --table DIR", 1)
        folder = tables[0]
    try:
        reply = ask(folder / SOCKET_NAME, request)
    except DoorUnreachable as exc:
        raise CliError(str(exc), 1) from None
    if not reply.get("ok"):
        raise CliError(f"refused: {reply.get('error', 'no reason given')}", 1)
    print(reply.get("done", "done"), flush=True)
    return 0


def _fault_request(args: argparse.Namespace) -> dict[str, Any]:
    """The door's request from the command line; a line that does not make one is a usage error."""
    options = {"seconds": args.seconds, "count": args.count, "bytes": args.data, "antenna": args.antenna,
               "chips": None if args.chips is None else args.chips.replace(",", "").replace(" ", "")}
    given = {name: value for name, value in options.items() if value is not None}
    if args.list:
        if args.device is not None or args.fault is not None or given:
            raise CliError("--list takes no DEVICE, FAULT or fault options")
        return {"fault": "list"}
    if args.device is None or args.fault is None:
        raise CliError("name a DEVICE and a FAULT (e.g. shoe unplug --seconds 1), or --list")
    request: dict[str, Any] = {"device": args.device, "fault": args.fault}
    for name, value in given.items():
        try:
            request[name] = {"seconds": float, "count": int, "bytes": str, "antenna": int, "chips": str}[name](value)
        except ValueError:
            kind = "a number" if name == "seconds" else "a whole number"
            raise CliError(f"--{name} {value}: not {kind}") from None
    return request


def _pedals_missing(reason: str) -> int:
    raise CliError(f"the USB pedal simulator is not available here ({reason})", 3)


def _common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--socket", action="store_true", help="listen on a TCP socket instead of a pty")
    p.add_argument("--tcp-port", type=int, default=0, help="TCP port for --socket (default: any free port)")
    p.add_argument("--dir", dest="directory", help="directory for the pty symlink (default: a new temp dir)")
    p.add_argument("--serial", default="SIM-0001", help="serial number the device reports")
    p.add_argument("--firmware", default="1.0.0", help="firmware version the device reports")
    p.add_argument("--ack-timeout", type=float, default=0.2, help="seconds before an unacknowledged event is resent")
    p.add_argument("--quiet", action="store_true", help="do not print the commands the device receives")
    p.add_argument("--protocol-version", type=int, metavar="N",
                   help="speak version N of the device's protocol (default: the current one; "
                        "1 is a device built before versions were announced)")


def _shoe_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decks", type=int, default=8, help="decks to shuffle into the shoe (default 8)")
    p.add_argument("--seed", type=int, help="shuffle seed (reproducible shoe)")
    p.add_argument("--cut", type=int, help="cut card position: cards in front of it")
    p.add_argument("--stack", help="stacked order instead of a shuffle, e.g. 'AS 9H TD CUT KC'")
    p.add_argument("--auto-deal", type=float, metavar="SECONDS", help="draw a card every SECONDS")


def _shuffler_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=("batch", "continuous"), default="batch")
    p.add_argument("--decks", type=int, default=8)
    p.add_argument("--colour", default="red", help="colour of the set inside")
    p.add_argument("--seed", type=int)
    p.add_argument("--step-delay", type=float, default=0.5, help="seconds per shuffle progress step")


def _display_options(p: argparse.ArgumentParser) -> None:
    """The display board simulator takes only the common options: it records what it is sent."""


def _buttonbox_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--buttons", type=int, default=4)
    p.add_argument("--long-press-ms", type=int, default=800)


def _sign_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rows", type=int, default=8, help="LED rows of the sign (default 8)")
    p.add_argument("--positions", type=int, default=20,
                   help="digits an amount may have (default 20: any u64); a wider one is refused")


def _chipreader_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--antennas", type=int, default=8, help="antennas of the reader, numbered from 1 (default 8)")
    p.add_argument("--part-size", type=int, default=128, help="UIDs a report part holds at most (default 128)")
    p.add_argument("--seed", type=int, help="seed of the misreads (repeatable)")


def _build(args: argparse.Namespace) -> Any:
    from drivers.codec import get_protocol
    from drivers.simulators import start_simulator
    from drivers.simulators.pool import CUT_CARD
    from drivers.simulators.shoe import ShoeSimulator
    from station.cards import CardError, parse_card

    if args.directory is not None and not Path(args.directory).is_dir():
        raise CliError(f"--dir {args.directory}: no such folder (the pty's link is made there)")
    versions = get_protocol(args.kind).versions
    if args.protocol_version is not None and args.protocol_version not in versions:
        raise CliError(f"--protocol-version {args.protocol_version}: the {args.kind} protocol has versions "
                       f"{versions.start}-{versions.stop - 1}")
    common: dict[str, Any] = {
        "transport": "socket" if args.socket else "pty", "tcp_port": args.tcp_port, "directory": args.directory,
        "serial": args.serial, "firmware": args.firmware, "ack_timeout": args.ack_timeout,
        "protocol_version": args.protocol_version,
    }
    if args.kind == "shoe":
        running = start_simulator("shoe", common)
        shoe = running.simulator
        assert isinstance(shoe, ShoeSimulator)
        if args.stack:
            try:
                tokens = args.stack.replace(",", " ").split()
                items = [CUT_CARD if t.upper() == "CUT" else parse_card(t) for t in tokens]
            except CardError as exc:
                running.stop()
                raise CliError(str(exc)) from None
            shoe.load(items)
        else:
            try:
                shoe.load_shuffled(args.decks, args.seed, args.cut)
            except ValueError as exc:
                running.stop()
                raise CliError(str(exc)) from None
        return running
    if args.kind == "shuffler":
        return start_simulator("shuffler", common, mode=args.mode, decks=args.decks, set_colour=args.colour,
                               seed=args.seed, step_delay=args.step_delay)
    if args.kind == "buttonbox":
        return start_simulator("buttonbox", common, buttons=args.buttons, long_press_ms=args.long_press_ms)
    if args.kind == "sign":
        try:
            return start_simulator("sign", common, rows=args.rows, positions=args.positions)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if args.kind == "chipreader":
        try:
            return start_simulator("chipreader", common, antennas=args.antennas, part_size=args.part_size,
                                   seed=args.seed)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    return start_simulator(args.kind, common)


def _chipreader_actions(device: Any) -> dict[str, tuple[Callable[..., Any], str]]:
    """A technician's hands on the simulated layout: chips put down and taken up, antennas broken."""
    from drivers.codec.chipreader import AntennaFaultCode

    def show_layout() -> None:
        layout = device.layout()
        for antenna, uids in layout.items():
            print(f"antenna {antenna}: {len(uids)} chip(s) {' '.join(uids)}", flush=True)
        if not layout:
            print("(no chips on the layout)", flush=True)

    def stack(antenna: str, count: str) -> None:
        print(" ".join(device.stack(int(antenna), int(count))), flush=True)

    def lose(antenna: str, code: str = "disconnected") -> None:
        device.lose_antenna(int(antenna), AntennaFaultCode[code.upper()])

    return {
        "place": (lambda antenna, *uids: device.place(int(antenna), uids),
                  "place ANTENNA UID...: put chips down (16 hex digits each)"),
        "remove": (lambda antenna, *uids: device.remove(int(antenna), uids or None),
                   "remove ANTENNA [UID...]: take chips off (all of them without UIDs)"),
        "stack": (stack, "stack ANTENNA COUNT: put a stack of new chips down"),
        "chips": (show_layout, "chips: the chips on every antenna"),
        "miss": (lambda antenna, rounds="1", chips="1": device.miss(int(antenna), int(rounds), int(chips)),
                 "miss ANTENNA [ROUNDS [CHIPS]]: the next rounds leave chips unread"),
        "collide": (lambda antenna, rounds="1", chips="2": device.collide(int(antenna), int(rounds), int(chips)),
                    "collide ANTENNA [ROUNDS [CHIPS]]: chips answer in one slot, unread"),
        "parts": (lambda size: device.report_in_parts(int(size)), "parts SIZE: at most SIZE UIDs a report part"),
        "abandon": (device.abandon_next_report, "abandon: the next report of several parts stops before its last"),
        "lose": (lose, "lose ANTENNA [disconnected|short_circuit|detuned]: an antenna faults"),
        "restore": (lambda antenna: device.restore_antenna(int(antenna)), "restore ANTENNA: it reads again"),
        "reboot": (device.reboot, "reboot: the reader restarts (mode forgotten, sends Boot)"),
    }


def _actions(device: Any) -> dict[str, tuple[Callable[..., Any], str]]:
    from drivers.codec.shoe import ReaderErrorCode
    from station.cards import parse_card

    def repeat(fn: Callable[[], Any]) -> Callable[..., Any]:
        return lambda n="1": [fn() for _ in range(int(n))][-1]

    def garbage(*words: str) -> Any:
        return device.inject_garbage(bytes.fromhex("".join(words)) if words else b"\x00\xffnoise")

    def shuffle(decks: str = "8", seed: str | None = None, cut: str | None = None) -> Any:
        return device.load_shuffled(int(decks), None if seed is None else int(seed), None if cut is None else int(cut))

    actions: dict[str, tuple[Callable[..., Any], str]] = {
        "garbage": (garbage, "garbage [HEX]: put bytes on the line"),
        "corrupt": (lambda n="1": device.corrupt_next_frames(int(n)), "corrupt [N]: next N frames get a bad CRC"),
        "lose-acks": (lambda n="1": device.ignore_acks(int(n)), "lose-acks [N]: ignore the host's next N ACKs"),
        "drop-replies": (lambda n="1": device.drop_replies(int(n)), "drop-replies [N]: lose the next N answers"),
        "slow": (lambda s="0": setattr(device, "reply_delay", float(s)), "slow SECONDS: delay every answer"),
        "mute": (lambda: device.mute(True), "mute: stop answering (hung device)"),
        "unmute": (lambda: device.mute(False), "unmute"),
        "unplug": (device.unplug, "unplug: pull the cable"),
        "replug": (device.replug, "replug: plug it back in"),
        "power-cycle": (device.power_cycle, "power-cycle: switch off and on (Boot, numbering restarts)"),
        "stats": (lambda: print(device.stats), "stats: link counters"),
    }
    kind = device.PROTOCOL
    if kind == "shoe":
        actions.update({
            "draw": (repeat(device.draw), "draw [N]: the dealer draws the next N cards"),
            "remaining": (lambda: print(device.remaining()), "remaining: cards left"),
            "lid": (lambda state: device.open_lid() if state == "open" else device.close_lid(), "lid open|close"),
            "card": (lambda code: device.report_card(parse_card(code)), "card CODE: report a card not in the shoe"),
            "duplicate": (device.repeat_last_card, "duplicate: read the last card again"),
            "unreadable": (device.draw_unreadable, "unreadable: next card cannot be read"),
            "error": (
                lambda code="sensor_fault": device.report_error(ReaderErrorCode[code.upper()]),
                "error CODE: reader error",
            ),
            "empty": (device.empty, "empty: take all cards out"),
            "shuffle": (shuffle, "shuffle DECKS [SEED [CUT]]: load a new shoe"),
        })
    elif kind == "shuffler":
        actions.update({
            "start": (device.start_shuffle, "start: press the shuffle button"),
            "take": (lambda: print(len(device.take_set()), "cards taken"), "take: take the shuffled set out"),
            "load": (lambda colour=None: device.load_set(None, colour), "load [COLOUR]: put a full set in"),
            "jam": (device.jam, "jam: a card jams"),
            "clear": (device.clear_jam, "clear: clear the jam"),
            "door": (lambda state: device.open_door() if state == "open" else device.close_door(), "door open|close"),
            "remove": (
                lambda *codes: device.remove_cards([parse_card(c) for c in codes]), "remove CODES: short the set"
            ),
            "add": (lambda *codes: device.add_cards([parse_card(c) for c in codes]), "add CODES: extra/foreign cards"),
            "return": (
                lambda *codes: device.return_cards([parse_card(c) for c in codes]),
                "return CODES: continuous: cards back",
            ),
        })
    elif kind == "buttonbox":
        actions.update({
            "press": (lambda b="1": device.press(int(b)), "press N: tap button N"),
            "long": (lambda b="1": device.long_press(int(b)), "long N: long-press button N"),
        })
    elif kind == "display":
        from drivers.simulators.display import describe_screen

        actions.update({
            "fault": (device.panel_fault, "fault: a panel fails"),
            "screen": (lambda: print("\n".join(describe_screen(device.screen)) or "(blank)"),
                       "screen: what the board shows, as players read it"),
            "reboot": (device.reboot, "reboot: the board restarts (blank, sends Boot)"),
            "mute": (lambda: device.mute(True), "mute: the board stops acknowledging"),
            "unmute": (lambda: device.mute(False), "unmute: the board answers again"),
        })
    elif kind == "sign":
        from drivers.simulators.sign import face_lines

        actions.update({
            "fault": (lambda row="3": device.fail_row(int(row)), "fault [ROW]: an LED row goes dark"),
            "repair": (device.repair_rows, "repair: every LED row lights again"),
            "screen": (lambda: print("\n".join(face_lines(device.face)) or "(blank)"),
                       "screen: what the sign shows, as players read it"),
            "reboot": (device.reboot, "reboot: the sign restarts (blank, sends Boot)"),
            "lose": (lambda n="1": device.lose_commands(int(n)), "lose [N]: the next N frames from the host are lost"),
        })
    elif kind == "chipreader":
        actions.update(_chipreader_actions(device))
    return actions


def run_serial_simulator(args: argparse.Namespace) -> int:
    running = _build(args)
    device = running.simulator
    actions = _actions(device)
    print(f"{args.kind} simulator ready: connect to {running.endpoint}", flush=True)
    print(f"speaks {args.kind} protocol version {device.protocol_version}; type 'help' for commands; Ctrl-C to stop",
          flush=True)
    if not args.quiet and hasattr(device, "on_reported"):  # the chip reader's events, as they go out
        device.on_reported = lambda event: print(f"-> {event.describe(device.protocol_version)}", flush=True)
    stop = threading.Event()

    def echo_received() -> None:
        shown = 0
        while not stop.wait(0.05):
            items = list(device.received)
            for message in items[shown:]:
                if message.TYPE != 0x02:  # pings are noise for a person
                    print(f"<- {message.describe(device.protocol_version)}", flush=True)
            shown = len(items)

    def auto_deal() -> None:
        while not stop.wait(args.auto_deal):
            try:
                print(f"drew {device.draw()}", flush=True)
            except Exception as exc:
                print(f"auto-deal stopped: {exc}", flush=True)
                return

    threads = []
    if not args.quiet:
        threads.append(threading.Thread(target=echo_received, daemon=True))
    if getattr(args, "auto_deal", None):
        threads.append(threading.Thread(target=auto_deal, daemon=True))
    for thread in threads:
        thread.start()
    try:
        for line in sys.stdin:
            words = shlex.split(line)
            if not words:
                continue
            name, rest = words[0].lower(), words[1:]
            if name in ("quit", "exit"):
                break
            if name == "help":
                for _, text in sorted(actions.values(), key=lambda a: a[1]):
                    print(f"  {text}")
                continue
            action = actions.get(name)
            if action is None:
                print(f"unknown command {name!r}; type 'help'", flush=True)
                continue
            try:
                result = action[0](*rest)
            except Exception as exc:  # a typo at the prompt must not kill the simulator
                print(f"error: {exc}", flush=True)
            else:
                if result is not None and name == "draw":
                    print(f"drew {result}", flush=True)
                print("ok", flush=True)
        else:
            while True:  # stdin closed (e.g. run from a service): keep running until Ctrl-C
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        running.stop()
    return 0
