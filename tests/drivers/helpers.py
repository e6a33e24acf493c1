"""Shared helpers for the driver tests: an event recorder and fast link settings."""

from __future__ import annotations

from typing import TypeVar

from drivers.devices.link import LinkSettings
from station.events import Event

from ..waiting import SINK_WAIT_S, Sink

# Short timeouts keep fault tests quick; waits in tests are generous and never assert timing.
# The heartbeat is long so that pings do not interleave with the frames a test counts;
# the heartbeat test sets its own.
FAST = LinkSettings(reply_timeout=0.2, retries=3, reconnect_initial=0.02, reconnect_max=0.2, heartbeat=5.0)
WAIT = SINK_WAIT_S  # 10 s

#: An event class, for :meth:`Recorder.of`.
E = TypeVar("E", bound=Event)


class Recorder(Sink[Event]):
    """The driver's emit sink: a :class:`~tests.waiting.Sink` of station events."""

    @property
    def events(self) -> list[Event]:
        """What has arrived so far, in order (a copy)."""
        return self.items

    def of(self, cls: type[E]) -> list[E]:
        return [e for e in self.items if isinstance(e, cls)]
