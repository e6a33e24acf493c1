"""The station's side of the web scoreboard: a child process, fed each new picture.

The scoreboard's HTTP server runs in a process of its own (:mod:`station.web.process`), so the
pages, the event streams and whatever a browser or a scanner sends never share the core
loop's interpreter. The station encodes each snapshot once, here, and sends it over a Unix
socket pair; the child frames it once and writes the same bytes to every viewer.

This module imports no web framework: the station's process never loads one.

The child dies with the station (parent-death signal, and the end of the socket), stops when
told within a second, and is started again if it ends on its own while the station runs (the
last picture is sent again at once).
"""

from __future__ import annotations

import errno
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

import structlog

from station.web.snapshot import Snapshot, encode_snapshot

log = structlog.get_logger(__name__)

_HEADER_SIZE = 5
#: How long the station's start waits for the scoreboard to listen. One that has not answered
#: by then (a machine so loaded that a process at nice 10 hardly runs) does not hold the table
#: up: the station starts without it and the feed starts it again, waiting longer.
START_TIMEOUT_S = 15.0
RESTART_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 1.0
SEND_TIMEOUT_S = 1.0
#: Least time between two starts of a scoreboard that keeps ending.
RESTART_S = 2.0


def _send_quit(sock: socket.socket) -> None:
    """Ask the scoreboard to stop; a scoreboard already gone needs no asking."""
    try:
        sock.settimeout(0.2)
        sock.sendall(_frame(b"Q", b""))
    except OSError:
        pass


def _frame(kind: bytes, data: bytes) -> bytes:
    return kind + len(data).to_bytes(4, "big") + data


class ScoreboardStartError(OSError):
    """The scoreboard process could not serve (``errno`` as the bind's, e.g. EADDRINUSE)."""


class ScoreboardProcess:
    """Start, feed and stop the scoreboard's process. ``publish`` is for one thread (the
    station's publisher); ``start`` and ``stop`` for the station's main thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, *, max_connections: int = 512) -> None:
        self.host = host
        self.port = port
        self.max_connections = max_connections
        self.url = ""
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._last: bytes | None = None
        self._version = 0
        self._started_at = 0.0
        self._lock = threading.Lock()  # the child and its socket
        self._changed = threading.Condition()  # the newest picture, for the sender thread
        self._sender: threading.Thread | None = None
        self._stopped = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> ScoreboardProcess:
        """Start the child and wait until it listens; raise :class:`ScoreboardStartError` if it
        cannot (its port held by another program, say). One that does not answer in time is
        left to the feed, which starts it again: the scoreboard must never keep the table from
        starting, and a slow start is the machine's load, not a fault of the configuration."""
        with self._lock:
            self._stopped = False
            try:
                self._spawn(START_TIMEOUT_S)
            except ScoreboardStartError as exc:
                if exc.errno != errno.ETIMEDOUT:
                    raise
                log.warning("web_scoreboard_slow_to_start", error=str(exc), retry_s=RESTART_S,
                            note="the station starts without it; it is started again in the background")
                self.url = f"http://{self.host}:{self.port}/"
        self._sender = threading.Thread(target=self._send_loop, name="scoreboard-feed", daemon=True)
        self._sender.start()
        log.info("web_scoreboard_started", url=self.url, pid=self.pid)
        return self

    def _spawn(self, timeout: float) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [
            sys.executable, "-m", "station.web.process", "--feed-fd", str(theirs.fileno()),
            "--host", self.host, "--port", str(self.port), "--max-connections", str(self.max_connections),
            "--station", str(os.getpid()),
        ]
        self._started_at = time.monotonic()
        try:
            process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                       process_group=0)
        finally:
            theirs.close()
        answer = self._read_answer(ours, process, timeout)
        if "ready" not in answer:
            ours.close()
            process.wait(5)
            code = int(answer.get("errno") or 0)
            raise ScoreboardStartError(code, str(answer.get("error") or "the scoreboard did not start"))
        ours.settimeout(SEND_TIMEOUT_S)
        self._process, self._sock, self.url = process, ours, str(answer["ready"])

    @staticmethod
    def _read_answer(sock: socket.socket, process: subprocess.Popen[bytes], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        buffer = b""
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                process.kill()
                return {"error": f"no answer within {timeout:.0f} s", "errno": errno.ETIMEDOUT}
            readable, _, _ = select.select([sock], [], [], min(left, 0.2))
            if not readable:
                if process.poll() is not None:
                    return {"error": f"the scoreboard process ended with status {process.returncode}"}
                continue
            chunk = sock.recv(4096)
            if not chunk:
                return {"error": f"the scoreboard process ended with status {process.wait(5)}"}
            buffer += chunk
        answer = json.loads(buffer.split(b"\n", 1)[0])
        return answer if isinstance(answer, dict) else {"error": "unreadable answer"}

    def publish(self, snapshot: Snapshot | Mapping[str, Any]) -> int:
        """Hand ``snapshot`` to the scoreboard; returns its sequence number. Never blocks on
        the scoreboard: a sender thread sends the newest picture (pictures are whole, so one
        that is overtaken need not be sent), and starts a scoreboard that has ended again (at
        most every ``RESTART_S``)."""
        data = encode_snapshot(snapshot)
        with self._changed:
            self._last = data
            self._version += 1
            self._changed.notify()
            return self._version

    def _send_loop(self) -> None:
        sent = 0
        while True:
            with self._changed:
                while not self._stopped and (self._version == sent or self._last is None):
                    self._changed.wait(RESTART_S)
                    if not self._stopped and self._last is not None and not self.running:
                        break  # ended on its own: start it again with the last picture
                if self._stopped:
                    return
                version, data = self._version, self._last
            assert data is not None
            if self._send(data):
                sent = version
            else:
                with self._changed:  # not now: try again shortly, with the newest picture then
                    self._changed.wait(0.5)

    def _send(self, data: bytes) -> bool:
        with self._lock:
            if self._stopped:
                return False
            if (self._sock is None or not self.running) and not self._restart():
                return False
            assert self._sock is not None
            try:
                self._sock.sendall(_frame(b"S", data))
            except OSError as exc:
                log.warning("web_scoreboard_unreachable", error=str(exc))
                self._close_child()
                return False
            return True

    def _restart(self) -> bool:
        if time.monotonic() - self._started_at < RESTART_S:
            return False
        if self._process is not None:
            log.error("web_scoreboard_ended", status=self._process.poll())
        self._close_child()
        try:
            self._spawn(RESTART_TIMEOUT_S)
        except OSError as exc:
            log.error("web_scoreboard_restart_failed", error=str(exc))
            return False
        self.restarts += 1
        log.info("web_scoreboard_restarted", url=self.url, pid=self.pid)
        return True

    def _close_child(self, timeout: float = STOP_TIMEOUT_S) -> None:
        sock, self._sock = self._sock, None
        process, self._process = self._process, None
        if sock is not None:
            _send_quit(sock)
            sock.close()
        if process is not None:
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    def begin_stop(self) -> None:
        """Tell the scoreboard to stop now, without waiting for it (the station stops its other
        parts meanwhile); :meth:`stop` then waits for it."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        with self._lock:
            sock = self._sock
            if sock is not None:
                _send_quit(sock)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Stop the scoreboard: every page's stream closes, and the pages reconnect to the
        next one. Returns within about ``timeout`` seconds."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        with self._lock:
            self._close_child(timeout)
        sender, self._sender = self._sender, None
        if sender is not None:
            sender.join(timeout)

    def current(self) -> dict[str, Any] | None:
        """The latest snapshot sent."""
        data = self._last
        return json.loads(data) if data is not None else None

    def __enter__(self) -> ScoreboardProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
