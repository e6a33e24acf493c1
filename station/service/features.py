"""The one contract of every part beside the core loop, and the order they start and stop in.

A station is its core loop and an ordered list of :class:`Feature` objects built from its
configuration (:func:`station.service.assembly.build_features`): the floor feed and anchors,
the integrity monitor, the meters, the devices, the shuffler agent, the web scoreboard, the
publisher, the extensions (the simulated table), the control socket, the console. Each goes
through the same steps, in the list's order:

1. :meth:`Feature.prepare`, before the station has a thread or opens the journal (a child
   process is forked cheaply here);
2. :meth:`Feature.attach`, once the journal is replayed: the feature is handed the loop's
   :class:`~station.core.tap.LoopTap` (the one way it hears and feeds the loop) and builds
   what it needs; the loop does not run yet, so nothing it hears is missed;
3. :meth:`Feature.start`: its threads and children begin, before systemd hears READY, or just
   after it for a feature whose catch-up is not the table's start (``after_ready``);
4. :meth:`Feature.begin_stop` (all at once, a child asked to end while the rest stops), then
   :meth:`Feature.close`, stage by stage (:class:`StopStage`), each stage in the reverse of the
   list's order; the station does what lies between the stages (the core loop stops after the
   inputs, the run's last record is written before the floor feed drains).

A feature is closed once it has been prepared, whatever step the start reached, so each
closes only what it built. :meth:`Feature.status` adds its part to ``ctl status``. A new part
plugs in with one entry in the list: where it starts, stops and reports follows from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Any, ClassVar, Protocol

import structlog

from station.core.tap import LoopTap

log = structlog.get_logger("station.service")


class StopStage(IntEnum):
    """When a feature stops, in the order of the stages."""

    #: What posts inputs to the core loop (the control socket, the shuffler agent): stopped
    #: before the loop, so no input arrives that the loop would not take.
    INPUTS = 0
    #: What the loop feeds or what feeds the devices (the publisher, the devices, the web
    #: scoreboard, the console, the integrity monitor, the meters): stopped once the loop has.
    OUTPUTS = 1
    #: What stands in for the hardware (the simulators): stopped once no driver talks to it.
    EQUIPMENT = 2
    #: What carries the journal off the PC (the floor features): stopped after the run's last
    #: record, so that record reaches the floor too.
    FEED = 3


class Feature(Protocol):
    """A part of the station beside the core loop (see the module's steps)."""

    @property
    def name(self) -> str: ...
    @property
    def stage(self) -> StopStage: ...
    @property
    def after_ready(self) -> bool:
        """Whether :meth:`start` waits for READY (a catch-up that is not the table's start)."""
        ...

    def prepare(self) -> None: ...
    def attach(self, tap: LoopTap) -> None: ...
    def start(self) -> None: ...
    def begin_stop(self) -> None: ...
    def close(self) -> None: ...
    def status(self) -> dict[str, Any]: ...


class FeatureBase:
    """What most features share: nothing to fork before the station's threads, nothing that
    stops by itself in the background, nothing to add to the status. A feature overrides the
    steps it has."""

    name: ClassVar[str] = ""
    stage: ClassVar[StopStage] = StopStage.OUTPUTS
    after_ready: ClassVar[bool] = False
    _tap: LoopTap | None = None

    def attach(self, tap: LoopTap) -> None:
        """Keep the loop's tap for :meth:`start` (a feature that hears the loop at once
        overrides this, and keeps it too)."""
        self._tap = tap

    @property
    def tap(self) -> LoopTap:
        """The loop's tap, once attached."""
        assert self._tap is not None, "a feature is attached before it starts"
        return self._tap

    def prepare(self) -> None:
        """Nothing to start before the station's threads (most features)."""

    def begin_stop(self) -> None:
        """Nothing to ask to stop ahead of :meth:`close` (most features)."""

    def status(self) -> dict[str, Any]:
        return {}


class Features:
    """The features of one station, in the order of its list."""

    def __init__(self, features: Iterable[Feature] = ()) -> None:
        self._all: tuple[Feature, ...] = tuple(features)
        self._live: list[Feature] = []  # prepared, not yet closed

    def __iter__(self) -> Iterator[Feature]:
        return iter(self._all)

    def names(self) -> list[str]:
        """The features still to close, in their order."""
        return [feature.name for feature in self._live]

    def prepare(self) -> None:
        for feature in self._all:
            self._live.append(feature)  # closed from now on, whatever happens in its prepare
            feature.prepare()

    def attach(self, tap: LoopTap) -> None:
        for feature in self._all:
            feature.attach(tap)

    def start(self, *, after_ready: bool = False) -> None:
        """Start the features that start before READY, or (``after_ready``) those after it."""
        for feature in self._all:
            if feature.after_ready == after_ready:
                feature.start()

    def status(self) -> dict[str, Any]:
        """What each feature adds to ``ctl status``."""
        merged: dict[str, Any] = {}
        for feature in self._all:
            merged.update(feature.status())
        return merged

    def begin_stop(self) -> None:
        """Every feature begins to stop (in the reverse of the list's order)."""
        for feature in reversed(self._live):
            try:
                feature.begin_stop()
            except Exception:
                log.exception("feature_stop_failed", feature=feature.name)

    def close(self, stage: StopStage) -> None:
        """Stop the features of ``stage``, the last in the list first; each is stopped once. One
        that fails to stop is logged and the others still stop."""
        for feature in reversed([f for f in self._live if f.stage == stage]):
            self._live.remove(feature)
            try:
                feature.close()
            except Exception:
                log.exception("feature_stop_failed", feature=feature.name)
