"""The floor publisher in a process of its own, and the station's end of it.

Deriving the feed means replaying every record into a second machine: as much work again as
the core loop's own applying. In the station's process that work would take the interpreter
from the core loop (one Python thread runs at a time), and the table would deal slower for
having a feed. In a process of its own it runs on another CPU when there is one, at a lower
priority than the table, and a fault in it cannot reach the table: the station restarts it.

The station's end (:class:`FloorFeed`) speaks to the outbox (:func:`main`) over two pipes:

- to the outbox, lines: first the start-up description (JSON), then the seq of each commit
  (written without waiting: when the pipe is full the line is dropped, the outbox reads the
  journal to its end anyway), anchors ``{"anchor": {...}}`` and, at stop, ``{"stop": DRAIN_S}``;
- from the outbox, its status as a JSON line twice a second, for ``ctl status`` and metrics.

When the station dies without a stop (SIGKILL, a crash) the outbox reads end-of-file and exits
at once without saying goodbye to the broker, so the broker publishes its last will
(``offline``, ``connection lost``); the cursor it had stored keeps what was acknowledged.
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
from pathlib import Path
from typing import IO, Any

import structlog

from station.floor.settings import FloorSection

log = structlog.get_logger("station.floor")

#: How often the outbox reports its status to the station.
STATUS_INTERVAL_S = 0.5
#: Back-off between restarts of an outbox that died (doubled up to the last).
RESTART_DELAYS_S = (1.0, 2.0, 5.0, 10.0, 30.0)
#: The station wakes the outbox at most this often (each wake is two context switches).
NOTIFY_S = 0.01


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
        self._process: subprocess.Popen[bytes] | None = None
        self._control: int | None = None
        self._status: dict[str, Any] = {}
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._restarts = 0
        self._notified = 0.0
        self._watcher: threading.Thread | None = None

    # --- the station's side -------------------------------------------------------------

    def start(self) -> FloorFeed:
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, name="floor-outbox-watch", daemon=True)
        self._watcher.start()
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
        control = self._control
        if control is not None:
            with contextlib.suppress(OSError):  # full (the outbox is busy) or gone: it reads the journal anyway
                os.write(control, b"%d\n" % last_seq)

    def publish_anchor(self, anchor: dict[str, Any]) -> None:
        """An anchor (on the anchor clock's thread): written whole, waiting up to a second."""
        self._send(json.dumps({"anchor": anchor}).encode("utf-8") + b"\n", wait_s=1.0)

    def status(self) -> dict[str, Any]:
        process = self._process
        status = dict(self._status)
        status.setdefault("broker", self.settings.broker)
        status.setdefault("connected", False)
        status.setdefault("backlog_records", self.tip)
        status.update({"outbox_pid": process.pid if process is not None and process.poll() is None else None,
                       "outbox_restarts": self._restarts})
        return status

    def stop(self, drain_s: float | None = None) -> None:
        """Ask the outbox to publish what the broker takes within ``drain_s``, then to go."""
        wait = self.settings.drain_s if drain_s is None else drain_s
        self._stopping.set()
        process = self._process
        if process is None:
            return
        self._send(json.dumps({"stop": wait}).encode("utf-8") + b"\n", wait_s=1.0)
        try:
            process.wait(wait + 5)
        except subprocess.TimeoutExpired:
            log.warning("floor_outbox_killed", pid=process.pid, reason="it did not stop in time")
            process.kill()
            process.wait(5)
        self._close_control()

    # --- the process ----------------------------------------------------------------------

    def _spawn(self) -> None:
        status_read, status_write = os.pipe()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "station.floor.outbox_main", str(status_write)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, pass_fds=(status_write,), close_fds=True,
            )
        finally:
            os.close(status_write)
        assert process.stdin is not None
        control = process.stdin.fileno()
        os.write(control, json.dumps(self.spec).encode("utf-8") + b"\n")
        os.set_blocking(control, False)
        with self._lock:
            self._process, self._control = process, control
        threading.Thread(target=self._read_status, args=(os.fdopen(status_read, "rb"),), name="floor-outbox-status",
                         daemon=True).start()
        log.info("floor_outbox_started", pid=process.pid, broker=self.settings.broker, table=self.table)

    def _read_status(self, stream: IO[bytes]) -> None:
        with stream:
            for line in stream:
                with contextlib.suppress(ValueError):
                    self._status = json.loads(line)

    def _send(self, data: bytes, wait_s: float) -> None:
        deadline = time.monotonic() + wait_s
        while True:
            control = self._control
            if control is None:
                return
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

    def _watch(self) -> None:
        """Restart an outbox that died while the station runs (with a growing pause)."""
        while True:
            process = self._process
            if process is None:
                return
            code = process.wait()
            if self._stopping.is_set():
                return
            delay = RESTART_DELAYS_S[min(self._restarts, len(RESTART_DELAYS_S) - 1)]
            log.error("floor_outbox_exited", pid=process.pid, status=code, restart_in_s=delay)
            self._close_control()
            if self._stopping.wait(delay):
                return
            self._restarts += 1
            self._spawn()

    def _close_control(self) -> None:
        with self._lock:
            process, self._control = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()


# --- the outbox's side ---------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    # Ctrl-C in a terminal reaches the whole process group: the station stops the outbox
    # itself (after its drain), so the outbox does not die of it first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    args = sys.argv[1:] if argv is None else argv
    status_fd = int(args[0])
    control = sys.stdin.buffer
    spec = json.loads(control.readline())
    from station.service.logging import configure_logging

    configure_logging(spec["log_format"], spec["log_level"], stream=sys.stderr)
    with contextlib.suppress(ImportError):
        from setproctitle import setproctitle

        setproctitle(f"station-floor-outbox ({spec['table']}, of station {spec['station_pid']})")
    from station.floor.outbox import FloorPublisher
    from station.service.setup import journal_options

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
