"""How a running station gets its anchors, its floor feed and its metrics.

They are features of the service, configured in the station's own configuration
(``[floor]``, ``[metrics]``), not plug-ins. The service's floor part
(``station/service/record_parts.py``) calls :meth:`FloorFeatures.start` once the journal is
replayed, before any device opens,
adds :meth:`FloorFeatures.status` to ``ctl status`` and calls :meth:`FloorFeatures.close` when
it stops. They are consumers: they hear the core loop's commits (one hook) and some of its
outputs, and read the journal; they never change the table.

- The anchors always run (docs/floor.md, "Anchors"): the head is logged and in ``ctl status``
  even with the feed off.
- The floor feed runs when ``[floor] enabled``, in a process of its own
  (:mod:`station.floor.process`, :mod:`station.floor.outbox`).
- The metrics run when ``[metrics] enabled`` (:mod:`station.metrics`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from station.config.devices import DevicesSection
from station.config.errors import ConfigError
from station.config.table import StationSection, TableSection
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord
from station.core.states import STATES
from station.core.tap import CommitHook, LoopTap
from station.floor.anchors import AnchorClock
from station.floor.mqtt import BrokerOptions, BrokerSettingsError, check_options
from station.floor.process import FloorFeed, PreparedOutbox
from station.floor.settings import FloorSection, MetricsSection, table_id
from station.journal.anchors import AnchorFileError, journal_id, read_key

if TYPE_CHECKING:
    from station.metrics.exporter import MetricsServer, Readings, StationMetrics

log = structlog.get_logger("station.floor")


class LinkCounts(Protocol):
    """A device link's counts, as the metrics read them."""

    reconnections: int
    bad_frames: int
    faults: int
    frames_in: int
    retransmissions: int


class CountedDevice(Protocol):
    """What the metrics read of a device (its driver: ``drivers.devices.contract.Device``)."""

    @property
    def connected(self) -> bool: ...
    @property
    def stats(self) -> LinkCounts: ...


class FloorConfiguration(Protocol):
    """The sections of the station's configuration the floor features read."""

    @property
    def station(self) -> StationSection: ...
    @property
    def table(self) -> TableSection: ...
    @property
    def devices(self) -> DevicesSection: ...
    @property
    def floor(self) -> FloorSection: ...
    @property
    def metrics(self) -> MetricsSection: ...


class StationParts(Protocol):
    """What the floor features are given of the running station (the service's floor part)."""

    @property
    def config_path(self) -> Path: ...
    @property
    def config(self) -> FloorConfiguration: ...
    @property
    def options(self) -> CoreOptions: ...
    @property
    def journal_path(self) -> Path: ...
    @property
    def loop(self) -> LoopTap | None: ...
    @property
    def devices(self) -> Iterable[tuple[str, CountedDevice]] | None: ...
    @property
    def run_began_after(self) -> int:
        """The last record before this run's."""
        ...
    outbox: PreparedOutbox | None  # forked at the station's start (station.floor.process)


class FloorFeatures:
    """The anchors, the floor feed and the metrics of one station."""

    def __init__(self, station: StationParts) -> None:
        assert station.loop is not None, "the features start once the journal is replayed"
        self.station = station
        self.loop: LoopTap = station.loop
        config = station.config
        self.floor = config.floor
        self.table = table_id(config.floor, config.station.name)
        journal = self.loop.journal
        first, last = journal.first_hash(), journal.last()
        self.journal_id = journal_id(first) if first is not None else ""
        self.currency: str | None = getattr(config.table, "currency", None) or None
        from station.config.options import software_record

        self.software = str(software_record().get("version", ""))
        problems = setting_problems(config, station.journal_path)
        if problems:
            raise ConfigError(station.config_path, problems)
        key = read_key(self.floor.anchor_key_file) if self.floor.anchor_key_file else None
        self.publisher: FloorFeed | None = None
        if config.floor.enabled:
            level = logging.getLevelName(logging.getLogger().level).lower()
            self.publisher = FloorFeed(
                config.floor, table=self.table, journal=station.journal_path, currency=self.currency,
                devices=[name for name, _ in config.devices.configured()], software=self.software,
                log_format=config.station.log_format,
                log_level=level if level in ("debug", "info", "warning", "error") else config.station.log_level)
        self.anchors = AnchorClock(
            table=self.table, journal_id=self.journal_id, tip=(last.seq, last.hash) if last else (0, ""),
            every_records=config.floor.anchor_records, every_seconds=config.floor.anchor_seconds, key=key,
            sink=self.publisher.publish_anchor if self.publisher is not None else None)
        self.tip = last.seq if last is not None else 0
        self.metrics: StationMetrics | None = None
        self.metrics_server: MetricsServer | None = None
        hooks: list[CommitHook] = [self.anchors.on_commit]
        if config.metrics.enabled:
            self.metrics = self._start_metrics(station)
            hooks.append(self.metrics.on_commit)
        if self.publisher is not None:
            notify = self.publisher.notify
            hooks.append(lambda _s, _c, seq, _h: notify(seq))
        self._hooks = tuple(hooks)
        self._stop_hearing: list[Callable[[], None]] = []  # what this feature hears of the loop

    @classmethod
    def start(cls, station: StationParts) -> FloorFeatures:
        """Build and start everything configured; raises ConfigError (exit 78) for a file
        that cannot be used, the service's ResourceBusy (exit 69) for a metrics port in use."""
        features = cls(station)
        loop = features.loop
        features._stop_hearing.append(loop.hear_commits(features._on_commit))
        loop.subscribe(features._on_shoe_end, (out.ShoeEnded,))
        if features.metrics is not None:
            from station.metrics.exporter import COUNTED

            loop.subscribe(features.metrics.on_output, COUNTED)
            features._count_significant_events(station)
        if features.publisher is not None:
            prepared, station.outbox = station.outbox, None
            features.publisher.start(prepared)
        features.anchors.start()
        return features

    def _count_significant_events(self, station: StationParts) -> None:
        """The metrics count every significant event this run journals (docs/events.md): those
        written before the loop ran (this start, a new journal's configuration) read back now,
        the rest as the loop applies each input."""
        from station.significant.derive import SignificantDeriver
        from station.significant.log import projected

        metrics, loop = self.metrics, self.loop
        assert metrics is not None
        deriver = SignificantDeriver.resumed(loop.published)  # start-up: before the loop runs
        began = station.run_began_after
        # Only the station's own records are there (nothing of them depends on the table's rules).
        for record, event, outputs in projected(loop.journal.records(began), None):
            metrics.count_significant(e.code for e in deriver.take(record, event, outputs))

        def applied(step: ProjectedRecord) -> None:
            """Each input as it is applied (the station's own records journaled after the start,
            its checkpoints and notes, are not counted here, as they were not before)."""
            if step.event is not None:
                metrics.count_significant(e.code for e in deriver.take(step.record, step.event, step.outputs))

        self._stop_hearing.append(loop.hear_records(applied))

    # --- hooks (the core loop's thread) --------------------------------------------------

    def _on_commit(self, seconds: float, count: int, seq: int, digest: str) -> None:
        self.tip = seq
        for hook in self._hooks:
            hook(seconds, count, seq, digest)

    def _on_shoe_end(self, _output: out.Output) -> None:
        self.anchors.shoe_ended()

    # --- the station's side --------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What ``ctl status`` adds: the latest anchor, the feed and the metrics address."""
        latest = self.anchors.latest
        return {
            "anchor": None if latest is None else {k: latest[k] for k in ("journal_id", "seq", "head", "time",
                                                                          "reason")},
            "floor": self.publisher.status() if self.publisher is not None else None,
            "metrics": self.metrics_server.url if self.metrics_server is not None else None,
        }

    def close(self) -> None:
        """The last anchor (the loop has stopped), the feed's drain, the metrics server."""
        for stop in self._stop_hearing:
            stop()
        try:
            self.anchors.stop()
        finally:
            if self.publisher is not None:
                self.publisher.stop()
            if self.metrics_server is not None:
                self.metrics_server.stop()

    # --- start-up ------------------------------------------------------------------------

    def _start_metrics(self, station: StationParts) -> StationMetrics:
        from station.metrics.exporter import MetricsServer, StationMetrics

        metrics = StationMetrics(self._readings, STATES)
        settings = station.config.metrics
        try:
            self.metrics_server = MetricsServer(metrics, settings.host, settings.port)
        except OSError as exc:
            from station.host.errors import ResourceBusy

            raise ResourceBusy(f"metrics: cannot listen on {settings.host}:{settings.port}: "
                               f"{exc.strerror or exc}") from None
        log.info("metrics_serving", url=self.metrics_server.url)
        return metrics

    def _readings(self) -> Readings:
        from station.host.disk import free_bytes
        from station.metrics.exporter import DeviceReading, Readings

        loop = self.loop
        table = loop.published  # on the metrics server's thread: the snapshot, never the machine
        devices: dict[str, DeviceReading] = {}
        for name, driver in self.station.devices or ():
            stats = driver.stats
            devices[name] = DeviceReading(bool(driver.connected), stats.reconnections, stats.bad_frames, stats.faults,
                                          stats.frames_in, stats.retransmissions)
        try:
            free: int | None = free_bytes(self.station.journal_path.parent)
        except OSError:
            free = None
        latest = self.anchors.latest
        return Readings(
            table=self.table, game=self.station.options.game, software=self.software, journal_id=self.journal_id,
            state=table.state, irregularity=table.irregularity is not None, journal_last_seq=self.tip,
            journal_writable=loop.journal_error is None, disk_free_bytes=free, devices=devices,
            anchor_seq=None if latest is None else int(latest["seq"]), anchor_count=self.anchors.count,
            floor=self.publisher.status() if self.publisher is not None else None)


def setting_problems(config: FloorConfiguration, journal: Path) -> list[tuple[str, str]]:
    """(key, problem) for each file the [floor] section names that cannot be used: an anchor
    key in the journal's folder or unreadable, a CA, certificate, key or password file that
    cannot be read (``station run`` refuses to start; ``--check`` says so)."""
    floor = config.floor
    problems: list[tuple[str, str]] = []
    if floor.anchor_key_file:
        folder = journal.resolve().parent
        if Path(floor.anchor_key_file).resolve().is_relative_to(folder):
            problems.append(("floor.anchor_key_file", (
                f"{floor.anchor_key_file} is in the journal's folder {folder}: keep the anchor key where whoever "
                "can rewrite the journal cannot read it (e.g. a systemd credential, docs/floor.md)")))
        else:
            try:
                read_key(floor.anchor_key_file)
            except AnchorFileError as exc:
                problems.append(("floor.anchor_key_file", str(exc)))
    if floor.enabled:
        try:
            check_options(BrokerOptions.from_floor(floor))
        except BrokerSettingsError as exc:
            problems.append((exc.key, str(exc)))
    return problems


def port_problem(config: FloorConfiguration) -> tuple[str, str] | None:
    """The metrics port, when [metrics] is on and another program holds it."""
    import socket

    metrics = config.metrics
    if not metrics.enabled:
        return None
    try:
        with socket.create_server((metrics.host, metrics.port)):
            return None
    except OSError as exc:
        return "metrics.port", f"cannot listen on {metrics.host}:{metrics.port}: {exc.strerror or exc}"
