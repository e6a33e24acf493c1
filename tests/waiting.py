"""The one way the tests wait for something: a predicate polled to a deadline.

Readiness is waited for by event, never guessed with a sleep: on a loaded machine (a second
test run, a CPU-bound job beside the suite) a process takes longer to start, a message
longer to arrive, and a fixed sleep that was enough on a quiet machine is not. The deadline
is only the point at which waiting longer is pointless; it says nothing about how long the
thing should take, which is measured by the benchmarks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: How often the predicate is asked again.
POLL_S = 0.02


def wait_until(predicate: Callable[[], T | None], timeout: float, what: str, *, poll: float = POLL_S) -> T:
    """Ask ``predicate`` until it gives something true and return that; after ``timeout``
    seconds, fail saying ``what`` was waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(poll)
