"""A thread of its own fed with the core's outputs (or records) through a queue.

The core loop hands its outputs to subscribers on its own thread, which must never wait:
the integrity monitor and the shuffler agent each queue what they hear and do the work (an
analysis, a request to the shuffler) on their own thread, one output at a time. The meters
do the same with the records the projection takes (:class:`QueueWorker` of any item).
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Generic, TypeVar

import structlog

from station.core import outputs as out

log = structlog.get_logger(__name__)

Item = TypeVar("Item")


class _Marker:
    """A place in the queue (see :meth:`OutputWorker.wait_idle`)."""

    def __init__(self) -> None:
        self.done = threading.Event()


class QueueWorker(Generic[Item]):
    """Queue on the loop's thread (:meth:`put`), handle each item on this one (:meth:`_handle`,
    which subclasses write). A defect in handling one item is logged (``FAILED_EVENT``) and the
    worker goes on with the next."""

    THREAD_NAME = "queue-worker"
    FAILED_EVENT = "queue_worker_failed"

    def __init__(self) -> None:
        self._inbox: queue.Queue[Item | _Marker | None] = queue.Queue()  # see station.core.queues
        self._thread: threading.Thread | None = None

    def put(self, item: Item) -> None:
        """Called on the core loop's thread: queue, never block."""
        self._inbox.put(item)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.THREAD_NAME, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._inbox.put(None)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait_idle(self, timeout: float) -> bool:
        """Every item queued so far has been handled (for tests and benches)."""
        marker = _Marker()
        self._inbox.put(marker)
        return marker.done.wait(timeout)

    def _run(self) -> None:
        self._before()
        while (item := self._inbox.get()) is not None:
            if isinstance(item, _Marker):
                item.done.set()
                continue
            try:
                self._handle(item)
            except Exception:  # a defect in handling one item must not end the worker
                log.exception(self.FAILED_EVENT, **self._described(item))
            self._handled(item)

    def _before(self) -> None:
        """Work on this thread before the first item (nothing by default)."""

    def _handle(self, item: Item) -> None:
        raise NotImplementedError

    def _handled(self, item: Item) -> None:
        """After each item, handled or failed (nothing by default)."""

    def _described(self, item: Item) -> dict[str, Any]:
        """What the log says of an item that failed."""
        return {}


class OutputWorker(QueueWorker[out.Output]):
    """A :class:`QueueWorker` of the core's outputs (:meth:`on_output`)."""

    THREAD_NAME = "output-worker"
    FAILED_EVENT = "output_worker_failed"

    def on_output(self, output: out.Output) -> None:
        """Called on the core loop's thread: queue, never block."""
        self.put(output)

    def _described(self, item: out.Output) -> dict[str, Any]:
        return {"output": item.kind}
