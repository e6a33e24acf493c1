"""Taking what is waiting in a queue between threads.

The station's threads hand work over through ``queue.Queue``, never ``queue.SimpleQueue``:
in CPython 3.11, ``SimpleQueue.get(timeout)`` waits forever when a signal handler runs past
its deadline, and then SIGTERM is never acted on (``tests/core/test_loop.py`` keeps that from
coming back). A consumer woken by one item takes everything else already there in one go.
"""

from __future__ import annotations

import queue
from typing import TypeVar

T = TypeVar("T")


def take_waiting(source: queue.Queue[T], batch: list[T], limit: int | None = None) -> list[T]:
    """Append to ``batch`` what ``source`` holds now, without waiting, until ``batch`` has
    ``limit`` items (no limit: all of it); returns ``batch``."""
    try:
        while limit is None or len(batch) < limit:
            batch.append(source.get_nowait())
    except queue.Empty:
        pass
    return batch
