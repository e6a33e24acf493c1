"""The station's side of the console: its child process, the picture it is fed, its requests.

The console's HTTP server runs in a process of its own (:mod:`station.console.process`), as
the scoreboard's does, so its pages and whatever a browser or a scanner sends never share the
core loop's interpreter. This module imports no web framework.

- **The picture.** The core loop hands each output the console shows to :meth:`on_output`
  (on the loop's thread: it only queues, with the round on the table at that moment and, at a
  table with a chip reader, the core's chips when a step has touched the layout since). A
  worker thread folds them into the :class:`~station.console.view.ConsoleView` once the core
  loop has handed over a whole batch, encodes the whole picture once and sends it, rationed by
  a :class:`~station.console.picture_budget.PictureBudget` (``PICTURE_BURST`` at once,
  ``PICTURE_RATE`` a second sustained: a change at a person's pace goes out at once); pictures
  overtaken before they go out are never sent.
- **Requests.** What a signed-in person asks comes back as a request line with who asks; a
  small pool of threads passes each through ``door`` (the control socket's own checks, see
  :meth:`station.service.control.ControlServer.serve_line`) and sends the answer back. A
  command waits for the table's verdict (up to 2 s), so a few run at once; more wait their turn.
- **Its life** is :class:`station.child_supervisor.ChildSupervisor`'s: the child dies with
  the station, stops when told within a second, and is started again (at most every
  ``RESTART_S``) if it ends on its own: the new one gets the same picture at once, so a
  console killed mid-round resumes the same view. It starts in the background, and one that
  cannot listen is tried again every ``RETRY_S``; the table never waits for it. What is the
  console's own is here: its command line and its settings sent first (the users' PIN hashes
  never appear on a command line), its message kinds and the words of its log lines.
"""

from __future__ import annotations

import errno
import json
import os
import queue
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from station.child_links import FramedSocket, Launched, spawn_with_socket
from station.child_process import frame
from station.child_supervisor import (
    RESTART_TIMEOUT_S,
    ChildSpec,
    ChildStartError,
    ChildSupervisor,
    Restarts,
    Words,
)
from station.console.picture_budget import PictureBudget
from station.console.view import ConsoleView
from station.core import outputs as out
from station.core.queues import take_waiting

log = structlog.get_logger(__name__)

START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 1.0
RESTART_S = 2.0
#: How often a console that could not listen is tried again.
RETRY_S = 30.0
#: Pictures a second sustained, and how many may go at once before the rate holds them back.
#: Folding and encoding a picture takes under half a millisecond (bench/chips.py's trace), so
#: 25 a second cost the table about 1% of a CPU; players putting chips down on several spots
#: at once change the picture more than ten times a second, and each change should be on the
#: dealer's screen within the 100 ms the chip reader's target allows (docs/benchmarks.md).
PICTURE_RATE, PICTURE_BURST = 25.0, 5
#: Requests served at once (each may wait up to 2 s for the table's verdict).
DOOR_THREADS = 4
MAX_FRAME = 1024 * 1024
#: The frames (station/console/process.py): settings, the picture, an answer (to the console);
#: a request, who signed in or was refused (from it).
SETTINGS, PICTURE, ANSWER, REQUEST, PEOPLE = b"C", b"V", b"A", b"R", b"P"

WORDS = Words(started="console_started", ended="console_ended", start_failed="console_unavailable",
              unreachable="console_unreachable")

#: Answers a request line for a user by name: the control socket's checks, then the table's.
Door = Callable[[str, bytes], dict[str, Any]]
#: Hears who signed in at the console, or was refused there (station/console/launch.py).
People = Callable[[dict[str, Any]], None]


class ConsoleStartError(ChildStartError):
    """The console could not serve (``errno`` as the bind's, e.g. EADDRINUSE)."""


class ConsoleProcess:
    """Start, feed and stop the console's process; answer what it asks through ``door``."""

    def __init__(self, settings: dict[str, Any], view: ConsoleView, door: Door, people: People | None = None) -> None:
        self.settings = settings
        self.view = view
        self.door = door
        self.people = people
        self.url = ""
        self._outputs: queue.Queue[tuple[out.Output, str, Mapping[str, Any] | None]] = queue.Queue()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._pool = ThreadPoolExecutor(DOOR_THREADS, thread_name_prefix="console-door")
        self._threads: list[threading.Thread] = []
        self._ready = threading.Event()
        self._encoded = view.encode()
        self._sent_version = -1  # the view's version last handed to the supervisor
        self._child = ChildSupervisor(ChildSpec(
            name="console", title="the console's process", launch=self._launch, log=log, words=WORDS,
            start_timeout_s=START_TIMEOUT_S, restart_timeout_s=RESTART_TIMEOUT_S, stop_timeout_s=STOP_TIMEOUT_S,
            restarts=Restarts(every_s=RESTART_S, after_failure_s=RETRY_S), state_kind=PICTURE,
            on_message=self._heard, on_up=self._listening, describe_failure=self._unavailable,
            start_error=ConsoleStartError))

    @property
    def pid(self) -> int | None:
        return self._child.pid

    @property
    def running(self) -> bool:
        return self._child.running

    @property
    def restarts(self) -> int:
        return self._child.restarts

    # --- the loop's side -----------------------------------------------------------------

    def on_output(self, output: out.Output, round_id: str, chips: Mapping[str, Any] | None = None) -> None:
        """An output the console shows (the core loop's thread): queued, never more; ``chips``
        the core's chips on the layout as they stand after it (None: unchanged). The picture
        is drawn at :meth:`on_batch_end`, from all of the batch's outputs: woken by its first
        output, the worker would send a picture of half an input, and the rest would wait
        out ``PICTURE_INTERVAL_S`` (a chip put on a spot would reach the screen 100 ms late)."""
        self._outputs.put((output, round_id, chips))

    def on_batch_end(self) -> None:
        """The core loop has handed over a batch's outputs (its thread): draw the picture."""
        if not self._outputs.empty():
            self._wake.set()

    # --- life --------------------------------------------------------------------------

    def start(self) -> ConsoleProcess:
        """Start the threads that feed the console; the console itself starts on one of them,
        so the station's start never waits for it (``wait_ready`` does, for whoever must).
        A console that cannot listen (its port held by another program) is logged and tried
        again every ``RETRY_S``: the table deals on without it (pedals, buttons and the
        control socket still work)."""
        self._child.offer(self._encoded)  # the picture resumed from the replayed machine
        self._sent_version = self.view.version
        thread = threading.Thread(target=self._fold_loop, name="console-feed", daemon=True)
        thread.start()
        self._threads.append(thread)
        self._child.start(wait=False)
        return self

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Wait until the console listens (tests, tools); False when it does not in time."""
        return self._ready.wait(timeout)

    def _launch(self) -> Launched[FramedSocket]:
        return spawn_with_socket(lambda fd: [sys.executable, "-m", "station.console.process", "--feed-fd", str(fd),
                                             "--station", str(os.getpid())],
                                 greeting=frame(SETTINGS, json.dumps(self.settings).encode()), max_frame=MAX_FRAME)

    def _listening(self, url: str) -> None:
        first = not self._ready.is_set()
        self.url = url
        self._ready.set()
        if first and sys.stderr.isatty():  # a person started the station by hand: say it plainly
            print(console_greeting(url, self.settings.get("users", [])), file=sys.stderr, flush=True)

    def _unavailable(self, exc: OSError) -> dict[str, Any]:
        """What ``console_unavailable`` says (docs/console.md: with the reason)."""
        reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        return {"address": f"{self.settings['host']}:{self.settings['port']}", "reason": reason}

    def begin_stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        self._child.begin_stop()

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        self.begin_stop()
        self._child.stop(timeout)
        for thread in self._threads:
            thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    # --- the picture ---------------------------------------------------------------------

    def _fold_loop(self) -> None:
        budget = PictureBudget(PICTURE_RATE, PICTURE_BURST)
        while not self._stopped.is_set():
            self._wake.wait(RESTART_S)
            self._wake.clear()
            self._fold()
            # At a person's pace each change goes out at once; in a flood (a table at full
            # speed) the budget holds the rate, the latest picture always within its interval.
            wait = budget.wait_s()
            if wait > 0 and self._stopped.wait(wait):
                return
            if self._stopped.is_set():
                return
            self._fold()
            if self.view.version != self._sent_version:
                self._encoded = self.view.encode()
                self._child.offer(self._encoded)  # the supervisor sends the newest, to each new console too
                self._sent_version = self.view.version
                budget.spend()

    def _fold(self) -> None:
        taken: list[tuple[out.Output, str, Mapping[str, Any] | None]] = []
        take_waiting(self._outputs, taken, 100_000)
        for output, round_id, chips in taken:
            try:
                self.view.apply(output, round_id, chips)
            except Exception:
                log.exception("console_view_failed", output=output.kind)

    # --- requests ------------------------------------------------------------------------

    def _heard(self, kind: bytes, data: bytes) -> None:
        """A frame from the console (the supervisor's watching thread): served on the pool."""
        if kind == REQUEST:
            self._pool.submit(self._answer, data)
        elif kind == PEOPLE and self.people is not None:
            self._pool.submit(self._hear_people, data)

    def _answer(self, data: bytes) -> None:
        try:
            request = json.loads(data)
            reply = self.door(str(request["who"]), str(request["line"]).encode())
            ident = request["id"]
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("console_request_unreadable", error=str(exc))
            return
        self._child.send(ANSWER, json.dumps({"id": ident, "reply": reply}).encode())

    def _hear_people(self, data: bytes) -> None:
        assert self.people is not None
        try:
            news = json.loads(data)
            if not isinstance(news, dict):
                raise ValueError("not an object")
            self.people(news)
        except ValueError as exc:
            log.warning("console_news_unreadable", error=str(exc))


#: PINs anyone may know: the shipped simulated table's (config/station.toml). A user whose PIN
#: is one of them is named with it on the simulated table, and is a warning on a real one.
KNOWN_PINS = ("1234", "5678")


def console_greeting(url: str, users: list[dict[str, Any]]) -> str:
    """What ``station run`` on a terminal says once the console listens: where it is, how to
    sign in, and any user whose PIN is one anyone may know (the shipped simulated table's)."""
    from station.config.pins import verify_pin

    known = [f"{u['name']} ({u['role']}) PIN {pin}" for u in users if u.get("pin_scrypt")
             for pin in KNOWN_PINS if verify_pin(pin, str(u["pin_scrypt"]))]
    lines = [f"The dealer's console: {url} (sign in with a name and PIN of [[control.users]])"]
    if known:
        lines.append("  Users with a PIN anyone may know (fine on a simulated table, never on a real one): "
                     + ", ".join(known))
    return "\n".join(lines)
