"""Free space on the journal's file system, watched so that a person hears of it before the
journal can no longer be written.

The station checks at most every ``interval_s`` from the core loop's heartbeat (one
``statvfs``, microseconds), and at once when a journal write fails. Crossing below the
threshold logs a warning once; crossing back above logs that space has returned; either
crossing is told to ``on_crossing`` (the station journals it: docs/events.md).
``station ctl status`` shows the latest reading.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

MB = 1024 * 1024


@dataclass(frozen=True)
class DiskReading:
    free_mb: int
    low: bool

    def as_dict(self) -> dict[str, int | bool]:
        return {"free_mb": self.free_mb, "low": self.low}


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer may still use on the file system holding ``folder``."""
    info = os.statvfs(folder)
    return info.f_bavail * info.f_frsize


class DiskWatch:
    """Reads free space now and then; warns once per crossing of ``threshold_mb``."""

    def __init__(self, folder: Path, threshold_mb: int, interval_s: float = 30.0,
                 measure: Callable[[Path], int] = free_bytes, clock: Callable[[], float] = time.monotonic,
                 on_crossing: Callable[[DiskReading], None] | None = None) -> None:
        self.folder = folder
        self.threshold_mb = threshold_mb
        self.interval_s = interval_s
        self._measure = measure
        self._clock = clock
        self._next = 0.0
        self.reading: DiskReading | None = None
        self.on_crossing = on_crossing

    def check_now(self) -> DiskReading | None:
        """Measure now, whenever the last reading was: a journal write has just failed, and
        the next poll could be ``interval_s`` away (a journal that filled 2.6 s after start
        logged no ``disk_space_low`` at all). A file system with nothing left is low whatever
        the threshold."""
        self._next = 0.0
        return self.poll(nothing_left_is_low=True)

    def poll(self, nothing_left_is_low: bool = False) -> DiskReading | None:
        """Measure if it is time to; the latest reading (None before the first)."""
        now = self._clock()
        if now < self._next:
            return self.reading
        self._next = now + self.interval_s
        try:
            free_mb = self._measure(self.folder) // MB
        except OSError as exc:
            log.warning("disk_space_unknown", folder=str(self.folder), error=exc.strerror or str(exc))
            return self.reading
        reading = DiskReading(free_mb, free_mb < self.threshold_mb or (nothing_left_is_low and free_mb == 0))
        was_low = self.reading is not None and self.reading.low
        if reading.low and not was_low:
            log.warning("disk_space_low", folder=str(self.folder), free_mb=free_mb, threshold_mb=self.threshold_mb)
        elif was_low and not reading.low:
            log.info("disk_space_recovered", folder=str(self.folder), free_mb=free_mb)
        self.reading = reading
        if reading.low != was_low and self.on_crossing is not None:
            self.on_crossing(reading)
        return reading
