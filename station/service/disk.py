"""Free space on the journal's file system, watched so that a person hears of it before the
journal can no longer be written.

The station checks at most every ``interval_s`` from the core loop's heartbeat (one
``statvfs``, microseconds). Crossing below the threshold logs a warning once; crossing back
above logs that space has returned. ``station ctl status`` shows the latest reading.
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
                 measure: Callable[[Path], int] = free_bytes, clock: Callable[[], float] = time.monotonic) -> None:
        self.folder = folder
        self.threshold_mb = threshold_mb
        self.interval_s = interval_s
        self._measure = measure
        self._clock = clock
        self._next = 0.0
        self.reading: DiskReading | None = None

    def poll(self) -> DiskReading | None:
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
        reading = DiskReading(free_mb, free_mb < self.threshold_mb)
        was_low = self.reading is not None and self.reading.low
        if reading.low and not was_low:
            log.warning("disk_space_low", folder=str(self.folder), free_mb=free_mb, threshold_mb=self.threshold_mb)
        elif was_low and not reading.low:
            log.info("disk_space_recovered", folder=str(self.folder), free_mb=free_mb)
        self.reading = reading
        return reading
