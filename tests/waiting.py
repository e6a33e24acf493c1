"""The one way the tests wait for something: a predicate polled to a deadline.

Readiness is waited for by event, never guessed with a sleep: on a loaded machine (a second
test run, a CPU-bound job beside the suite) a process takes longer to start, a message
longer to arrive, and a fixed sleep that was enough on a quiet machine is not. The deadline
is only the point at which waiting longer is pointless; it says nothing about how long the
thing should take, which is measured by the benchmarks.

* :func:`wait_until`: until something holds (the workhorse);
* :func:`stays_false`: that something does *not* happen for a while (a negative test: the
  only wait here with a fixed length, because the length is what is tested);
* :func:`wait_for_line` and :func:`wait_for_logged`: until a log file says something;
* :class:`Sink`: an ``emit`` callback that keeps what it is given, waited on by event.

A ``time.sleep`` left in a test is a deliberate pace (a pedal held 0.4 s, a client that
trickles its bytes), never a guess at readiness, and says so in a comment.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K")

#: How often the predicate is asked again.
POLL_S = 0.02
#: How long a :class:`Sink` waits unless told: generous, a loaded machine must never fail a
#: test by being slow.
SINK_WAIT_S = 10.0


def wait_until(predicate: Callable[[], T | None], timeout: float, what: str, *, poll: float = POLL_S,
               ignoring: tuple[type[Exception], ...] = (), detail: Callable[[], object] | None = None) -> T:
    """Ask ``predicate`` until it gives something true and return that; after ``timeout``
    seconds, fail saying ``what`` was waited for, and ``detail()`` (a log's tail, the last
    status) if given. An exception of ``ignoring`` from the predicate counts as "not yet" (a
    socket not there yet, a server still starting); an ``AssertionError`` from it ends the
    wait at once (a process that died: waiting longer is pointless)."""
    for last in _asking(timeout, poll):
        try:
            value = predicate()
        except ignoring:
            value = None
        if value:
            return value
        if last:
            break
    more = f":\n{detail()}" if detail is not None else ""
    raise AssertionError(f"waited {timeout:g} s for {what}{more}")


def stays_false(predicate: Callable[[], object], seconds: float, what: str, *, poll: float = POLL_S,
                detail: Callable[[], object] | None = None) -> None:
    """That ``predicate`` stays false for ``seconds``, asked all along (not once at the end):
    the wait of a test that nothing happens (``what``) while it watches."""
    for _ in _asking(seconds, poll):
        if predicate():
            more = f":\n{detail()}" if detail is not None else ""
            raise AssertionError(f"{what} within {seconds:g} s{more}")


def _asking(seconds: float, poll: float) -> Iterator[bool]:
    """The moments to ask at, ``poll`` apart, for ``seconds``: the one pause of the tests'
    waits. Each says whether it is the last (the time is up once it has been asked)."""
    deadline = time.monotonic() + seconds
    while True:
        last = time.monotonic() >= deadline
        yield last
        if last:
            return
        time.sleep(poll)


def tail(path: Path, chars: int = 3000) -> str:
    """The end of a log file, for a failure's message."""
    try:
        return path.read_text(errors="replace")[-chars:]
    except FileNotFoundError:
        return f"({path} is not there)"


def lines_with(path: Path, text: str) -> list[str]:
    """The lines of ``path`` that contain ``text`` (none while the file is not there)."""
    try:
        content = path.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return [line for line in content.splitlines() if text in line]


def wait_for_line(path: Path, text: str, timeout: float, *, count: int = 1) -> str:
    """Until ``count`` lines of the log file ``path`` contain ``text``; returns the last of
    them. Fails with the log's tail."""
    found = wait_until(lambda: (lines := lines_with(path, text))[count - 1:] and lines, timeout,
                       f"{count}x {text!r} in {path.name}", poll=0.05, detail=lambda: tail(path))
    return found[count - 1]


def logged(path: Path, event: str) -> list[dict[str, Any]]:
    """The entries of a JSON log file (one object a line, as ``log_format = "json"`` writes)
    whose ``event`` is ``event``, in order."""
    entries = (json.loads(line) for line in lines_with(path, f'"{event}"') if line.startswith("{"))
    return [entry for entry in entries if entry.get("event") == event]


def wait_for_logged(path: Path, event: str, timeout: float, *, count: int = 1) -> list[dict[str, Any]]:
    """Until the JSON log file ``path`` holds ``count`` entries of ``event``; returns them all."""
    return wait_until(lambda: (found := logged(path, event))[count - 1:] and found, timeout,
                      f"{count}x {event} in {path.name}", poll=0.05, detail=lambda: tail(path))


class Sink(Generic[T]):
    """An ``emit`` callback that keeps what it is given, thread-safe; a test waits for what it
    expects, woken by each arrival (and asking again every :data:`POLL_S` as well: some
    predicates look at more than what arrived, a driver's statistics)."""

    def __init__(self) -> None:
        self._items: list[T] = []
        self._cond = threading.Condition()

    def __call__(self, item: T) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify_all()

    @property
    def items(self) -> list[T]:
        """What has arrived so far, in order (a copy)."""
        with self._cond:
            return list(self._items)

    def wait_for(self, predicate: Callable[[list[T]], object], timeout: float = SINK_WAIT_S,
                 what: str = "an event") -> list[T]:
        """Until ``predicate(items)`` holds; returns the items then."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self._items):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"waited {timeout:g} s for {what}; so far: {self._items!r}")
                self._cond.wait(min(left, POLL_S))
            return list(self._items)

    def wait_matching(self, match: Callable[[T], object], count: int = 1, timeout: float = SINK_WAIT_S) -> list[T]:
        """Until ``count`` items match; returns every item that matches."""
        items = self.wait_for(lambda items: sum(1 for item in items if match(item)) >= count, timeout,
                              f"{count} matching item(s)")
        return [item for item in items if match(item)]

    def wait_kind(self, kind: type[K], count: int = 1, timeout: float = SINK_WAIT_S) -> list[K]:
        """Until ``count`` items are of ``kind``; returns them all."""
        items = self.wait_for(lambda items: sum(1 for item in items if isinstance(item, kind)) >= count, timeout,
                              f"{count} {kind.__name__}")
        return [item for item in items if isinstance(item, kind)]
