"""What the station journals of its own life, so the significant-event log can be read from
the journal alone (docs/events.md): each start with what it found of the run before, each
orderly stop, a journal outage once it is over, the disk crossing its warning threshold.

These are inputs like any other (:mod:`station.events`): posted to the core loop, journaled,
applied (the table's state does not change for them). The facts that need the run before
are worked out here, when the station starts, from the journal's own records, and written
into the start's record: a reader then takes them from a field.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import structlog

from station.config.options import CONFIGURATION_RECORD, SOFTWARE_KEY, SOFTWARE_RECORD, software_record
from station.core import outputs as out
from station.core.loop import CoreLoop
from station.events import DiskSpace, JournalOutage, StationStarted, StationStopped
from station.host.disk import DiskReading, DiskWatch
from station.journal import Journal
from station.journal.store import format_time, utc_now

log = structlog.get_logger(__name__)

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str:
    """The kernel's id of this boot of the PC ("" where there is none to read)."""
    try:
        return BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        return ""


def file_sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def start_record(journal: Journal, configuration: Path) -> StationStarted:
    """The record of this start, from what the journal holds of the runs before (read before
    this start writes anything)."""
    started = journal.last_of_kind(StationStarted.kind)
    stopped = journal.last_of_kind(StationStopped.kind)
    version = str(software_record().get("version", ""))
    if started is None:
        previous_stop = "none" if journal.head()[0] == 0 else "unknown"
        previous = _last_software(journal)
        return StationStarted(version, file_sha256(configuration), boot_id(), previous_stop, previous_version=previous,
                              pid=os.getpid())
    last = started.payload
    previous_stop = "clean" if stopped is not None and stopped.seq > started.seq else "unclean"
    return StationStarted(version, file_sha256(configuration), boot_id(), previous_stop,
                          previous_version=str(last.get("version", "")),
                          previous_configuration_sha256=str(last.get("configuration_sha256", "")),
                          previous_boot_id=str(last.get("boot_id", "")), pid=os.getpid())


def _last_software(journal: Journal) -> str:
    """The version that last wrote a journal whose starts were not journaled."""
    software, configuration = journal.last_of_kind(SOFTWARE_RECORD), journal.last_of_kind(CONFIGURATION_RECORD)
    last = max((r for r in (software, configuration) if r is not None), key=lambda r: r.seq, default=None)
    if last is None:
        return ""
    recorded = last.payload if last.kind == SOFTWARE_RECORD else last.payload.get(SOFTWARE_KEY, {})
    return str(recorded.get("version", "")) if isinstance(recorded, dict) else ""


class Lifecycle:
    """The station's own records: its start, its stop, journal outages and the disk. It hears
    the disk watch's crossings and the core loop's journal outages itself."""

    def __init__(self, disk: DiskWatch) -> None:
        self.disk = disk
        disk.on_crossing = self._disk_crossed
        self.loop: CoreLoop | None = None
        self._outage: tuple[str, str, float] | None = None  # reason, since (UTC), monotonic start

    def started(self, loop: CoreLoop, record: StationStarted) -> None:
        """Journal this start now, before anything else the run does (the loop does not run
        yet: the record is written and applied on this thread); from now on hear the loop's
        journal outages."""
        self.loop = loop
        loop.subscribe(self._on_output, (out.JournalUnwritable, out.JournalWritable))
        loop.post(record)
        loop.run_pending()
        log.info("station_start_journaled", previous_stop=record.previous_stop, version=record.version)

    def stopped(self, reason: str) -> None:
        """Journal an orderly stop: the last record of the run, after everything else (the
        loop has stopped; the record is written on this thread). A journal that cannot be
        written now gets none, and the next start says the stop was unclean."""
        if self.loop is not None:
            self.loop.post(StationStopped(reason or "requested"))
            self.loop.run_pending()

    def _on_output(self, output: out.Output) -> None:
        if isinstance(output, out.JournalUnwritable):
            if self._outage is None:
                self._outage = (output.reason, format_time(utc_now()), time.monotonic())
        elif isinstance(output, out.JournalWritable) and self._outage is not None:
            # Written again: the outage is journaled now that it can be, and the disk looked
            # at at once (its space is back), not at its next timed look.
            reason, since, began = self._outage
            self._outage = None
            self._post(JournalOutage(reason, since, int((time.monotonic() - began) * 1000)))
            self.disk.check_now()

    def _disk_crossed(self, reading: DiskReading) -> None:
        """The journal's file system crossed its warning threshold (told by the disk watch)."""
        self._post(DiskSpace(reading.low, reading.free_mb, self.disk.threshold_mb, format_time(utc_now())))

    def _post(self, event: DiskSpace | JournalOutage) -> None:
        if self.loop is not None:
            self.loop.post(event)
