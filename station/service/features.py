"""The station's parts beside the core loop, and the one order in which they stop.

Each part the station starts (the control socket, the shuffler agent, the integrity monitor,
the meters, the devices, the web scoreboard, the publisher, the console, the floor features)
is registered as a :class:`Feature` when it has started, with the stage of the stop it belongs
to. :meth:`Features.begin_stop` tells every one that can to begin at once (a child process
asked to end while the rest stops); :meth:`Features.close` then stops one stage at a time, each
in the reverse of the order its features started, and the station does what lies between the
stages (the core loop stops after the inputs; the run's last record is written before the
floor feed drains). A new part plugs in with one registration: where it stops follows from
its stage, not from an edit of the station's shutdown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import IntEnum

import structlog

log = structlog.get_logger("station.service")


class StopStage(IntEnum):
    """When a feature stops, in the order of the stages."""

    #: What posts inputs to the core loop (the control socket, the shuffler agent): stopped
    #: before the loop, so no input arrives that the loop would not take.
    INPUTS = 0
    #: What the loop feeds or what feeds the devices (the publisher, the devices, the web
    #: scoreboard, the console, the integrity monitor, the meters): stopped once the loop has.
    OUTPUTS = 1
    #: What carries the journal off the PC (the floor features): stopped after the run's last
    #: record, so that record reaches the floor too.
    FEED = 2


@dataclass(frozen=True)
class Feature:
    """A started part of the station: its name, its stage, how it stops."""

    name: str
    stage: StopStage
    close: Callable[[], None]
    #: Begins the stop and returns at once (None: the part has nothing to begin).
    begin_stop: Callable[[], None] | None = None


class Features:
    """The features of one station, in the order they started."""

    def __init__(self) -> None:
        self._started: list[Feature] = []

    def started(self, name: str, stage: StopStage, close: Callable[[], None],
                begin_stop: Callable[[], None] | None = None) -> None:
        """Register a part that has started."""
        self._started.append(Feature(name, stage, close, begin_stop))

    def __iter__(self) -> Iterator[Feature]:
        return iter(tuple(self._started))

    def names(self) -> list[str]:
        return [feature.name for feature in self._started]

    def begin_stop(self) -> None:
        """Every feature that can begins to stop (in the reverse order of their start)."""
        for feature in reversed(self._started):
            if feature.begin_stop is not None:
                feature.begin_stop()

    def close(self, stage: StopStage) -> None:
        """Stop the features of ``stage``, the last started first; each is stopped once. One
        that fails to stop is logged and the others still stop."""
        for feature in reversed([f for f in self._started if f.stage == stage]):
            self._started.remove(feature)
            try:
                feature.close()
            except Exception:
                log.exception("feature_stop_failed", feature=feature.name)
