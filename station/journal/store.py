"""The journal store: an append-only SQLite file of hash-chained records.

The station's promise is *journal first, then apply*: the core loop appends every input
event and every decision with :meth:`Journal.append` and acts on it only after the call
returns, because by then the record is on disk. That is why the file runs in WAL mode with
``synchronous=FULL`` (each commit fsyncs the write-ahead log) and why both settings are read
back after they are set: a journal that silently fell back to weaker durability would break
the promise without anyone noticing.

Each record carries a monotonic sequence number (1, 2, 3, ... no gaps), its wall-clock time,
a kind, a JSON object payload, the hash of the record before it and its own hash (see
:mod:`station.journal.chain`). The ``head`` table holds the last sequence number and hash and
is updated in the same transaction as the records, so a tail cut off the journal is evident
to :func:`station.journal.verify.verify` even though the chain alone cannot show it.

:class:`Journal` is the single writer: it holds the journal's writer lock
(:mod:`station.journal.lock`, a lock file beside the journal) for as long as it is open, so a
second station on the same journal is refused at once with the holder's PID.
:class:`JournalReader` opens a journal read-only for verification, export and recall; it never
creates a file and never changes one, and it reads a copy kept in a read-only folder too.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from station.journal.access import DEFAULT_BUSY_TIMEOUT, Access, Seam
from station.journal.chain import GENESIS_HASH, record_hash
from station.journal.errors import (
    JournalBusyError,
    JournalError,
    JournalMissingError,
    NotAJournalError,
    RecordError,
    os_reason,
)
from station.journal.lock import JournalLockedError, WriterLock
from station.journal.reader import JournalReader
from station.journal.records import JournalRecord, check_record, format_time, insert_statement, pair, prepare, utc_now
from station.journal.schema import APPLICATION_ID, INDEXED_KINDS, SCHEMA_VERSION, identify, initialise

__all__ = [
    "APPLICATION_ID", "DEFAULT_BUSY_TIMEOUT", "INDEXED_KINDS", "SCHEMA_VERSION", "Journal", "JournalBusyError",
    "JournalError", "JournalMissingError", "JournalReader", "JournalRecord", "NotAJournalError", "RecordError",
    "Seam", "check_record", "format_time", "utc_now",
]

_HEAD_MISMATCH = "the journal head does not match the records"

# The writer's own triggers, TEMP so they live in its connection only and are not part of the
# file: with them a group commit is one INSERT statement. That matters because every call into
# SQLite releases and re-takes Python's interpreter lock, and in a busy station each of those
# hand-overs costs more than the work. A record may only go right after the last record, on
# the head's hash (a journal whose tail was cut, or that was extended behind the head's back,
# refuses the append, as the writer's own check did); the head then follows each record. Any
# other connection inserting a record moves no head, so such a record stays evident. (The
# UPDATE names the head unqualified: SQLite allows no schema name there; temp has no head.)
_WRITER_TRIGGERS: tuple[str, ...] = (
    f"""CREATE TEMP TRIGGER records_extend_the_head BEFORE INSERT ON main.records
       WHEN NEW.seq IS NOT (SELECT last_seq + 1 FROM main.head WHERE id = 1)
         OR NEW.prev_hash IS NOT (SELECT last_hash FROM main.head WHERE id = 1)
         OR EXISTS (SELECT 1 FROM main.records WHERE seq >= NEW.seq)
         OR (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM main.records WHERE seq = NEW.seq - 1 AND hash = NEW.prev_hash))
       BEGIN SELECT RAISE(ABORT, '{_HEAD_MISMATCH}'); END""",
    """CREATE TEMP TRIGGER records_move_the_head AFTER INSERT ON main.records
       BEGIN UPDATE head SET last_seq = NEW.seq, last_hash = NEW.hash WHERE id = 1; END""",
)

Clock = Callable[[], datetime]


class _HeadMoved(Exception):
    """The head is not where this writer left it: re-read the tip and try once more."""


class Journal(Access):
    """The journal's single writer. Create or open ``path``; use as a context manager."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        exclusive: bool = True,
    ) -> None:
        """``exclusive=False`` skips the writer lock: only for tools and tests that play a
        second writer on purpose (the chain and head checks still guard every append)."""
        self.path = Path(path)
        self._clock: Clock = clock or utc_now
        self._lock = threading.RLock()
        self._conn = None
        self._tip_cache: tuple[int, str] | None = None  # (seq, hash) after this writer's last append
        self._checked_tip: tuple[int, str] | None = None  # the last tip read and checked from the file
        self._writer_lock: WriterLock | None = None
        if self.path.exists() and not self.path.is_file():
            raise NotAJournalError(f"{self.path} is not a journal: it is not a regular file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the journal's directory {self.path.parent}: {os_reason(exc)}") from None
        # A WAL writer creates its log and shared-memory files beside the journal.
        if not os.access(self.path.parent, os.W_OK | os.X_OK):
            raise JournalError(f"cannot write in the journal's folder {self.path.parent}: permission denied")
        if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            raise JournalError(f"cannot write journal {self.path}: permission denied")
        try:
            self._open(busy_timeout, exclusive)
        except BaseException:
            self._release_writer_lock()
            raise

    def _take_writer_lock(self) -> None:
        writer_lock = WriterLock(self.path)
        try:
            writer_lock.acquire()
        except JournalLockedError as exc:
            raise JournalBusyError(str(exc)) from None
        except OSError as exc:
            raise JournalError(f"cannot write in the journal's folder {self.path.parent}: {os_reason(exc)}") from None
        self._writer_lock = writer_lock

    def _open(self, busy_timeout: float, exclusive: bool) -> None:
        try:
            # Autocommit mode: transactions are only the explicit BEGIN IMMEDIATE ... COMMIT below.
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            identify(conn, self.path)  # before anything is written: never convert a foreign file
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self.path}: WAL mode did not take effect (got {mode!r})")
            conn.execute("PRAGMA synchronous = FULL")
            level = conn.execute("PRAGMA synchronous").fetchone()[0]
            if level != 2:
                raise JournalError(f"journal {self.path}: synchronous=FULL did not take effect (got {level!r})")
            if exclusive:  # once the file is known to be a journal that can be one: no lock beside a stranger
                self._take_writer_lock()
            initialise(conn, self.path)
            for statement in _WRITER_TRIGGERS:
                conn.execute(statement)
        except sqlite3.Error as exc:
            conn.close()
            raise JournalError(f"cannot open journal {self.path}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        # The journal file (when new) and its -wal file (created on every open after a clean
        # close removed it) are directory entries; fsync the directory so that a record fsynced
        # into the WAL cannot vanish with a WAL file whose name never reached the disk.
        fsync_directory(self.path.parent)

    def close(self) -> None:
        """Close the file and let the next writer in; safe to call twice."""
        try:
            super().close()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self) -> None:
        writer_lock, self._writer_lock = self._writer_lock, None
        if writer_lock is not None:
            writer_lock.release()

    def append(self, kind: str, payload: dict[str, Any]) -> JournalRecord:
        """Append one record; it is on disk (WAL fsynced) when this returns.

        Raises :class:`RecordError` (nothing written) for a payload that is not a JSON object
        of plain JSON values, :class:`JournalError` when the disk write fails. The caller must
        not apply an event whose append raised.
        """
        return self.append_many([(kind, payload)])[0]

    def append_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> list[JournalRecord]:
        """Append several records in one transaction with one fsync (group commit).

        All or nothing: after a crash either every record of the group is there or none is.
        Every item is validated before anything is written. The records of one group carry
        one time, the moment the group was written.

        The group is a single INSERT statement, committed on its own (SQLite's autocommit is
        a full transaction, fsynced under ``synchronous=FULL``); the writer's triggers check
        that it extends the chain at the head and move the head (see ``_WRITER_TRIGGERS``).
        """
        prepared = [prepare(*pair(item)) for item in items]
        if not prepared:
            return []
        with self._lock:
            conn = self._require_open()
            try:
                return self._insert(conn, prepared, self._tip_cache or self._tip(conn))
            except _HeadMoved:
                # Another writer appended since this one last did (tools and tests may open a
                # second writer): start again from the journal's own tip, which checks it.
                return self._insert(conn, prepared, self._tip(conn))

    def _insert(self, conn: sqlite3.Connection, prepared: list[tuple[str, str, dict[str, Any]]],
                tip: tuple[int, str]) -> list[JournalRecord]:
        seq, prev = tip
        time = format_time(self._clock())
        values: list[int | str] = []
        written: list[JournalRecord] = []
        for kind, payload_json, payload in prepared:
            seq += 1
            digest = record_hash(seq, time, kind, payload_json, prev)
            values += (seq, time, kind, payload_json, prev, digest)
            written.append(JournalRecord(seq, time, kind, payload, prev, digest))
            prev = digest
        self._tip_cache = None  # until the insert is known to be on disk
        try:
            conn.execute(insert_statement(len(prepared)), values)
        except sqlite3.Error as exc:
            if _HEAD_MISMATCH in str(exc):
                if tip is not self._checked_tip:
                    raise _HeadMoved from None
                raise JournalError(
                    f"journal {self.path}: the last record does not match the journal head; "
                    "refusing to append; run 'station journal verify'"
                ) from None
            if getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED"):
                raise JournalError(f"journal {self.path}: cannot start a write: {exc}") from None
            raise JournalError(f"journal {self.path}: append failed, nothing written: {exc}") from None
        self._tip_cache = (seq, prev)
        return written

    def forget_tip(self) -> None:
        """The file was changed through this writer's connection other than by an append (the
        archive's move): the next append reads the tip from the file."""
        self._tip_cache = None

    def _tip(self, conn: sqlite3.Connection) -> tuple[int, str]:
        """The last seq and hash as the journal has them, cross-checked with head.

        Extending a journal whose head and records disagree would overwrite the evidence of
        a cut-off tail, so the writer refuses instead.
        """
        last = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        head = conn.execute("SELECT last_seq, last_hash FROM head WHERE id = 1").fetchone()
        tip = (0, GENESIS_HASH) if last is None else (int(last[0]), str(last[1]))
        if head is None or (int(head[0]), str(head[1])) != tip:
            raise JournalError(
                f"journal {self.path}: the last record does not match the journal head "
                f"(records end at {tip[0]}, head says {None if head is None else head[0]}); "
                "refusing to append; run 'station journal verify'"
            )
        self._checked_tip = tip
        return tip

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def fsync_directory(directory: Path) -> None:
    """Make the directory entries of a journal (its WAL, an archive beside it) durable (POSIX only)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
