"""The station's side of every child process: start it, hear its hello, feed it, restart it, stop it.

The station runs its pages and its floor outbox in processes of their own (the web scoreboard,
the dealer's console, the floor outbox), so that nothing they do shares the core loop's
interpreter. Each used to start, greet, feed, restart and stop its child in a near-copy of
the others; :class:`ChildSupervisor` is that code once, and each child's class keeps only what
is its own: how it is launched (its command line, or the outbox's fork), its message kinds, the
words its log lines go by and what it shows in ``ctl status``.

What the supervisor does for every child:

- **start**: :attr:`ChildSpec.launch` makes one child (:func:`spawn_with_socket` for a
  command line fed over a socket pair; the outbox brings its own fork and pipes), then the
  supervisor waits for its hello (``ready`` with its address, or ``error`` with an errno) up
  to a deadline. The station's start may wait for the first child (``start(wait=True)``: a
  refusal such as a port in use is raised, a child slow to answer is left to the background),
  or not wait at all (``start(wait=False)``);
- **messages**: a watching thread reads what the child sends and hands each message to
  :attr:`ChildSpec.on_message`; :meth:`ChildSupervisor.send` sends one, a frame at a time;
- **the newest state**: :meth:`ChildSupervisor.offer` keeps the newest state, and a sender
  thread sends it whenever the child can take it: a state overtaken before it went out is
  never sent, and a child started again gets the newest at once;
- **restarts**: a child that ends on its own is started again (:class:`Restarts`: at most
  every ``every_s``, after a pause that may grow), logged once per end, and a restart waits
  longer for the hello than the station's start does (a slow start is the machine's load);
- **stop**: the quit message, a wait, then SIGKILL for a child that did not go.

This module imports nothing of the station but :mod:`station.child_process` (the wire) and
:mod:`station.child_links` (a child's process and link), and no logging library: each child's
class hands in its own logger.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import select
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol

from station.child_links import ForkedChild, L, Launched, exit_status, wait_or_kill
from station.child_process import HELLO, QUIT

#: How long the station's start waits for a child's hello.
START_TIMEOUT_S = 15.0
#: How long a restart waits for it: a child that is slow to answer is the machine's load (a
#: process stepping back from the table hardly runs while the tables take every CPU).
RESTART_TIMEOUT_S = 60.0
#: How long a stop waits for the child to go before it is killed.
STOP_TIMEOUT_S = 1.0
#: Least time between two starts of a child that keeps ending.
RESTART_S = 2.0
#: How often the watching thread looks at a quiet child (has it ended? is the station stopping?).
LOOK_S = 0.25


class ChildStartError(OSError):
    """A child could not start: ``errno`` as its own (EADDRINUSE for a port in use), or
    ETIMEDOUT when it did not answer in time."""



@dataclass(frozen=True)
class Restarts:
    """When a child that ended (or could not start) is started again: never sooner than
    ``every_s`` after the last start, and after a pause: ``backoff_s[n]`` after the n-th
    restart (the last one from then on), or ``after_failure_s``, when given, after a start
    that failed."""

    every_s: float = RESTART_S
    backoff_s: tuple[float, ...] = (0.0,)
    after_failure_s: float | None = None


@dataclass(frozen=True)
class Words:
    """The events a child's log lines go by (the docs and the tests know them by name).
    ``restarted`` is the word of a restart when it has its own (else ``started``);
    ``slow_to_start`` of a first start that did not answer in time, which is not fatal (else
    ``start_failed``); ``unreachable`` of a send that failed, ``killed`` of a stop that had
    to kill (none of these when None)."""

    started: str
    ended: str
    start_failed: str
    restarted: str | None = None
    slow_to_start: str | None = None
    unreachable: str | None = None
    killed: str | None = None


class EventLog(Protocol):
    """A structlog logger, as far as the supervisor uses one."""

    def info(self, event: str, **fields: Any) -> Any: ...

    def warning(self, event: str, **fields: Any) -> Any: ...

    def error(self, event: str, **fields: Any) -> Any: ...

    def exception(self, event: str, **fields: Any) -> Any: ...


@dataclass(frozen=True)
class ChildSpec(Generic[L]):
    """What is a child's own: its name (for threads), what it is called in an error
    (``title``), how it is launched, its log and words, whether it says hello, its waits and
    restarts, its quit message, the kind of its newest state (None: it has none), what is done
    with what it sends, what happens when one comes up (``on_up(url)``), the fields of its
    ``started`` line, the fields of a failed start's line (``describe_failure``; else
    ``error``) and the error a refused start raises."""

    name: str
    title: str
    launch: Callable[[], Launched[L]]
    log: EventLog
    words: Words
    hello: bool = True
    start_timeout_s: float = START_TIMEOUT_S
    restart_timeout_s: float = RESTART_TIMEOUT_S
    stop_timeout_s: float = STOP_TIMEOUT_S
    restarts: Restarts = Restarts()
    quit: tuple[bytes, bytes] = (QUIT, b"")
    state_kind: bytes | None = None
    on_message: Callable[[bytes, bytes], None] | None = None
    on_up: Callable[[str], None] | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    describe_failure: Callable[[OSError], dict[str, Any]] | None = None
    start_error: type[OSError] = ChildStartError


class ChildSupervisor(Generic[L]):
    """One child of the station, kept running (the module's docstring says how). ``offer`` and
    ``send`` may be called from any thread; ``start`` and ``stop`` from the station's main
    thread. ``pid``, ``running`` and ``restarts`` (starts that succeeded after the first
    attempt) are for status."""

    def __init__(self, spec: ChildSpec[L]) -> None:
        self.spec = spec
        self.url = ""
        self.restarts = 0
        self._child: Launched[L] | None = None
        self._early: list[tuple[bytes, bytes]] = []  # messages that came with the hello
        self._lock = threading.Lock()  # which child is current
        self._write = threading.Lock()  # one frame at a time on its link
        self._changed = threading.Condition()  # the newest state, a new child, the stop
        self._stopping = threading.Event()
        self._up_once = threading.Event()
        self._newest: bytes | None = None
        self._version = 0
        self._generation = 0
        self._attempts = 0
        self._attempted_at = -math.inf
        self._next_at = 0.0
        self._quit_sent = False
        self._threads: list[threading.Thread] = []

    # --- for status ----------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        child = self._child
        return child.process.pid if child is not None and not child.retired else None

    @property
    def running(self) -> bool:
        child = self._child
        return child is not None and not child.retired and child.process.poll() is None

    @property
    def link(self) -> L | None:
        """The current child's link (None between two children): for a child's own writes
        that must never wait on the supervisor (the outbox's commit numbers)."""
        child = self._child
        return child.link if child is not None and not child.retired else None

    @property
    def newest(self) -> bytes | None:
        return self._newest

    def wait_up(self, timeout: float) -> bool:
        """Wait until a child has come up once; False when none did in time."""
        return self._up_once.wait(timeout)

    # --- life --------------------------------------------------------------------------

    def start(self, *, wait: bool = True) -> ChildSupervisor[L]:
        """Start the child and the threads that keep it. With ``wait``, the first child starts
        now and a refusal is raised (``spec.start_error``; nothing is left running), but one
        that did not answer in time is logged and left to the background, which starts it
        again: a slow start is the machine's load, and the table must not wait for it.
        Without, it starts on the watching thread, and a failed start is logged and tried
        again."""
        self._stopping.clear()
        self._quit_sent = False
        if wait:
            try:
                self._up(*self._launch(self.spec.start_timeout_s))
            except OSError as exc:
                if exc.errno != errno.ETIMEDOUT:
                    raise
                retry = self._schedule(failed=True)
                self.spec.log.warning(self.spec.words.slow_to_start or self.spec.words.start_failed, error=str(exc),
                                      retry_s=retry,
                                      note="the station starts without it; it is started again in the background")
        self._thread(self._watch, "watch")
        if self.spec.state_kind is not None:
            self._thread(self._send_loop, "send")
        return self

    def _thread(self, target: Callable[[], None], role: str) -> None:
        thread = threading.Thread(target=target, name=f"{self.spec.name}-{role}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def begin_stop(self, farewell: tuple[bytes, bytes] | None = None) -> None:
        """Tell the child to stop now, without waiting for it (the station stops its other
        parts meanwhile); :meth:`stop` then waits. ``farewell`` replaces the spec's quit
        message (the outbox's says how long it may drain)."""
        self._stopping.set()
        with self._changed:
            self._changed.notify_all()
        child = self._child
        if child is None or self._quit_sent:
            return
        self._quit_sent = True
        if self._write.acquire(timeout=0.2):
            try:
                child.link.send_quit(*(farewell or self.spec.quit))
            finally:
                self._write.release()
        else:  # a send is stuck on it: the end of its feed tells it instead
            child.link.shutdown()

    def stop(self, timeout: float | None = None, farewell: tuple[bytes, bytes] | None = None) -> None:
        """Stop the child: the quit message, up to ``timeout`` (the spec's stop wait when
        None) for it to go, then SIGKILL; the threads end with it."""
        wait_s = self.spec.stop_timeout_s if timeout is None else timeout
        self.begin_stop(farewell)
        child = self._child
        if child is not None and not wait_or_kill(child.process, wait_s) and self.spec.words.killed:
            self.spec.log.warning(self.spec.words.killed, pid=child.process.pid, reason="it did not stop in time")
        for thread in self._threads:
            thread.join(max(wait_s, LOOK_S * 4))
        self._threads.clear()
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            self._discard(child)

    # --- the state and the messages ---------------------------------------------------------

    def offer(self, data: bytes) -> int:
        """Make ``data`` the newest state (sent by the sender thread); returns its number.
        Never waits on the child."""
        with self._changed:
            self._newest = data
            self._version += 1
            self._changed.notify_all()
            return self._version

    def send(self, kind: bytes, data: bytes) -> bool:
        """Send one message to the current child; False when there is none or it cannot take
        it. A child that stopped reading (the send timed out) is ended and started again."""
        with self._write:
            child = self._child
            if child is None or child.retired or self._stopping.is_set():
                return False
            try:
                child.link.send(kind, data)
                return True
            except OSError as exc:
                failure = exc
        if not self._stopping.is_set() and self.spec.words.unreachable:
            self.spec.log.warning(self.spec.words.unreachable, error=str(failure))
        if isinstance(failure, TimeoutError):  # part of a frame may have gone: its feed is lost
            child.retired = True
            child.link.shutdown()
        return False

    def _send_loop(self) -> None:
        kind = self.spec.state_kind
        assert kind is not None
        sent = (0, 0)
        while True:
            with self._changed:
                while not self._stopping.is_set() and (
                        self._newest is None or self._child is None or (self._generation, self._version) == sent):
                    self._changed.wait()
                if self._stopping.is_set():
                    return
                current, data = (self._generation, self._version), self._newest
            assert data is not None
            if self.send(kind, data):
                sent = current
            elif self._stopping.wait(0.5):  # not now: again shortly, with the newest state then
                return

    # --- the child's life ------------------------------------------------------------------

    def _launch(self, timeout: float) -> tuple[Launched[L], str, list[tuple[bytes, bytes]]]:
        """Launch one child and wait up to ``timeout`` for its hello: (child, url, messages
        that came with the hello); raises ``spec.start_error`` when it cannot serve."""
        self._attempts += 1
        self._attempted_at = time.monotonic()
        child = self.spec.launch()
        if not self.spec.hello:
            return child, "", []
        try:
            url, early = self._hello(child, timeout)
        except BaseException:
            self._discard(child)
            raise
        return child, url, early

    def _hello(self, child: Launched[L], timeout: float) -> tuple[str, list[tuple[bytes, bytes]]]:
        spec, process = self.spec, child.process
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if self._stopping.is_set():
                raise spec.start_error(errno.ECANCELED, "the station is stopping")
            if left <= 0:
                process.kill()
                raise spec.start_error(errno.ETIMEDOUT, f"no answer within {timeout:.0f} s")
            readable, _, _ = select.select([child.link], [], [], min(left, 0.2))
            if not readable:
                if (code := process.poll()) is not None:
                    raise spec.start_error(0, f"{spec.title} ended with status {code}")
                continue
            try:
                messages = child.link.receive()
            except (EOFError, OSError, ValueError):
                raise spec.start_error(0, f"{spec.title} ended with status {exit_status(process)}") from None
            if messages:
                break
        (kind, data), early = messages[0], messages[1:]
        try:
            answer = json.loads(data) if kind == HELLO else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise spec.start_error(0, "an unreadable answer")
        if "ready" not in answer:
            raise spec.start_error(int(answer.get("errno") or 0), str(answer.get("error") or "it did not start"))
        return str(answer["ready"]), early

    def _up(self, child: Launched[L], url: str, early: list[tuple[bytes, bytes]]) -> None:
        with self._lock:
            if self._stopping.is_set():  # stopped while it started: it never becomes current
                stopped = True
            else:
                stopped = False
                self._child, self._early = child, early
        if stopped:
            self._discard(child)
            return
        restart = self._attempts > 1
        self.restarts += restart
        self.url = url or self.url
        with self._changed:
            self._generation += 1
            self._changed.notify_all()
        spec = self.spec
        word = spec.words.restarted if restart and spec.words.restarted else spec.words.started
        shown = {"pid": child.process.pid, **({"url": url} if spec.hello else {}), **child.fields, **spec.fields}
        spec.log.info(word, **shown)
        if spec.on_up is not None:
            spec.on_up(url)
        self._up_once.set()

    def _watch(self) -> None:
        """Start the child when it is due, hear it while it runs, and start it again when it
        ends on its own (until the station stops)."""
        while not self._stopping.is_set():
            child = self._child
            if child is None:
                if self._stopping.wait(max(0.0, self._next_at - time.monotonic())):
                    return
                self._attempt()
                continue
            self._hear(child)
            if self._stopping.is_set():
                return
            self._after_end(child)

    def _attempt(self) -> None:
        spec = self.spec
        first = self._attempts == 0
        try:
            child, url, early = self._launch(spec.start_timeout_s if first else spec.restart_timeout_s)
        except OSError as exc:
            if self._stopping.is_set():
                return
            retry = self._schedule(failed=True)
            shown = spec.describe_failure(exc) if spec.describe_failure is not None else {"error": str(exc)}
            spec.log.error(spec.words.start_failed, **shown, retry_s=retry)
            return
        self._up(child, url, early)

    def _hear(self, child: Launched[L]) -> None:
        """Hand on what ``child`` sends until it ends (its link's end, or its process's)."""
        with self._lock:
            early, self._early = self._early, []
        for kind, data in early:
            self._dispatch(kind, data)
        while self._child is child and not child.retired:
            try:
                readable, _, _ = select.select([child.link], [], [], LOOK_S)
                if not readable:
                    if child.process.poll() is not None:
                        return
                    continue
                messages = child.link.receive()
            except (EOFError, OSError, ValueError):
                return
            for kind, data in messages:
                self._dispatch(kind, data)

    def _dispatch(self, kind: bytes, data: bytes) -> None:
        if self.spec.on_message is None:
            return
        try:
            self.spec.on_message(kind, data)
        except Exception:
            self.spec.log.exception(f"{self.spec.name}_message_failed", kind=kind.decode("ascii", "replace"))

    def _after_end(self, child: Launched[L]) -> None:
        """``child`` ended on its own (or was given up on): reap it, log it once, and say
        when the next one starts."""
        with self._lock:
            if self._child is not child:
                return
            self._child = None
        status = child.process.poll()
        if status is None and not child.retired:  # its link has ended: its process is ending
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = child.process.wait(self.spec.stop_timeout_s)
        self._discard(child)
        retry = self._schedule(failed=False)
        if not child.retired:
            self.spec.log.error(self.spec.words.ended, pid=child.process.pid,
                                status=status if status is not None else child.process.poll(), restart_in_s=retry)

    def _schedule(self, *, failed: bool) -> float:
        """When the next start may be: returns the seconds until then."""
        policy, now = self.spec.restarts, time.monotonic()
        if failed and policy.after_failure_s is not None:
            pause = policy.after_failure_s
        else:
            pause = policy.backoff_s[min(max(0, self._attempts - 1), len(policy.backoff_s) - 1)]
        wait = max(pause, self._attempted_at + policy.every_s - now)
        self._next_at = now + wait
        return round(wait, 2)

    def _discard(self, child: Launched[L]) -> None:
        """Close ``child``'s link (a child still there sees the end of its feed), give it the
        stop's wait, kill it if it is still there, and let go of its process."""
        with contextlib.suppress(OSError):
            child.link.close()
        wait_or_kill(child.process, self.spec.stop_timeout_s)
        if isinstance(child.process, ForkedChild):
            child.process.release()
