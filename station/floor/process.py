"""The floor publisher in a process of its own, and the station's end of it.

Deriving the feed means replaying every record into a second machine: as much work again as
the core loop's own applying. In the station's process that work would take the interpreter
from the core loop (one Python thread runs at a time), and the table would deal slower for
having a feed. In a process of its own it runs on another CPU when there is one, stepping
back from the table (:data:`station.child_process.OUTBOX`), and a fault in it cannot
reach the table: the station restarts it.

The outbox is **forked** at the very start of the station (:func:`fork_outbox`, before the
station has any thread or opens its journal), so it starts with everything the station has
already imported: in milliseconds, sharing the station's memory pages, instead of a fresh
interpreter's 0.6 s of imports (measured on the machine of docs/benchmarks.md), during which
a table dealing at full speed would build up a backlog for it. It then waits for its start-up
description, sent once the journal is open. A restart after the outbox died, or a station
that already has threads, starts a fresh interpreter instead
(``python -m station.floor.outbox_main``): slower, and safe.

The station's end (:class:`FloorFeed`) keeps the outbox through
:class:`station.child_supervisor.ChildSupervisor`, as the station keeps every child (started,
restarted after a growing pause when it dies, stopped with its drain and killed if it does not
go); what is the outbox's own is here: its fork, its command line, its pipes and the lines on
them, its log lines' words and its status. It speaks to the outbox over two pipes (not the
socket and frames of the pages' children: a commit's line is written without ever waiting,
whole or not at all, which a pipe gives for a short write):

- to the outbox, lines: first the start-up description (JSON), then the seq of each commit
  (written without waiting: when the pipe is full the line is dropped, the outbox reads the
  journal to its end anyway), anchors ``{"anchor": {...}}`` and, at stop, ``{"stop": DRAIN_S}``;
- from the outbox, its status as a JSON line twice a second, for ``ctl status`` and metrics.

When the station dies without a stop (SIGKILL, a crash) the outbox reads end-of-file and exits
at once without saying goodbye to the broker, so the broker publishes its last will
(``offline``, ``connection lost``); the cursor it had stored keeps what was acknowledged. So
that it does see that end-of-file, no other process may hold the station's end of the pipe:
a process forked after the outbox (the simulated table) closes it first thing
(:func:`_close_station_ends`), and fresh interpreters never inherit it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

import structlog

from station.child_links import ForkedChild, Launched, wait_or_kill
from station.child_process import OUTBOX, step_back
from station.child_supervisor import ChildSpec, ChildSupervisor, Restarts, Words
from station.floor.settings import FloorSection

log = structlog.get_logger("station.floor")

#: How often the outbox reports its status to the station.
STATUS_INTERVAL_S = 0.5
#: Back-off between restarts of an outbox that died (doubled up to the last).
RESTART_DELAYS_S = (1.0, 2.0, 5.0, 10.0, 30.0)
#: The station wakes the outbox at most this often (each wake is two context switches).
NOTIFY_S = 0.01


@dataclass
class PreparedOutbox:
    """An outbox forked at the station's start, waiting for its start-up description."""

    process: ForkedChild
    control: int  # the station's end of the control pipe (written)
    status: int  # the station's end of the status pipe (read)

    def discard(self) -> None:
        """The station did not get as far as starting the feed: the outbox reads end-of-file
        before its description and leaves."""
        _close_station_end(self.control)
        _close_station_end(self.status)
        wait_or_kill(self.process, 5)
        self.process.release()


# --- the station's ends of the pipes, closed in every process forked after the outbox ------

_STATION_ENDS: set[int] = set()


def _close_station_ends() -> None:
    """In a child forked later (the simulated table): it must not keep the outbox's pipes
    open, or the outbox would not read end-of-file when the station dies."""
    for fd in tuple(_STATION_ENDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _STATION_ENDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_station_ends)


def _close_station_end(fd: int) -> None:
    _STATION_ENDS.discard(fd)  # first: a fork meanwhile must not close a reused number
    with contextlib.suppress(OSError):
        os.close(fd)


def _station_pipes() -> tuple[int, int, int, int]:
    """(control read, control write, status read, status write); the station keeps the
    control's write end and the status's read end."""
    control_read, control_write = os.pipe()
    status_read, status_write = os.pipe()
    _STATION_ENDS.update((control_write, status_read))
    return control_read, control_write, status_read, status_write


def fork_outbox() -> PreparedOutbox | None:
    """Fork the outbox now, or None when the station already has a thread (a fork would copy
    locks other threads may hold) or the system cannot fork: :class:`FloorFeed` then starts a
    fresh interpreter."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return None
    control_read, control_write, status_read, status_write = _station_pipes()
    pid = os.fork()
    if pid == 0:
        _forked_outbox(control_read, status_write)
    os.close(control_read)
    os.close(status_write)
    return PreparedOutbox(ForkedChild(pid), control_write, status_read)


def outbox_cpus() -> list[int] | None:
    """The CPUs the station leaves (while a simulated table has one to itself, the station
    keeps to the others: ``station/sim/cpus.py``). Measured on the 2-CPU machine of
    docs/benchmarks.md: sharing the station's CPU, or floating over both, cost the full-speed
    demo more of its rounds per second than sitting beside the simulated table."""
    try:
        others = set(range(os.cpu_count() or 1)) - os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None
    return sorted(others) or None


class OutboxPipes:
    """The station's ends of an outbox's two pipes, as the supervisor's link: lines to the
    outbox on ``control`` (written without blocking), its status lines from ``status``."""

    def __init__(self, control: int, status: int) -> None:
        self.control: int | None = control
        self.status: int | None = status
        self._buffer = b""
        os.set_blocking(control, False)

    def fileno(self) -> int:
        status = self.status
        return -1 if status is None else status

    def receive(self) -> list[tuple[bytes, bytes]]:
        """The status lines complete so far (their kind is empty: the outbox sends one kind)."""
        chunk = os.read(self.fileno(), 65536)
        if not chunk:
            raise EOFError("the outbox closed its status pipe")
        *lines, self._buffer = (self._buffer + chunk).split(b"\n")
        return [(b"", line) for line in lines if line]

    def notify(self, line: bytes) -> None:
        """A commit's line: written now or not at all (a full pipe means a busy outbox,
        which reads the journal to its end anyway)."""
        control = self.control
        if control is not None:
            with contextlib.suppress(OSError):
                os.write(control, line)

    def send(self, kind: bytes, data: bytes) -> None:
        """A line that must arrive (an anchor, the stop): waits up to a second for room, then
        drops it with a warning. An outbox that has gone is the watch's business, not this
        line's, so nothing is raised."""
        deadline = time.monotonic() + 1.0
        while (control := self.control) is not None:
            try:
                os.write(control, data)
                return
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning("floor_outbox_busy", dropped=data[:80].decode("utf-8", "replace"))
                    return
                select.select([], [control], [], min(left, 0.1))
            except OSError:
                return

    def send_quit(self, kind: bytes, data: bytes) -> None:
        self.send(kind, data)

    def shutdown(self) -> None:
        """Nothing to undo: no write to the outbox waits more than a second."""

    def close(self) -> None:
        control, self.control = self.control, None
        status, self.status = self.status, None
        for fd in (control, status):
            if fd is not None:
                _close_station_end(fd)


WORDS = Words(started="floor_outbox_started", ended="floor_outbox_exited", start_failed="floor_outbox_start_failed",
              killed="floor_outbox_killed")


class FloorFeed:
    """The station's end: starts the outbox process, tells it of commits and anchors,
    restarts it if it dies, stops it (with its drain) when the station stops."""

    def __init__(self, settings: FloorSection, *, table: str, journal: Path, currency: str | None,
                 devices: list[str], software: str, log_format: str, log_level: str) -> None:
        self.settings = settings
        self.table = table
        self.spec = {"settings": settings.model_dump(), "table": table, "journal": str(journal),
                     "currency": currency, "devices": devices, "software": software, "log_format": log_format,
                     "log_level": log_level, "station_pid": os.getpid()}
        self.tip = 0
        self._status: dict[str, Any] = {}
        self._notified = 0.0
        self._prepared: PreparedOutbox | None = None
        self._child = ChildSupervisor(ChildSpec(
            name="floor-outbox", title="the floor outbox", launch=self._launch, log=log, words=WORDS, hello=False,
            restarts=Restarts(every_s=0.0, backoff_s=RESTART_DELAYS_S), on_message=self._heard,
            fields={"broker": settings.broker, "table": table}))

    # --- the station's side -------------------------------------------------------------

    def start(self, prepared: PreparedOutbox | None = None) -> FloorFeed:
        """Start the outbox: the one forked at the station's start when there is one."""
        self._prepared = prepared
        self._child.start(wait=True)
        return self

    def notify(self, last_seq: int) -> None:
        """A commit (on the core loop's thread): at most one short write per ``NOTIFY_S``,
        never a wait. The outbox reads the journal to its end on every pass and makes one
        more pass ``COALESCE_S`` after any pass that read something, so a commit whose line
        was skipped (or dropped by a full pipe) is still published within milliseconds."""
        self.tip = last_seq
        now = time.monotonic()
        if now - self._notified < NOTIFY_S:
            return
        self._notified = now
        pipes = self._child.link
        if pipes is not None:
            pipes.notify(b"%d\n" % last_seq)

    def publish_anchor(self, anchor: dict[str, Any]) -> None:
        """An anchor (on the anchor clock's thread): written whole, waiting up to a second."""
        pipes = self._child.link
        if pipes is not None:
            pipes.send(b"", json.dumps({"anchor": anchor}).encode("utf-8") + b"\n")

    def status(self) -> dict[str, Any]:
        status = dict(self._status)
        status.setdefault("broker", self.settings.broker)
        status.setdefault("connected", False)
        status.setdefault("backlog_records", self.tip)
        status.update({"outbox_pid": self._child.pid if self._child.running else None,
                       "outbox_restarts": self._child.restarts})
        return status

    def stop(self, drain_s: float | None = None) -> None:
        """Ask the outbox to publish what the broker takes within ``drain_s``, then to go
        (killed if it has not within five seconds more)."""
        wait = self.settings.drain_s if drain_s is None else drain_s
        self._child.stop(wait + 5, farewell=(b"", json.dumps({"stop": wait}).encode("utf-8") + b"\n"))

    # --- the process ----------------------------------------------------------------------

    def _launch(self) -> Launched[OutboxPipes]:
        """The outbox forked at the station's start, the first time there is one; else (a
        restart, or a station that had threads before the feed) a fresh interpreter."""
        prepared, self._prepared = self._prepared, None
        if prepared is not None:
            return self._begin(prepared.process, prepared.control, prepared.status, "fork")
        control_read, control_write, status_read, status_write = _station_pipes()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "station.floor.outbox_main", str(status_write)],
                stdin=control_read, stdout=subprocess.DEVNULL, pass_fds=(status_write,), close_fds=True,
            )
        except OSError:
            for fd in (control_write, status_read):
                _close_station_end(fd)
            raise
        finally:
            os.close(control_read)
            os.close(status_write)
        return self._begin(process, control_write, status_read, "spawn")

    def _begin(self, process: ForkedChild | subprocess.Popen[bytes], control: int, status: int,
               method: str) -> Launched[OutboxPipes]:
        """Hand the outbox its description (the pipe is empty: this write does not wait)."""
        os.write(control, json.dumps({**self.spec, "cpus": outbox_cpus()}).encode("utf-8") + b"\n")
        return Launched(process, OutboxPipes(control, status), {"method": method})

    def _heard(self, _kind: bytes, line: bytes) -> None:
        with contextlib.suppress(ValueError):
            self._status = json.loads(line)


# --- the outbox's side ---------------------------------------------------------------------


def _keep_to(cpus: list[int] | None) -> None:
    if cpus:
        with contextlib.suppress(OSError, AttributeError, ValueError):
            os.sched_setaffinity(0, set(cpus))


def _forked_outbox(control_fd: int, status_fd: int) -> NoReturn:
    """The forked child: never returns into the station's code, whatever happens."""
    code = 1
    try:
        # Nothing of the station's runs here: its stop signals are the station's business
        # (the station stops the outbox itself, after its drain: _ignore_stop_signals), and
        # its stdin and stdout are not the outbox's. (The fork hook has already closed the
        # station's ends of the pipes in this child, as in every child forked after them.)
        _ignore_stop_signals()
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(-1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        step_back(OUTBOX)
        code = serve_outbox(os.fdopen(control_fd, "rb"), status_fd)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        os._exit(code)


def _ignore_stop_signals() -> None:
    """A stop signal sent to the station's whole process group (Ctrl-C or a closed terminal,
    ``timeout``, ``kill -TERM -PGID``, a supervisor that signals every process) reaches the
    outbox too. Had it died of it, the last records and the station's stop anchor would wait
    for the next start. The station stops the outbox itself, after its drain, however the
    signal reached the station; and a station that dies without a stop closes the pipe, at
    whose end-of-file the outbox leaves. So the outbox ignores them (SIGKILL still ends it)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    """The fresh interpreter's entry (``python -m station.floor.outbox_main STATUS_FD``)."""
    _ignore_stop_signals()
    args = sys.argv[1:] if argv is None else argv
    return serve_outbox(sys.stdin.buffer, int(args[0]))


def serve_outbox(control: IO[bytes], status_fd: int) -> int:
    """Read the description, publish until told to stop (0) or until the station is gone."""
    first = control.readline()
    if not first:
        os._exit(0)  # the station stopped before it started the feed: nothing to say
    spec = json.loads(first)
    _keep_to(spec.get("cpus"))
    from station.host.logging import configure_logging

    configure_logging(spec["log_format"], spec["log_level"], stream=sys.stderr)
    with contextlib.suppress(ImportError):
        from setproctitle import setproctitle

        setproctitle(f"station-floor-outbox ({spec['table']}, of station {spec['station_pid']})")
    from station.config.options import journal_options
    from station.floor.outbox import FloorPublisher

    journal = Path(spec["journal"])
    publisher = FloorPublisher(FloorSection.model_validate(spec["settings"], strict=False), table=spec["table"],
                               journal=journal, options=journal_options(journal, journal),
                               currency=spec["currency"], devices=spec["devices"], software=spec["software"])
    status = os.fdopen(status_fd, "wb", buffering=0)
    stopped = threading.Event()

    def report() -> None:
        while not stopped.wait(STATUS_INTERVAL_S):
            with contextlib.suppress(OSError):
                status.write(json.dumps(publisher.status()).encode("utf-8") + b"\n")

    publisher.start()
    threading.Thread(target=report, name="floor-outbox-status", daemon=True).start()
    for line in control:
        text = line.strip()
        if text.isdigit():
            publisher.notify(int(text))
        elif text.startswith(b"{"):
            message = json.loads(text)
            if "anchor" in message:
                publisher.publish_anchor(message["anchor"])
            elif "stop" in message:
                publisher.stop(float(message["stop"]))
                stopped.set()
                with contextlib.suppress(OSError):
                    status.write(json.dumps(publisher.status()).encode("utf-8") + b"\n")
                return 0
    # End of file without a stop: the station is gone. Leave at once, without a goodbye to
    # the broker: it publishes the last will. The stored cursor keeps what was acknowledged.
    log.warning("floor_outbox_orphaned", station_pid=spec["station_pid"])
    os._exit(0)
