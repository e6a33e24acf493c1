"""The station's side of the console: its child process, the picture it is fed, its requests.

The console's HTTP server runs in a process of its own (:mod:`station.console.process`), as
the scoreboard's does, so its pages and whatever a browser or a scanner sends never share the
core loop's interpreter. This module imports no web framework.

- **The picture.** The core loop hands each output the console shows to :meth:`on_output`
  (on the loop's thread: it only queues, with the round on the table at that moment). A
  worker thread folds them into the :class:`~station.console.view.ConsoleView`, encodes the
  whole picture once and sends it, at most one every ``PICTURE_INTERVAL_S`` (a change at a
  dealer's pace goes out at once); pictures overtaken before they go out are never sent.
- **Requests.** What a signed-in person asks comes back as a request line with who asks; a
  small pool of threads passes each through ``door`` (the control socket's own checks, see
  :meth:`station.service.control.ControlServer.serve_line`) and sends the answer back. A
  command waits for the table's verdict (up to 2 s), so a few run at once; more wait their turn.
- **Its life.** The child dies with the station, stops when told within a second, and is
  started again (at most every ``RESTART_S``) if it ends on its own: the new one gets the
  same picture at once, so a console killed mid-round resumes the same view. One that cannot
  listen is tried again every ``RETRY_S``; the table never waits for it.
"""

from __future__ import annotations

import errno
import json
import os
import queue
import select
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from station.console.view import ConsoleView
from station.core import outputs as out
from station.core.queues import take_waiting

log = structlog.get_logger(__name__)

HEADER = struct.Struct(">cI")
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 1.0
RESTART_S = 2.0
#: How often a console that could not listen is tried again.
RETRY_S = 30.0
#: Least time between two pictures sent (a dealer reads a change in far more than this).
PICTURE_INTERVAL_S = 0.1
#: Requests served at once (each may wait up to 2 s for the table's verdict).
DOOR_THREADS = 4
MAX_FRAME = 1024 * 1024

#: Answers a request line for a user by name: the control socket's checks, then the table's.
Door = Callable[[str, bytes], dict[str, Any]]
#: Hears who signed in at the console, or was refused there (station/console/launch.py).
People = Callable[[dict[str, Any]], None]


class ConsoleStartError(OSError):
    """The console could not serve (``errno`` as the bind's, e.g. EADDRINUSE)."""


def _frame(kind: bytes, data: bytes) -> bytes:
    return HEADER.pack(kind, len(data)) + data


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = b""
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ConnectionError("the console closed its socket")
        chunks += chunk
    return chunks


class ConsoleProcess:
    """Start, feed and stop the console's process; answer what it asks through ``door``."""

    def __init__(self, settings: dict[str, Any], view: ConsoleView, door: Door, people: People | None = None) -> None:
        self.settings = settings
        self.view = view
        self.door = door
        self.people = people
        self.url = ""
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._write = threading.Lock()
        self._outputs: queue.Queue[tuple[out.Output, str]] = queue.Queue()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._pool = ThreadPoolExecutor(DOOR_THREADS, thread_name_prefix="console-door")
        self._threads: list[threading.Thread] = []
        self._started_at = -RESTART_S  # the first start is at once
        self._retry_at = 0.0
        self._ready = threading.Event()
        self._encoded = view.encode()
        self._sent_version = -1

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # --- the loop's side -----------------------------------------------------------------

    def on_output(self, output: out.Output, round_id: str) -> None:
        """An output the console shows (the core loop's thread): queued, never more."""
        self._outputs.put((output, round_id))
        self._wake.set()

    # --- life --------------------------------------------------------------------------

    def start(self) -> ConsoleProcess:
        """Start the threads that feed the console; the console itself starts on one of them,
        so the station's start never waits for it (``wait_ready`` does, for whoever must).
        A console that cannot listen (its port held by another program) is logged and tried
        again every ``RETRY_S``: the table deals on without it (pedals, buttons and the
        control socket still work)."""
        for target, name in ((self._fold_loop, "console-feed"), (self._read_loop, "console-requests")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Wait until the console listens (tests, tools); False when it does not in time."""
        return self._ready.wait(timeout)

    def _unavailable(self, exc: OSError) -> None:
        reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        self._retry_at = time.monotonic() + RETRY_S
        log.error("console_unavailable", address=f"{self.settings['host']}:{self.settings['port']}", reason=reason,
                  retry_s=RETRY_S)

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [sys.executable, "-m", "station.console.process", "--feed-fd", str(theirs.fileno()),
                   "--station", str(os.getpid())]
        self._started_at = time.monotonic()
        try:
            process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                       process_group=0)
        finally:
            theirs.close()
        ours.sendall(_frame(b"C", json.dumps(self.settings).encode()))
        answer = self._hello(ours, process)
        if "ready" not in answer:
            ours.close()
            process.wait(5)
            raise ConsoleStartError(int(answer.get("errno") or 0), str(answer.get("error") or "did not start"))
        ours.settimeout(None)
        self._process, self._sock, self.url = process, ours, str(answer["ready"])
        self._sent_version = -1
        self._wake.set()  # the picture goes to the new console at once
        self._ready.set()
        log.info("console_started", url=self.url, pid=self.pid)

    @staticmethod
    def _hello(sock: socket.socket, process: subprocess.Popen[bytes]) -> dict[str, Any]:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                process.kill()
                return {"error": f"no answer within {START_TIMEOUT_S:.0f} s"}
            readable, _, _ = select.select([sock], [], [], min(left, 0.2))
            if readable:
                break
            if process.poll() is not None:
                return {"error": f"the console's process ended with status {process.returncode}"}
        try:
            sock.settimeout(5)
            kind, size = HEADER.unpack(_read_exactly(sock, HEADER.size))
            data = _read_exactly(sock, size)
        except (OSError, ConnectionError):
            return {"error": f"the console's process ended with status {process.wait(5)}"}
        answer = json.loads(data) if kind == b"H" else None
        return answer if isinstance(answer, dict) else {"error": "an unreadable answer"}

    def begin_stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        self._send(b"Q", b"")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        self.begin_stop()
        self._close_child(timeout)
        for thread in self._threads:
            thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _close_child(self, timeout: float = STOP_TIMEOUT_S) -> None:
        with self._write:
            sock, self._sock = self._sock, None
            process, self._process = self._process, None
        if sock is not None:
            try:
                sock.settimeout(0.2)
                sock.sendall(_frame(b"Q", b""))
            except OSError:
                pass
            sock.close()
        if process is not None:
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    # --- the picture ---------------------------------------------------------------------

    def _fold_loop(self) -> None:
        sent_at = 0.0
        while not self._stopped.is_set():
            self._wake.wait(RESTART_S)
            self._wake.clear()
            self._fold()
            # At a dealer's pace each change goes out at once; in a burst (a table at full
            # speed) at most one picture per PICTURE_INTERVAL_S, the latest always within it.
            wait = PICTURE_INTERVAL_S - (time.monotonic() - sent_at)
            if wait > 0 and self._stopped.wait(wait):
                return
            if self._stopped.is_set():
                return
            self._fold()
            if self.view.version != self._sent_version:
                self._encoded = self.view.encode()
                if self._send(b"V", self._encoded):
                    self._sent_version = self.view.version
                    sent_at = time.monotonic()

    def _fold(self) -> None:
        taken: list[tuple[out.Output, str]] = []
        take_waiting(self._outputs, taken, 100_000)
        for output, round_id in taken:
            try:
                self.view.apply(output, round_id)
            except Exception:
                log.exception("console_view_failed", output=output.kind)

    def _send(self, kind: bytes, data: bytes) -> bool:
        with self._write:
            sock = self._sock
            if sock is None:
                return False
            try:
                sock.sendall(_frame(kind, data))
            except OSError as exc:
                if not self._stopped.is_set():
                    log.warning("console_unreachable", error=str(exc))
                return False
            return True

    # --- requests ------------------------------------------------------------------------

    def _read_loop(self) -> None:
        while not self._stopped.is_set():
            sock = self._sock
            if sock is None or not self.running:
                if not self._restart():
                    self._stopped.wait(0.5)
                continue
            try:
                kind, size = HEADER.unpack(_read_exactly(sock, HEADER.size))
                if size > MAX_FRAME:
                    raise ConnectionError("a request larger than the console may send")
                data = _read_exactly(sock, size)
            except (OSError, ConnectionError, struct.error):
                if not self._stopped.is_set():
                    self._close_child_after_end()
                continue
            if kind == b"R":
                self._pool.submit(self._answer, data)
            elif kind == b"P" and self.people is not None:
                self._pool.submit(self._hear_people, data)

    def _close_child_after_end(self) -> None:
        log.error("console_ended", status=self._process.poll() if self._process else None)
        self._close_child()

    def _answer(self, data: bytes) -> None:
        try:
            request = json.loads(data)
            reply = self.door(str(request["who"]), str(request["line"]).encode())
            ident = request["id"]
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("console_request_unreadable", error=str(exc))
            return
        self._send(b"A", json.dumps({"id": ident, "reply": reply}).encode())

    def _hear_people(self, data: bytes) -> None:
        assert self.people is not None
        try:
            news = json.loads(data)
            if not isinstance(news, dict):
                raise ValueError("not an object")
            self.people(news)
        except ValueError as exc:
            log.warning("console_news_unreadable", error=str(exc))

    def _restart(self) -> bool:
        now = time.monotonic()
        if self._stopped.is_set() or now - self._started_at < RESTART_S or now < self._retry_at:
            return False
        if self._process is not None:
            log.error("console_ended", status=self._process.poll())
        self._close_child()
        again = bool(self.url)
        try:
            self._spawn()
        except OSError as exc:
            self._unavailable(exc)
            return False
        self.restarts += again
        return True
