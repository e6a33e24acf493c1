"""The simulated table's folder for its devices' pseudo-terminal links, and what a dead table left.

The simulators publish their pseudo-terminals under stable links (``/tmp/station-sim-…/shoe``),
as udev names a real device. A table that ends in order removes its folder; one killed
(SIGKILL, a power cut, its station killed and the table with it before it could tidy up)
cannot. So each table holds a lock on a file in its folder for as long as it lives (an
``flock``, which the kernel drops when the process ends, however it ends), and every table
that starts removes the folders of this user whose lock nobody holds: the next start removes
what a dead station left. Folders without the lock file (a simulator started by
``station simulate``, a diagnostic or a test, or a table of a version before this one) are
never touched: nothing says whether their owner still runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

import structlog

from station.held_lock import held

log = structlog.get_logger(__name__)

#: The prefix of a simulated table's folder (the simulators' own, ``drivers/simulators``).
PREFIX = "station-sim-"
#: The file a live table holds locked in its folder.
LOCK_NAME = "table.lock"


class TableFolder:
    """A folder of this table's own, locked while the process that made it lives."""

    def __init__(self, root: Path | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
        # Locked under another name first, then renamed: a table sweeping at the same moment
        # never sees the lock file before it is held (a rename keeps the lock).
        staging = self.path / f".{LOCK_NAME}.new"
        self._fd = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        os.replace(staging, self.path / LOCK_NAME)

    def remove(self) -> None:
        """At an orderly end: the folder goes, its links with it."""
        shutil.rmtree(self.path, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.close(self._fd)


def remove_dead_tables(root: Path | None = None) -> list[Path]:
    """Remove the folders that simulated tables of this user left when they died; returns them."""
    folder = Path(root or tempfile.gettempdir())
    removed = []
    for candidate in folder.glob(f"{PREFIX}*"):
        lock = candidate / LOCK_NAME
        try:
            if candidate.is_symlink() or candidate.stat().st_uid != os.getuid() or not lock.is_file():
                continue
        except OSError:
            continue
        if held(lock) is False:
            shutil.rmtree(candidate, ignore_errors=True)
            removed.append(candidate)
    if removed:
        log.info("simulated_table_leftovers_removed", folders=len(removed), root=str(folder))
    return removed
