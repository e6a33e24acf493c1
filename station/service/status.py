"""What ``station ctl status`` answers: where the table is, its devices, journal, disk and alerts.

Apart from the running station (:mod:`station.service.app`) because it is read on the control
socket's threads, never the loop's: it reads the table only in the snapshot the loop publishes
whole after each batch (:mod:`station.core.snapshot`), never the machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from station.config.table import StationSection
from station.core.loop import CoreLoop
from station.core.snapshot import TableSnapshot
from station.host.disk import DiskWatch
from station.service.control import ControlServer
from station.service.devices import DeviceSet, device_state


class _Named(Protocol):
    @property
    def station(self) -> StationSection: ...


class _Summarised(Protocol):
    @property
    def summary(self) -> Any: ...


class _Reporting(Protocol):
    def status(self) -> dict[str, Any]: ...


class StatusSource(Protocol):
    """What the status is read from: the running station (:class:`~station.service.app.Station`)."""

    @property
    def loop(self) -> CoreLoop | None: ...
    @property
    def config(self) -> _Named: ...
    @property
    def devices(self) -> DeviceSet | None: ...
    @property
    def journal_path(self) -> Path: ...
    @property
    def control(self) -> ControlServer | None: ...
    @property
    def disk(self) -> DiskWatch: ...
    @property
    def integrity(self) -> _Summarised | None: ...
    @property
    def floor(self) -> _Reporting | None: ...


def station_status(station: StatusSource) -> dict[str, Any]:
    """The status of ``station``, as ``station ctl status --json`` prints it."""
    loop = station.loop
    assert loop is not None
    table = loop.published  # one snapshot, read once: the whole answer is of one moment
    irregularity = table.irregularity
    return {
        "table": station.config.station.name,
        "state": table.state,
        "expecting": table.expecting,
        "round": table.round_id,
        "shoe": table.shoe,
        "dealer": table.dealer or None,
        "paused_by": dict(table.paused_by) or None,
        "irregularity": None if irregularity is None else {
            "reason": irregularity.reason, "detail": irregularity.detail,
            "decisions": list(irregularity.decisions),
        },
        "devices": {name: device_state(d) for name, d in (station.devices or DeviceSet())},
        "faulted": dict(table.faulted),
        "journal": str(station.journal_path),
        "control": station.control.stats.as_dict() if station.control is not None else None,
        "inputs": {"failed_to_apply": loop.failures, "not_journalable": loop.unjournalable},
        "journal_writable": loop.journal_error is None,
        "journal_error": loop.journal_error,
        "disk": station.disk.reading.as_dict() if station.disk.reading is not None else None,
        "integrity": integrity_status(table, station.integrity.summary if station.integrity is not None else None),
        **(station.floor.status() if station.floor is not None else {}),
    }


def integrity_status(table: TableSnapshot, monitor: Any) -> dict[str, Any]:
    """Alerts not yet acknowledged (the newest 20), how many of each were raised, and the
    monitor's view of the shoe in play (``monitor``: the edges after the last round; supervisors
    only ever see them here and in the logs, never on the players' board)."""
    open_alerts = table.open_alerts
    return {
        "alerts_open": len(open_alerts),
        "alerts": [{"ident": a.ident, "code": a.code, "severity": a.severity, "detail": a.detail,
                    "shoe": a.shoe, "round": a.round_id} for a in open_alerts[-20:]],
        "raised": dict(table.alert_counts),
        "monitor": monitor,
    }
