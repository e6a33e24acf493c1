"""``station floor``: the casino floor's view of the tables, and the feed's cursor.

``station floor watch`` subscribes to the floor's broker and prints a live line per table
(state, shoe and round, last result, faults), or JSON lines with ``--json``; with
``--anchors-out FILE`` it appends every anchor it hears to FILE, for
``station journal verify --anchors``. ``station floor cursor`` says how far a journal has been
published. See docs/floor.md.

A reader that goes away (``station floor watch --json | head``) ends the watch quietly, with
status 0, as the other commands do (``station demo``, ``station journal export``): the lines
are printed on paho's network thread, where a ``BrokenPipeError`` used to kill the thread with
a traceback and leave the watch running, deaf, until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from station.cli.main import CliError


def _broker_options(args: argparse.Namespace) -> tuple[Any, str]:
    """(BrokerOptions, topic prefix) from the command line, or from a station's [floor]."""
    from station.floor.mqtt import BrokerOptions

    if args.config:
        from station.config.errors import ConfigError
        from station.service.config import load_config

        try:
            floor = load_config(args.config).config.floor
        except ConfigError as exc:
            raise CliError(str(exc)) from None
        if not floor.broker and not args.broker:
            raise CliError(f"{args.config}: floor.broker is not set; give --broker URL")
        options = BrokerOptions.from_floor(floor)
        prefix = floor.topic_prefix
    else:
        if not args.broker:
            raise CliError("give --broker mqtt://HOST[:PORT] (or mqtts://), or -c a station configuration")
        options = BrokerOptions(args.broker)
        prefix = "dealing-station"
    overrides = {name: getattr(args, name) for name in ("ca_file", "cert_file", "key_file", "username",
                                                        "password_file") if getattr(args, name)}
    if args.broker:
        overrides["url"] = args.broker
    if overrides:
        options = BrokerOptions(**{**options.__dict__, **overrides})
    return options, args.prefix or prefix


class _Printer:
    """Lines (or JSON objects) as tables change; on a terminal, the whole floor redrawn.

    Called on paho's network thread. When the reader of the output has gone (a pipe closed by
    ``head``), it prints nothing more, points the descriptor at /dev/null (so the interpreter's
    last flush cannot fail again, with an "Exception ignored" on stderr) and calls
    ``on_closed``, which ends the watch."""

    def __init__(self, stream: IO[str], as_json: bool, redraw: bool,
                 on_closed: Callable[[], None] = lambda: None) -> None:
        self.stream = stream
        self.as_json = as_json
        self.redraw = redraw and not as_json
        self.on_closed = on_closed
        self.closed = False
        self.lock = threading.Lock()

    def show(self, view: Any, floor: Any) -> None:
        with self.lock:
            if self.closed:
                return
            try:
                if self.as_json:
                    self.stream.write(json.dumps(view.to_json()) + "\n")
                elif self.redraw:
                    lines = [floor.tables[t].line() for t in sorted(floor.tables)]
                    self.stream.write("\x1b[H\x1b[2J" + "\n".join(lines) + "\n")
                else:
                    self.stream.write(view.line() + "\n")
                self.stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def reader_gone(self) -> bool:
        """Whether the reader has closed its end of the pipe, without writing: a quiet floor
        (a table that is not dealing) may print nothing for hours, and ``| head -1`` must not
        wait for the next change to end. True once the output is closed either way. Never
        waits for a write in progress (a reader that is slow, not gone, may hold it up): that
        write finds out itself."""
        if not self.lock.acquire(blocking=False):
            return self.closed
        try:
            if not self.closed and _pipe_closed(self.stream):
                self._reader_gone()
            return self.closed
        finally:
            self.lock.release()

    def _reader_gone(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        self.on_closed()


def _pipe_closed(stream: IO[str]) -> bool:
    """A pipe (or socket) whose reader has closed its end: the writer's end then polls as an
    error (POLLERR) on Linux. Anything else (a terminal, a file) is never "closed" here."""
    try:
        descriptor = stream.fileno()
        mode = os.fstat(descriptor).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return False
        poller = select.poll()
        poller.register(descriptor, 0)  # errors and hang-ups are always reported
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (OSError, ValueError):
        return False


def _watch(args: argparse.Namespace) -> int:
    import paho.mqtt.client as mqtt

    from station.floor.mqtt import BrokerSettingsError, make_client
    from station.floor.watch import FloorView

    options, prefix = _broker_options(args)
    wanted = set(args.table or ())
    floor = FloorView(prefix)
    done = threading.Event()
    printer = _Printer(sys.stdout, args.json, sys.stdout.isatty(), on_closed=done.set)
    anchors_out = open(args.anchors_out, "a", encoding="utf-8") if args.anchors_out else None  # noqa: SIM115
    failure: list[str] = []
    client_id = args.client_id or f"station-floor-watch-{os.getpid()}"
    try:
        client = make_client(options, client_id, clean_session=not args.client_id, prefix="")
    except BrokerSettingsError as exc:
        raise CliError(f"{exc.key}: {exc}") from None

    def on_connect(client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if getattr(reason, "is_failure", False):
            failure.append(f"the broker refused the connection: {reason}")
            done.set()
            return
        tables = sorted(wanted) or ["+"]
        client.subscribe([(f"{prefix}/{table}/#", 1) for table in tables])

    def on_message(_c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        where = floor.split(message.topic)
        if where is None or (wanted and where[0] not in wanted):
            return
        if anchors_out is not None and where[1] == "anchor":
            anchors_out.write(message.payload.decode("utf-8", "replace").strip() + "\n")
            anchors_out.flush()
        view = floor.update(message.topic, message.payload)
        if view is not None:
            printer.show(view, floor)

    client.on_connect = on_connect
    client.on_message = on_message
    host, port = options.address()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    try:
        client.connect(host, port, keepalive=options.keepalive_s)
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot connect to {options.url}: {exc}", status=69) from None
    client.loop_start()
    try:
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while not done.wait(0.2):
            if (deadline is not None and time.monotonic() >= deadline) or printer.reader_gone():
                break
    finally:
        client.disconnect()
        client.loop_stop()
        if anchors_out is not None:
            anchors_out.close()
    if failure:
        raise CliError(failure[0], status=69)
    return 0


def _cursor(args: argparse.Namespace) -> int:
    from station.floor.cursor import cursor_path, load_cursor
    from station.journal.anchors import journal_id_of
    from station.journal.location import journal_path
    from station.journal.store import JournalError, JournalReader

    path = journal_path(args.journal, None)
    try:
        with JournalReader(path) as reader:
            ident = journal_id_of(reader)
            last = reader.last()
    except JournalError as exc:
        raise CliError(str(exc), status=2) from None
    tip = last.seq if last is not None else 0
    stored = cursor_path(Path(path))
    position = load_cursor(stored, ident, set_aside=False) if ident is not None and stored.exists() else None
    body = {"journal": str(path), "journal_id": ident, "journal_last_seq": tip,
            "cursor": None if position is None else position.to_json(),
            "backlog_records": tip - (position.seq if position is not None else 0)}
    if args.json:
        print(json.dumps(body))
    elif position is None:
        print(f"journal {path} (id {ident}): no floor cursor; {tip} records not published")
    else:
        print(f"journal {path} (id {ident}): published up to record {position.seq} of {tip} "
              f"({body['backlog_records']} behind); rounds {position.counters['round'].n}, "
              f"events {position.counters['event'].n}")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "floor", help="watch the tables on the floor's broker; the feed's cursor",
        description="The casino floor feed (MQTT). See docs/floor.md.")
    commands = parser.add_subparsers(dest="floor_command", metavar="ACTION", required=True)
    watch = commands.add_parser(
        "watch", help="a live line per table from the floor's broker",
        description="Subscribe to <prefix>/+/# and print a line per table whenever it changes: status, state, "
                    "shoe and round, last result, faults.")
    watch.add_argument("--broker", metavar="URL", help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    watch.add_argument("-c", "--config", metavar="FILE", help="take the broker, TLS files and prefix from this "
                       "station configuration's [floor]")
    watch.add_argument("--prefix", help="topic prefix (default: the configuration's, else dealing-station)")
    watch.add_argument("--table", action="append", metavar="ID", help="only this table (repeatable)")
    watch.add_argument("--json", action="store_true", help="one JSON object per change instead of lines")
    watch.add_argument("--anchors-out", metavar="FILE", help="append every anchor heard to FILE (JSON lines)")
    watch.add_argument("--ca-file", metavar="FILE", help="mqtts: CA certificate(s) to trust")
    watch.add_argument("--cert-file", metavar="FILE", help="mqtts: client certificate")
    watch.add_argument("--key-file", metavar="FILE", help="mqtts: the client certificate's key")
    watch.add_argument("--username", help="broker user name")
    watch.add_argument("--password-file", metavar="FILE", help="file holding the broker password")
    watch.add_argument("--client-id", metavar="ID", help="a persistent session under this id: the broker keeps "
                       "what arrives while the watch is away (anchors included)")
    watch.add_argument("--seconds", type=float, default=0, help="stop after this many seconds (default: until "
                       "interrupted)")
    watch.set_defaults(handler=_watch)
    cursor = commands.add_parser("cursor", help="how far a journal has been published to the floor",
                                 description="Read the floor cursor beside a journal (read-only).")
    cursor.add_argument("--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL)")
    cursor.add_argument("--json", action="store_true")
    cursor.set_defaults(handler=_cursor)
