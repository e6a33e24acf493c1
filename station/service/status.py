"""What ``station ctl status`` answers: where the table is, its devices, journal, disk and alerts.

Apart from the running station (:mod:`station.service.app`) because it is read on the control
socket's threads, never the loop's: it reads the table only in the snapshot the loop publishes
whole after each batch (:mod:`station.core.snapshot`), never the machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from station.core.loop import CoreLoop
from station.core.snapshot import TableSnapshot
from station.host.disk import DiskWatch
from station.service.features import Features


def station_status(loop: CoreLoop, table_name: str, journal_path: Path, disk: DiskWatch,
                   features: Features) -> dict[str, Any]:
    """The status of the station running ``loop``, as ``station ctl status --json`` prints it:
    the table, the journal and the disk, then what each feature adds (its devices, the control
    socket's counts, the integrity monitor, the anchors and the floor feed)."""
    table = loop.published  # one snapshot, read once: the whole answer is of one moment
    irregularity = table.irregularity
    return {
        "table": table_name,
        "applied": table.seq,
        "state": table.state,
        "expecting": table.expecting,
        "round": table.round_id,
        "shoe": table.shoe,
        "dealer": table.dealer or None,
        "paused_by": dict(table.paused_by) or None,
        "limits": dict(table.limits),
        "next_limits": None if table.next_limits is None else {
            **table.next_limits["limits"], "by": f"{table.next_limits['role']} {table.next_limits['who']}".strip(),
            "reason": table.next_limits["reason"]},
        "irregularity": None if irregularity is None else {
            "reason": irregularity.reason, "detail": irregularity.detail,
            "decisions": list(irregularity.decisions),
        },
        "tray": None if table.tray is None else dict(table.tray),
        "ratings": [dict(rating) for rating in table.ratings],
        "progressive": None if table.progressive is None else dict(table.progressive),
        "chips": None if table.chips is None else dict(table.chips),
        "card_read": table.card_read or None,
        "devices": {},
        "faulted": dict(table.faulted),
        "journal": str(journal_path),
        "control": None,
        "inputs": {"failed_to_apply": loop.failures, "not_journalable": loop.unjournalable},
        "journal_writable": loop.journal_error is None,
        "journal_error": loop.journal_error,
        "disk": disk.reading.as_dict() if disk.reading is not None else None,
        "integrity": integrity_status(table, None),
        **features.status(),
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
