"""Read-only access to a journal: verification, export, recall, the floor feed, diagnostics.

:class:`JournalReader` never creates, migrates or writes a file, and reads a copy kept where
nothing may be written (read-only media, a read-only folder, as an auditor receives it)
without writing a byte beside it (docs/journal.md, "Backups and copies").
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from station.journal.access import BATCH, DEFAULT_BUSY_TIMEOUT, Access
from station.journal.errors import JournalError, JournalMissingError, NotAJournalError, os_reason
from station.journal.records import COLUMNS
from station.journal.schema import check_readable, identify


class _NeedsWritableFolder(Exception):
    """SQLite could not read a WAL journal in place: its folder or file is read-only."""


def _read_only_trouble(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


class JournalReader(Access):
    """Read-only access to an existing journal: never creates, migrates or writes a file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._conn = None
        self._copy: tempfile.TemporaryDirectory[str] | None = None
        try:
            mode = self.path.stat().st_mode
        except FileNotFoundError:
            raise JournalMissingError(f"no journal at {self.path}") from None
        except OSError as exc:  # a folder on the way that this user may not enter
            raise JournalError(f"cannot read journal {self.path}: {os_reason(exc)}") from None
        if not stat.S_ISREG(mode):
            raise NotAJournalError(f"{self.path} is not a journal: it is not a regular file")
        if not os.access(self.path, os.R_OK):
            raise JournalError(f"cannot read journal {self.path}: permission denied")
        try:
            conn = self._connect(f"{self.path.resolve().as_uri()}?mode=ro")
        except _NeedsWritableFolder:
            conn = self._connect_read_only_copy()
        self._conn = conn

    def _connect(self, uri: str) -> sqlite3.Connection:
        """Open and check the journal at ``uri``; :class:`_NeedsWritableFolder` when SQLite
        could not read it in place because its folder or file is read-only."""
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            if _read_only_trouble(exc):
                raise _NeedsWritableFolder from None
            raise JournalError(f"cannot open journal {self.path}: {exc}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(DEFAULT_BUSY_TIMEOUT * 1000)}")
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the first real read
            except sqlite3.DatabaseError as exc:
                if _read_only_trouble(exc):
                    raise
                raise NotAJournalError(f"{self.path} is not a journal: {exc}") from None
            if not identify(conn, self.path):
                raise NotAJournalError(f"{self.path} is not a journal: it is an empty file or database")
            check_readable(conn, self.path)
        except sqlite3.Error as exc:
            conn.close()
            if _read_only_trouble(exc):
                raise _NeedsWritableFolder from None
            raise JournalError(f"cannot read journal {self.path}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect_read_only_copy(self) -> sqlite3.Connection:
        """Read a journal kept where nothing may be written (an evidence copy on read-only
        media or in a read-only folder), without writing anything there.

        A WAL journal's reader needs a shared-memory file beside it. With no write-ahead log
        left (a station that stopped cleanly checkpoints it into the file) the file is read
        as immutable, in place. With one, the two files are copied to a private temporary
        folder and read there, so the records still in the log are not missed."""
        wal = self.path.with_name(self.path.name + "-wal")
        if not wal.exists() or wal.stat().st_size == 0:
            try:
                return self._connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1")
            except _NeedsWritableFolder:
                raise JournalError(f"cannot read journal {self.path}: SQLite refused to read it read-only") from None
        self._copy = tempfile.TemporaryDirectory(prefix="station-journal-")
        copy = Path(self._copy.name) / self.path.name
        try:
            shutil.copyfile(self.path, copy)
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            return self._connect(f"{copy.as_uri()}?mode=ro")
        except OSError as exc:
            self._copy.cleanup()
            raise JournalError(f"cannot read journal {self.path}: copying it failed: {os_reason(exc)}") from None
        except (_NeedsWritableFolder, JournalError) as exc:
            self._copy.cleanup()
            raise JournalError(f"cannot read journal {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the file (and drop a private copy, if one was read); safe to call twice."""
        try:
            super().close()
        finally:
            copy, self._copy = self._copy, None
            if copy is not None:
                copy.cleanup()

    def integrity_problems(self) -> list[str]:
        """SQLite's own ``PRAGMA integrity_check`` of the file structure; empty when sound."""
        with self._lock:
            try:
                messages = [str(r[0]) for r in self._require_open().execute("PRAGMA integrity_check").fetchall()]
            except sqlite3.DatabaseError as exc:  # too damaged to even check
                return [str(exc)]
        return [] if messages == ["ok"] else messages

    def snapshot_rows(self) -> Iterator[tuple[Any, ...]]:
        """Every stored row, raw and unparsed, plus the head, from one consistent snapshot.

        Yields ``("head", last_seq, last_hash)`` first (or ``("head", None, None)`` when the
        row is missing), then ``(seq, time, kind, payload_text, prev_hash, hash)`` in seq
        order. One read transaction covers all of it, so a writer appending meanwhile cannot
        make the head and the rows disagree. Used by the verifier, which must see damage
        that :meth:`records` would refuse to parse.
        """
        with self._lock:
            conn = self._require_open()
            # Bytes that are not UTF-8 (a flipped bit in the file) must reach the verifier as
            # evidence, not abort the walk: keep them as lone surrogates it can point at.
            conn.text_factory = _lenient_text
            conn.execute("BEGIN")
            try:
                head = conn.execute("SELECT last_seq, last_hash FROM head WHERE id = 1").fetchone()
                yield ("head", None, None) if head is None else ("head", head[0], head[1])
                cursor = conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq")
                while batch := cursor.fetchmany(BATCH):
                    yield from batch
            finally:
                if self._conn is conn:  # an abandoned walk may be finalised after close()
                    conn.text_factory = str
                    if conn.in_transaction:
                        conn.execute("COMMIT")

    def __enter__(self) -> JournalReader:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")
