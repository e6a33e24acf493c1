"""Prometheus metrics of a running station (docs/metrics.md).

:class:`~station.metrics.exporter.StationMetrics` counts what the core loop's outputs say
(rounds, bets, refusals, irregularities, device faults), times every journal commit (through
the core loop's commit hook), and reads at scrape time what is a value rather than an event
(device links, disk space, the floor feed's backlog, the latest anchor, the table's state).
It only listens: it never changes the table.
"""

from station.metrics.exporter import MetricsServer, Readings, StationMetrics

__all__ = ["MetricsServer", "Readings", "StationMetrics"]
