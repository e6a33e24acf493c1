"""One writer per journal: an exclusive lock that belongs to the journal file itself.

A lock kept in a runtime or state folder says "one station per folder", which is not the
promise: two stations started with different runtime folders on one journal would both deal
into it, and two stations with different journals would refuse each other. So the lock is a
file beside the journal, ``<journal>.lock``, held with ``flock(LOCK_EX)`` for as long as the
writer is open. The kernel drops it when the process ends, however it ends (a SIGKILL
included), so a crashed station never leaves a stale lock behind. The file holds the
holder's PID so that the refusal can name it; it is never deleted (deleting a lock file that
another process is about to open is how two holders happen).

Readers (``recall``, ``journal verify``, ``export``) take no lock: SQLite's WAL lets them read
a consistent snapshot while the station writes.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class JournalLockedError(Exception):
    """Another process holds the journal's writer lock."""

    def __init__(self, journal: Path, lock: Path, pid: int | None) -> None:
        holder = f"process {pid}" if pid else "another process"
        super().__init__(
            f"journal {journal} is being written by {holder} (lock {lock}); a journal has one writer: "
            "stop that station first, or give this one its own journal"
        )
        self.journal = journal
        self.lock = lock
        self.pid = pid


def lock_path(journal: Path) -> Path:
    """Where the writer's lock of ``journal`` lives: beside it, named after it."""
    return journal.with_name(journal.name + ".lock")


class WriterLock:
    """The exclusive writer lock of one journal; :meth:`acquire` once, :meth:`release` once."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.path = lock_path(journal)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`JournalLockedError` naming the holder.

        Raises ``OSError`` when the lock file cannot be created (a read-only folder): then
        the journal could not be written either."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise JournalLockedError(self.journal, self.path, pid) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let the next writer in; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
