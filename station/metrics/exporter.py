"""The station's metrics, in Prometheus' text format through ``prometheus_client``.

Counters and histograms are fed as things happen, on the core loop's thread: each output the
metrics subscribe to costs an increment, each commit two histogram observations (a few
microseconds). Everything else is read when Prometheus scrapes, from :class:`Readings` (a
function the service provides), so the table pays nothing for it between scrapes. Every
metric is listed, with its meaning, in docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from station.core import outputs as out

#: Seconds: an fsync of a healthy disk is a few milliseconds; a dying one shows in the tail.
COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.0, 2.5)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)
#: The outputs the metrics count.
COUNTED = (out.RoundSettled, out.RoundVoided, out.Refused, out.IrregularityRaised, out.DeviceFaulted,
           out.AlertRaised, out.AlertCleared, out.RoundCorrected)


@dataclass
class DeviceReading:
    connected: bool
    reconnections: int = 0
    bad_frames: int = 0
    faults: int = 0
    frames_in: int = 0
    retransmissions: int = 0


@dataclass
class Readings:
    """What is read at scrape time (the service fills it in; every field may be absent)."""

    table: str = ""
    game: str = ""
    software: str = ""
    journal_id: str = ""
    state: str = ""
    irregularity: bool = False
    journal_last_seq: int = 0
    journal_writable: bool = True
    disk_free_bytes: int | None = None
    devices: dict[str, DeviceReading] = field(default_factory=dict)
    anchor_seq: int | None = None
    anchor_count: int = 0
    floor: dict[str, Any] | None = None
    """The floor feed's status (connected, backlog_records, backlog_oldest_s, published,
    connections), None when the feed is off."""


class _Live(Collector):
    def __init__(self, read: Callable[[], Readings], states: tuple[str, ...]) -> None:
        self._read = read
        self._states = states

    def collect(self) -> Iterator[Metric]:
        r = self._read()
        info = InfoMetricFamily("station", "The table this station runs: id, game, software, journal id")
        info.add_metric([], {"table": r.table, "game": r.game, "version": r.software, "journal_id": r.journal_id})
        yield info
        state = GaugeMetricFamily("station_table_state", "1 for the state the table is in, 0 for the others",
                                  labels=["state"])
        for name in self._states:
            state.add_metric([name], 1.0 if name == r.state else 0.0)
        yield state
        yield GaugeMetricFamily("station_irregularity_active", "1 while an irregularity waits for a supervisor",
                                value=1.0 if r.irregularity else 0.0)
        yield GaugeMetricFamily("station_journal_last_seq", "Sequence number of the journal's last record",
                                value=r.journal_last_seq)
        yield GaugeMetricFamily("station_journal_writable", "0 while the journal cannot be written (disk full)",
                                value=1.0 if r.journal_writable else 0.0)
        if r.disk_free_bytes is not None:
            yield GaugeMetricFamily("station_journal_disk_free_bytes",
                                    "Bytes free for the station on the journal's file system", value=r.disk_free_bytes)
        connected = GaugeMetricFamily("station_device_connected", "1 while the device's link is up",
                                      labels=["device"])
        counters = {
            "reconnects": CounterMetricFamily("station_device_reconnects", "Outages of the device's link that ended "
                                              "with the device answering again", labels=["device"]),
            "bad_frames": CounterMetricFamily("station_device_bad_frames", "Frames or reports from the device that "
                                              "the codec refused (bad checksum, malformed)", labels=["device"]),
            "faults": CounterMetricFamily("station_device_link_faults", "Outages of the device's link reported",
                                          labels=["device"]),
            "frames_in": CounterMetricFamily("station_device_frames_received", "Intact frames or reports received "
                                             "from the device", labels=["device"]),
            "retransmissions": CounterMetricFamily("station_device_retransmissions", "Commands sent to the device "
                                                   "again for want of an answer", labels=["device"]),
        }
        for name, device in sorted(r.devices.items()):
            connected.add_metric([name], 1.0 if device.connected else 0.0)
            counters["reconnects"].add_metric([name], device.reconnections)
            counters["bad_frames"].add_metric([name], device.bad_frames)
            counters["faults"].add_metric([name], device.faults)
            counters["frames_in"].add_metric([name], device.frames_in)
            counters["retransmissions"].add_metric([name], device.retransmissions)
        yield connected
        yield from counters.values()
        yield GaugeMetricFamily("station_anchor_seq", "Sequence number of the latest journal anchor",
                                value=r.anchor_seq or 0)
        yield CounterMetricFamily("station_anchors", "Journal anchors made since the station started",
                                  value=r.anchor_count)
        floor = r.floor
        if floor is not None:
            yield GaugeMetricFamily("station_floor_connected", "1 while the floor feed is connected to its broker",
                                    value=1.0 if floor.get("connected") else 0.0)
            yield GaugeMetricFamily("station_floor_backlog_records", "Journal records the broker has not yet "
                                    "acknowledged (the outbox's backlog)", value=floor.get("backlog_records", 0))
            yield GaugeMetricFamily("station_floor_backlog_oldest_seconds", "Age of the oldest record of the "
                                    "backlog (0 when there is none)", value=floor.get("backlog_oldest_s", 0.0))
            yield GaugeMetricFamily("station_floor_cursor_seq", "The floor feed's stored cursor: every record up to "
                                    "it is acknowledged by the broker", value=floor.get("cursor", 0))
            published = CounterMetricFamily("station_floor_messages", "Messages handed to the broker connection, "
                                            "by kind", labels=["kind"])
            for kind, count in sorted((floor.get("published") or {}).items()):
                published.add_metric([kind], count)
            yield published
            yield CounterMetricFamily("station_floor_connections", "Connections made to the broker (reconnects "
                                      "are all but the first)", value=floor.get("connections", 0))


class StationMetrics:
    """The metrics of one station; feed it outputs and commits, read it at scrape time."""

    def __init__(self, read: Callable[[], Readings], states: tuple[str, ...] = ()) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.rounds = Counter("station_rounds", "Rounds settled, by outcome (Casino War: 'settled')",
                              ["outcome"], registry=r)
        self.voided = Counter("station_rounds_voided", "Rounds voided by a supervisor", registry=r)
        self.bets = Counter("station_bets", "Settled bets, by region and result", ["region", "result"], registry=r)
        self.staked = Counter("station_bets_staked_minor_units", "Stakes settled, in minor units", registry=r)
        self.house = Counter("station_house_won_minor_units", "What the house won on rounds it won, minor units",
                             registry=r)
        self.house_lost = Counter("station_house_lost_minor_units", "What the house paid out net on rounds it "
                                  "lost, minor units", registry=r)
        self.corrections = Counter("station_round_corrections", "Settled rounds a supervisor corrected (their "
                                   "difference is counted in the house's result)", registry=r)
        self.refusals = Counter("station_refusals", "Inputs refused, by the kind of input", ["input"], registry=r)
        self.irregularities = Counter("station_irregularities", "Irregularities raised, by reason", ["reason"],
                                      registry=r)
        self.alerts = Counter("station_integrity_alerts", "Integrity alarms and alerts raised, by code and "
                              "severity (docs/integrity.md)", ["code", "severity"], registry=r)
        self.acknowledged = Counter("station_integrity_alerts_acknowledged", "Integrity alerts a supervisor "
                                    "acknowledged, by code", ["code"], registry=r)
        self.device_faults = Counter("station_device_faults", "Device faults the table heard of, by device",
                                     ["device"], registry=r)
        self.significant = Counter("station_significant_events", "Significant events journaled, by code "
                                   "(docs/events.md)", ["code"], registry=r)
        self.commit_seconds = Histogram("station_journal_commit_seconds", "Time of each journal commit "
                                        "(append and fsync)", buckets=COMMIT_BUCKETS, registry=r)
        self.commit_records = Histogram("station_journal_commit_records", "Records in each journal commit "
                                        "(group commit)", buckets=BATCH_BUCKETS, registry=r)
        r.register(_Live(read, states))

    def on_commit(self, seconds: float, count: int, _seq: int, _digest: str) -> None:
        self.commit_seconds.observe(seconds)
        self.commit_records.observe(count)

    def count_significant(self, codes: Iterable[str]) -> None:
        for code in codes:
            self.significant.labels(code).inc()

    def on_output(self, output: out.Output) -> None:
        if isinstance(output, out.RoundSettled):
            outcome = output.outcome if output.outcome.isidentifier() else "settled"
            self.rounds.labels(outcome).inc()
            for bet in output.bets:
                self.bets.labels(bet.region, bet.outcome).inc()
                self.staked.inc(bet.stake)
            if output.house_net >= 0:
                self.house.inc(output.house_net)
            else:
                self.house_lost.inc(-output.house_net)
        elif isinstance(output, out.RoundCorrected):
            self.corrections.inc()
            difference = output.house_after - output.house_before
            if difference >= 0:
                self.house.inc(difference)
            else:
                self.house_lost.inc(-difference)
        elif isinstance(output, out.RoundVoided):
            self.voided.inc()
        elif isinstance(output, out.Refused):
            self.refusals.labels(output.what).inc()
        elif isinstance(output, out.IrregularityRaised):
            self.irregularities.labels(output.reason).inc()
        elif isinstance(output, out.DeviceFaulted):
            self.device_faults.labels(output.device).inc()
        elif isinstance(output, out.AlertRaised):
            self.alerts.labels(output.code, output.severity).inc()
        elif isinstance(output, out.AlertCleared):
            self.acknowledged.labels(output.code).inc()


class MetricsServer:
    """``/metrics`` over HTTP on ``host:port`` (a thread of its own)."""

    def __init__(self, metrics: StationMetrics, host: str, port: int) -> None:
        self._server, self._thread = start_http_server(port, host, registry=metrics.registry)
        self.url = f"http://{host}:{self._server.server_port}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
