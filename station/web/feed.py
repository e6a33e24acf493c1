"""The station's side of the web scoreboard: a child process, fed each new picture.

The scoreboard's HTTP server runs in a process of its own (:mod:`station.web.process`), so the
pages, the event streams and whatever a browser or a scanner sends never share the core
loop's interpreter. The station encodes each snapshot once, here, and sends it over a Unix
socket pair; the child frames it once and writes the same bytes to every viewer.

This module imports no web framework: the station's process never loads one.

The child's life is :class:`station.child_supervisor.ChildSupervisor`'s: it dies with the
station (parent-death signal, and the end of the socket), stops when told within a second, and
is started again if it ends on its own while the station runs (the last picture is sent again
at once). What is the scoreboard's own is here: its command line, its message kind (``S``, a
snapshot), the words of its log lines, and that a port another program holds stops the
station's start while a scoreboard slow to answer does not.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

import structlog

from station.child_links import FramedSocket, Launched, spawn_with_socket
from station.child_supervisor import (
    ChildSpec,
    ChildStartError,
    ChildSupervisor,
    Restarts,
    Words,
)
from station.web.snapshot import Snapshot, encode_snapshot

log = structlog.get_logger(__name__)

#: How long the station's start waits for the scoreboard to listen. One that has not answered
#: by then (a machine so loaded that a process at nice 10 hardly runs) does not hold the table
#: up: the station starts without it and the feed starts it again, waiting longer.
START_TIMEOUT_S = 15.0
RESTART_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 1.0
#: How long a picture may wait for a scoreboard that stopped reading (it is started again).
SEND_TIMEOUT_S = 1.0
#: Least time between two starts of a scoreboard that keeps ending.
RESTART_S = 2.0
#: The frame of a picture (station/web/process.py).
SNAPSHOT = b"S"

WORDS = Words(started="web_scoreboard_started", restarted="web_scoreboard_restarted", ended="web_scoreboard_ended",
              start_failed="web_scoreboard_restart_failed", slow_to_start="web_scoreboard_slow_to_start",
              unreachable="web_scoreboard_unreachable")


class ScoreboardStartError(ChildStartError):
    """The scoreboard process could not serve (``errno`` as the bind's, e.g. EADDRINUSE)."""


class ScoreboardProcess:
    """Start, feed and stop the scoreboard's process. ``publish`` is for one thread (the
    station's publisher); ``start`` and ``stop`` for the station's main thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, *, max_connections: int = 512) -> None:
        self.host = host
        self.port = port
        self.max_connections = max_connections
        self.url = ""
        self._child = ChildSupervisor(ChildSpec(
            name="scoreboard", title="the scoreboard process", launch=self._launch, log=log, words=WORDS,
            start_timeout_s=START_TIMEOUT_S, restart_timeout_s=RESTART_TIMEOUT_S, stop_timeout_s=STOP_TIMEOUT_S,
            restarts=Restarts(every_s=RESTART_S), state_kind=SNAPSHOT, on_up=self._listening,
            start_error=ScoreboardStartError))

    def _launch(self) -> Launched[FramedSocket]:
        return spawn_with_socket(lambda fd: [
            sys.executable, "-m", "station.web.process", "--feed-fd", str(fd), "--host", self.host,
            "--port", str(self.port), "--max-connections", str(self.max_connections), "--station", str(os.getpid()),
        ], send_timeout=SEND_TIMEOUT_S)

    def _listening(self, url: str) -> None:
        self.url = url

    @property
    def pid(self) -> int | None:
        return self._child.pid

    @property
    def running(self) -> bool:
        return self._child.running

    @property
    def restarts(self) -> int:
        return self._child.restarts

    def start(self) -> ScoreboardProcess:
        """Start the child and wait until it listens; raise :class:`ScoreboardStartError` if it
        cannot (its port held by another program, say). One that does not answer in time is
        left to the feed, which starts it again: the scoreboard must never keep the table from
        starting, and a slow start is the machine's load, not a fault of the configuration."""
        self._child.start(wait=True)
        if not self.url:  # slow to answer: where it will listen
            self.url = f"http://{self.host}:{self.port}/"
        return self

    def publish(self, snapshot: Snapshot | Mapping[str, Any]) -> int:
        """Hand ``snapshot`` to the scoreboard; returns its sequence number. Never blocks on
        the scoreboard: the sender thread sends the newest picture (pictures are whole, so one
        that is overtaken need not be sent)."""
        return self._child.offer(encode_snapshot(snapshot))

    def begin_stop(self) -> None:
        """Tell the scoreboard to stop now, without waiting for it (the station stops its other
        parts meanwhile); :meth:`stop` then waits for it."""
        self._child.begin_stop()

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Stop the scoreboard: every page's stream closes, and the pages reconnect to the
        next one. Returns within about ``timeout`` seconds."""
        self._child.stop(timeout)

    def current(self) -> dict[str, Any] | None:
        """The latest snapshot handed over."""
        data = self._child.newest
        return json.loads(data) if data is not None else None

    def __enter__(self) -> ScoreboardProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
