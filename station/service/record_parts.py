"""The features that keep and carry the table's records: the floor features (anchors, the
floor feed, the metrics), the integrity monitor and the meters.

Each is a :class:`~station.service.features.Feature` built by
:func:`station.service.assembly.build_features`. The monitor and the meters start after
READY: their catch-up from the journal is not the table's start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from station.core.options import CoreOptions
from station.core.tap import LoopTap
from station.floor.process import PreparedOutbox, fork_outbox
from station.floor.service import CountedDevice, FloorConfiguration, FloorFeatures
from station.integrity.service import IntegrityService
from station.integrity.worker import QueueWorker
from station.meters.service import attach_meters
from station.service.features import FeatureBase, StopStage
from station.service.status import integrity_status

if TYPE_CHECKING:
    from station.config.table import TableSection
    from station.integrity.settings import IntegritySection


class FloorPart(FeatureBase):
    """Anchors, the floor feed and the metrics (docs/floor.md): they start before any device
    opens, and stop after the run's last record so that it reaches the floor too. The floor
    feed's process is forked first of all, before the station has a thread."""

    name = "floor"
    stage = StopStage.FEED

    def __init__(self, config: FloorConfiguration, config_path: Path, options: CoreOptions, journal_path: Path,
                 devices: Iterable[tuple[str, CountedDevice]], run_began_after: Callable[[], int]) -> None:
        self.config, self.config_path, self.options, self.journal_path = config, config_path, options, journal_path
        self.devices = devices
        self._began_after = run_began_after
        self.outbox: PreparedOutbox | None = None  # forked, until the feed takes it
        self.loop: LoopTap | None = None
        self.features: FloorFeatures | None = None

    @property
    def run_began_after(self) -> int:
        """The last record before this run's (the metrics count the significant events after it)."""
        return self._began_after()

    def prepare(self) -> None:
        if self.config.floor.enabled:
            self.outbox = fork_outbox()

    def attach(self, tap: LoopTap) -> None:
        super().attach(tap)
        self.loop = tap  # what the floor features read of the station (their StationParts)
        self.features = FloorFeatures.start(self)

    def start(self) -> None:
        """Started as it attached: the anchors follow the journal from before any device opens."""

    def close(self) -> None:
        if self.features is not None:
            self.features.close()
        if self.outbox is not None:  # forked, but the station stopped before the feed started
            self.outbox.discard()
            self.outbox = None

    def status(self) -> dict[str, Any]:
        return self.features.status() if self.features is not None else {}


class _WorkerPart(FeatureBase):
    """A feature whose work is one thread of its own (:class:`~station.integrity.worker.QueueWorker`),
    started after READY: what it hears meanwhile waits in its queue."""

    after_ready = True
    worker: QueueWorker[Any] | None = None

    def start(self) -> None:
        assert self.worker is not None
        self.worker.start()

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()


class IntegrityPart(_WorkerPart):
    """The integrity monitor, off the loop's thread (docs/integrity.md): it hears the outputs
    from the start (queued), and catches up to what the core replayed once READY is sent."""

    name = "integrity"

    def __init__(self, options: CoreOptions, section: IntegritySection, journal_path: Path) -> None:
        self.options, self.journal_path = options, journal_path
        self.settings = section.monitor_settings()
        self.service: IntegrityService | None = None

    def attach(self, tap: LoopTap) -> None:
        super().attach(tap)
        self.worker = self.service = IntegrityService(tap.post, self.options, self.settings, self.journal_path,
                                                      tap.journal.head()[0], note=tap.note)
        tap.subscribe(self.service.on_output, IntegrityService.KINDS)  # queued until it starts

    def status(self) -> dict[str, Any]:
        if self._tap is None:
            return {}
        return {"integrity": integrity_status(self.tap.published,
                                              self.service.summary if self.service is not None else None)}


class MetersPart(_WorkerPart):
    """The meters (docs/meters.md): every record the loop takes from the start (queued), folded
    off the loop's thread once READY is sent and the catch-up is done."""

    name = "meters"

    def __init__(self, options: CoreOptions, table: TableSection, journal_path: Path) -> None:
        self.options, self.table, self.journal_path = options, table, journal_path

    def attach(self, tap: LoopTap) -> None:
        super().attach(tap)
        self.worker = attach_meters(tap, self.options, self.table, self.journal_path)
