"""Reading a journal file: what the writer and the read-only reader share."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from station.journal.chain import GENESIS_HASH
from station.journal.errors import JournalError
from station.journal.records import COLUMNS, JournalRecord, record_from_row
from station.journal.schema import INDEXED, INDEXED_KINDS

BATCH = 1000  # records fetched per query when iterating, so no read transaction stays open long
DEFAULT_BUSY_TIMEOUT = 10.0
"""Seconds a writer waits for another writer's transaction before giving up with an error."""
_NO_LIMIT = 2**63 - 1
_KIND_BATCH = 50  # records of one kind fetched per query (checkpoints are large)


@dataclass(frozen=True)
class Seam:
    """A file whose first records were moved to an archive: the last record before its own
    (``prev_seq``, ``prev_hash``), the hash of the journal's record 1 and the archive file
    that holds the records before (its name, beside this file)."""

    prev_seq: int
    prev_hash: str
    first_hash: str
    archive: str


class Access:
    """Reading that the writer and the reader share."""

    _conn: sqlite3.Connection | None
    _lock: threading.RLock
    path: Path

    def _require_open(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"journal {self.path} is closed")
        return self._conn

    def records(self, since_seq: int = 0) -> Iterator[JournalRecord]:
        """Records with ``seq > since_seq`` in sequence order.

        Fetched in batches, each its own short read, so a long replay neither holds a read
        transaction open (which would stop WAL checkpoints) nor breaks if records are
        appended meanwhile (they are simply included). Hashes are not checked here; call
        :func:`station.journal.verify.verify` first when that matters (replay after a crash).
        """
        after = int(since_seq)
        while True:
            with self._lock:
                rows = (
                    self._require_open()
                    .execute(f"SELECT {COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (after, BATCH))
                    .fetchall()
                )
            for row in rows:
                yield record_from_row(row)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def last(self) -> JournalRecord | None:
        """The newest record, or None for an empty journal."""
        with self._lock:
            row = self._require_open().execute(f"SELECT {COLUMNS} FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else record_from_row(row)

    def of_kind(self, kind: str, *, before: int | None = None) -> Iterator[JournalRecord]:
        """Records of one kind, newest first (only those before seq ``before``, when given).

        A kind of :data:`~station.journal.schema.INDEXED_KINDS` is found through the index,
        without reading the records between (a file of the first layout has no index: there
        the records are read, as they always were)."""
        indexed = f"{INDEXED} AND " if kind in INDEXED_KINDS else ""
        below = _NO_LIMIT if before is None else int(before)
        while True:
            with self._lock:
                rows = self._require_open().execute(
                    f"SELECT {COLUMNS} FROM records WHERE {indexed}kind = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                    (kind, below, _KIND_BATCH),
                ).fetchall()
            for row in rows:
                yield record_from_row(row)
            if len(rows) < _KIND_BATCH:
                return
            below = rows[-1][0]

    def seqs_of_kind(self, kind: str) -> list[int]:
        """The sequence numbers of every record of one kind in this file, oldest first. For a
        kind of :data:`~station.journal.schema.INDEXED_KINDS` this reads the index alone, not
        the records: a year of checkpoints is listed in milliseconds."""
        indexed = f"{INDEXED} AND " if kind in INDEXED_KINDS else ""
        with self._lock:
            rows = self._require_open().execute(
                f"SELECT seq FROM records WHERE {indexed}kind = ? ORDER BY seq", (kind,)).fetchall()
        return [int(row[0]) for row in rows]

    def of_kind_between(self, kind: str, after: int, before: int | None = None) -> list[JournalRecord]:
        """The records of one kind with ``after < seq < before`` (to the end when ``before`` is
        None), oldest first: a walk over that stretch of the file in sequence order, which reads
        the rows but decodes only those of ``kind`` (a kind that is not indexed, in a stretch
        known to be short)."""
        below = _NO_LIMIT if before is None else int(before)
        with self._lock:
            rows = self._require_open().execute(
                f"SELECT {COLUMNS} FROM records WHERE seq > ? AND seq < ? AND kind = ? ORDER BY seq",
                (int(after), below, kind)).fetchall()
        return [record_from_row(row) for row in rows]

    def time_of(self, seq: int) -> str | None:
        """The journal time of record ``seq`` (its payload is not read), or None."""
        with self._lock:
            row = self._require_open().execute("SELECT time FROM records WHERE seq = ?", (int(seq),)).fetchone()
        return None if row is None else str(row[0])

    def first_of_kind(self, kind: str, *, after: int = 0) -> JournalRecord | None:
        """The oldest record of one kind in this file (after seq ``after``), or None (through
        the index, as above)."""
        indexed = f"{INDEXED} AND " if kind in INDEXED_KINDS else ""
        with self._lock:
            row = self._require_open().execute(
                f"SELECT {COLUMNS} FROM records WHERE {indexed}kind = ? AND seq > ? ORDER BY seq LIMIT 1",
                (kind, int(after))).fetchone()
        return None if row is None else record_from_row(row)

    def last_of_kind(self, kind: str, *, before: int | None = None) -> JournalRecord | None:
        """The newest record of one kind (e.g. the station's ``Configuration``), or None."""
        return next(self.of_kind(kind, before=before), None)

    def seam(self) -> Seam | None:
        """Where this file's chain comes from, when its first records were archived
        (:mod:`station.journal.archive`); None for a file that begins with record 1."""
        with self._lock:
            conn = self._require_open()
            try:
                row = conn.execute("SELECT prev_seq, prev_hash, first_hash, archive FROM seam WHERE id = 1").fetchone()
            except sqlite3.OperationalError:  # a file of the first layout: it has no seam table
                return None
        return None if row is None else Seam(int(row[0]), str(row[1]), str(row[2]), str(row[3]))

    def first_hash(self) -> str | None:
        """The hash of the journal's record 1, in this file or before its seam (the journal's
        id is made from it); None for an empty journal."""
        seam = self.seam()
        if seam is not None:
            return seam.first_hash
        first = self.get(1)
        return None if first is None else first.hash

    def start(self) -> tuple[int, str]:
        """(seq, hash) of the record before this file's first: (0, genesis) unless archived."""
        seam = self.seam()
        return (0, GENESIS_HASH) if seam is None else (seam.prev_seq, seam.prev_hash)

    def get(self, seq: int) -> JournalRecord | None:
        """The record with this sequence number, or None."""
        with self._lock:
            row = self._require_open().execute(f"SELECT {COLUMNS} FROM records WHERE seq = ?", (int(seq),)).fetchone()
        return None if row is None else record_from_row(row)

    def count(self) -> int:
        """How many records the journal holds."""
        with self._lock:
            return int(self._require_open().execute("SELECT count(*) FROM records").fetchone()[0])

    def head(self) -> tuple[int, str]:
        """(last_seq, last_hash) from the checkpoint row written with every append."""
        with self._lock:
            row = self._require_open().execute("SELECT last_seq, last_hash FROM head WHERE id = 1").fetchone()
        if row is None:
            raise JournalError(f"journal {self.path} has no head row; run 'station journal verify'")
        return int(row[0]), str(row[1])

    def close(self) -> None:
        """Close the file; safe to call twice."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @property
    def closed(self) -> bool:
        return self._conn is None
