"""Shared helpers for the driver tests: an event recorder and fast link settings."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar, cast

from drivers.devices.link import LinkSettings
from station.events import Event

# Short timeouts keep fault tests quick; waits in tests are generous and never assert timing.
# The heartbeat is long so that pings do not interleave with the frames a test counts;
# the heartbeat test sets its own.
FAST = LinkSettings(reply_timeout=0.2, retries=3, reconnect_initial=0.02, reconnect_max=0.2, heartbeat=5.0)
WAIT = 10.0

#: An event class, for the typed waits of :class:`Recorder`.
E = TypeVar("E", bound=Event)


class Recorder:
    """The driver's emit sink: records events and lets a test wait for one."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[Event], bool], count: int = 1, timeout: float = WAIT) -> list[Event]:
        with self._cond:
            ok = self._cond.wait_for(lambda: len([e for e in self.events if predicate(e)]) >= count, timeout)
            matched = [e for e in self.events if predicate(e)]
        assert ok, f"waited {timeout}s for {count} matching event(s); got {self.events!r}"
        return matched

    def wait_kind(self, cls: type[E], count: int = 1, timeout: float = WAIT) -> list[E]:
        # cast: wait_for returns only the events that are instances of cls
        return cast("list[E]", self.wait_for(lambda e: isinstance(e, cls), count, timeout))

    def of(self, cls: type[E]) -> list[E]:
        with self._cond:
            return [e for e in self.events if isinstance(e, cls)]
