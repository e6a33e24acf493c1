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

import functools
import json
import math
import os
import shutil
import sqlite3
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from station.journal.chain import GENESIS_HASH, canonical_json, record_hash
from station.journal.lock import JournalLockedError, WriterLock

APPLICATION_ID = 0x44535431
"""``PRAGMA application_id`` of a journal ("DST1"): how a journal file is told from any other."""

SCHEMA_VERSION = 1
"""The layout this code writes; older layouts are migrated on open, newer ones refused."""

_BATCH = 1000  # records fetched per query when iterating, so no read transaction stays open long
DEFAULT_BUSY_TIMEOUT = 10.0
"""Seconds a writer waits for another writer's transaction before giving up with an error."""

_SCHEMA_V1: tuple[str, ...] = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE records (
        seq       INTEGER PRIMARY KEY,
        time      TEXT NOT NULL,
        kind      TEXT NOT NULL,
        payload   TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash      TEXT NOT NULL
    )""",
    """CREATE TABLE head (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        last_seq  INTEGER NOT NULL,
        last_hash TEXT NOT NULL
    )""",
    # Guards against accidents, not against an attacker (who can drop them): the chain and
    # the head are what make deliberate changes evident.
    """CREATE TRIGGER records_are_append_only_update BEFORE UPDATE ON records
       BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END""",
    """CREATE TRIGGER records_are_append_only_delete BEFORE DELETE ON records
       BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END""",
)

# Statements migrating version N-1 to N, run in order inside the opening transaction (one
# statement at a time: ``executescript`` would commit the transaction). A new journal is
# created at version 1 and migrated like any other, so every migration runs on every new file.
# Empty while there is only one layout; a future layout adds ``2: ("ALTER TABLE ...",)`` here.
_MIGRATIONS: dict[int, tuple[str, ...]] = {}

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


class JournalError(Exception):
    """The journal cannot do what was asked; the message says why and what to do."""


class NotAJournalError(JournalError):
    """The file exists but is not a dealing-station journal (or not even SQLite)."""


class JournalBusyError(JournalError):
    """Another process is writing the journal (holds its writer lock): a journal has one writer."""


class JournalMissingError(JournalError):
    """There is no journal at the given path (only readers complain; the writer creates one)."""


class _HeadMoved(Exception):
    """The head is not where this writer left it: re-read the tip and try once more."""


class _NeedsWritableFolder(Exception):
    """SQLite could not read a WAL journal in place: its folder or file is read-only."""


def _read_only_trouble(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


class RecordError(JournalError, ValueError):
    """A kind or payload that cannot be journaled; nothing was written."""


@dataclass(frozen=True)
class JournalRecord:
    """One journaled event or decision, exactly as stored and hashed."""

    seq: int
    """1, 2, 3, ... with no gaps."""
    time: str
    """Wall clock when it was appended, ISO 8601 UTC with microseconds (``...T21:35:07.123456Z``)."""
    kind: str
    """What it is: an event kind such as ``CardDrawn``, or a decision such as ``SupervisorDecision``."""
    payload: dict[str, Any]
    """The JSON object that was appended (after a JSON round trip: tuples come back as lists)."""
    prev_hash: str
    """Hex SHA-256 of the previous record; :data:`GENESIS_HASH` for record 1."""
    hash: str
    """Hex SHA-256 over (seq, time, kind, canonical payload, prev_hash)."""

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object, fields in a fixed order (used by export)."""
        return {
            "seq": self.seq,
            "time": self.time,
            "kind": self.kind,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def utc_now() -> datetime:
    """The default clock."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds and a ``Z``; naive datetimes are refused as ambiguous."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise JournalError("the journal clock returned a naive datetime; it must carry a time zone")
    # isoformat, not strftime: the same text, at a fraction of the cost
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


# --- validation ----------------------------------------------------------------------------


def _check_json(value: Any, where: str) -> None:
    """Refuse anything that would not come back from JSON as the same value."""
    if value is None or isinstance(value, (bool, int, str)):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise RecordError(f"{where}: text that is not valid Unicode (lone surrogate)") from None
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{where}: {value!r} is not a JSON number")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise RecordError(f"{where}: object key {key!r} is not text")
            _check_json(key, f"{where} key")
            _check_json(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json(item, f"{where}[{index}]")
        return
    raise RecordError(f"{where}: {type(value).__name__} is not a JSON value")


def _pair(item: Any) -> tuple[Any, Any]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise RecordError(f"append_many takes (kind, payload) pairs, got {item!r}")
    return item[0], item[1]


def _prepare(kind: Any, payload: Any) -> tuple[str, str, dict[str, Any]]:
    """Validate one item and return (kind, canonical payload JSON, the payload as read back).

    The quick test is the definition itself: the payload must come back from its JSON as the
    same value. Only a payload that fails it is walked by :func:`_check_json`, which names
    the offending part (and lets tuples through: they come back as lists).
    """
    if not isinstance(kind, str) or not kind.strip():
        raise RecordError(f"a record kind must be non-empty text, got {kind!r}")
    _check_json(kind, "kind")
    if not isinstance(payload, dict):
        raise RecordError(f"{kind}: the payload must be a JSON object (dict), got {type(payload).__name__}")
    try:
        text = canonical_json(payload)
        text.encode("utf-8")  # a lone surrogate cannot be stored or hashed
        back = json.loads(text)
        if back == payload:
            return kind, text, back
    except (TypeError, ValueError):
        pass
    _check_json(payload, f"{kind} payload")
    text = canonical_json(payload)
    return kind, text, json.loads(text)


def check_record(kind: Any, payload: Any) -> None:
    """Raise :class:`RecordError` (naming the part) if the journal could not store this record."""
    _prepare(kind, payload)


# --- shared reading ------------------------------------------------------------------------

_COLUMNS = "seq, time, kind, payload, prev_hash, hash"


@functools.lru_cache(maxsize=128)
def _insert_statement(rows: int) -> str:
    """One multi-row INSERT for a group of ``rows`` records (6 parameters each, well inside
    SQLite's limit for the loop's groups of at most a few dozen)."""
    return f"INSERT INTO records ({_COLUMNS}) VALUES " + ",".join(["(?, ?, ?, ?, ?, ?)"] * rows)


def _record_from_row(row: tuple[Any, ...]) -> JournalRecord:
    seq, time, kind, payload, prev_hash, hash_ = row
    try:
        body = json.loads(payload)
    except (TypeError, ValueError):
        body = None
    if not isinstance(body, dict):
        raise JournalError(f"record {seq}: payload is not a JSON object; run 'station journal verify'")
    return JournalRecord(seq=seq, time=time, kind=kind, payload=body, prev_hash=prev_hash, hash=hash_)


def _identify(conn: sqlite3.Connection, path: Path) -> bool:
    """True for a journal, False for an empty database; raise for anything else."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as exc:
        raise NotAJournalError(f"{path} is not a journal: {exc}") from None
    if app_id == APPLICATION_ID:
        return True
    if app_id == 0 and not tables:
        return False
    raise NotAJournalError(f"{path} is an SQLite database but not a dealing-station journal")


def _schema_version(conn: sqlite3.Connection, path: Path) -> int:
    try:
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotAJournalError(f"{path}: journal schema is unreadable: {exc}") from None
    if row is None:
        raise NotAJournalError(f"{path}: journal has no schema version")
    return int(row[0])


class _Access:
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
                    .execute(f"SELECT {_COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (after, _BATCH))
                    .fetchall()
                )
            for row in rows:
                yield _record_from_row(row)
            if len(rows) < _BATCH:
                return
            after = rows[-1][0]

    def last(self) -> JournalRecord | None:
        """The newest record, or None for an empty journal."""
        with self._lock:
            row = self._require_open().execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else _record_from_row(row)

    def last_of_kind(self, kind: str) -> JournalRecord | None:
        """The newest record of one kind (e.g. the station's ``Configuration``), or None."""
        with self._lock:
            row = self._require_open().execute(
                f"SELECT {_COLUMNS} FROM records WHERE kind = ? ORDER BY seq DESC LIMIT 1", (kind,)
            ).fetchone()
        return None if row is None else _record_from_row(row)

    def get(self, seq: int) -> JournalRecord | None:
        """The record with this sequence number, or None."""
        with self._lock:
            row = self._require_open().execute(f"SELECT {_COLUMNS} FROM records WHERE seq = ?", (int(seq),)).fetchone()
        return None if row is None else _record_from_row(row)

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


class Journal(_Access):
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
            raise JournalError(f"cannot create the journal's directory {self.path.parent}: {_reason(exc)}") from None
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
            raise JournalError(f"cannot write in the journal's folder {self.path.parent}: {_reason(exc)}") from None
        self._writer_lock = writer_lock

    def _open(self, busy_timeout: float, exclusive: bool) -> None:
        try:
            # Autocommit mode: transactions are only the explicit BEGIN IMMEDIATE ... COMMIT below.
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            _identify(conn, self.path)  # before anything is written: never convert a foreign file
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self.path}: WAL mode did not take effect (got {mode!r})")
            conn.execute("PRAGMA synchronous = FULL")
            level = conn.execute("PRAGMA synchronous").fetchone()[0]
            if level != 2:
                raise JournalError(f"journal {self.path}: synchronous=FULL did not take effect (got {level!r})")
            if exclusive:  # once the file is known to be a journal that can be one: no lock beside a stranger
                self._take_writer_lock()
            self._initialise(conn)
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
        _fsync_directory(self.path.parent)

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

    def _initialise(self, conn: sqlite3.Connection) -> None:
        """Create the schema in a new file, or migrate an older one, in one transaction."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not _identify(conn, self.path):
                for statement in _SCHEMA_V1:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (1)")
                conn.execute("INSERT INTO head (id, last_seq, last_hash) VALUES (1, 0, ?)", (GENESIS_HASH,))
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            # A new file is at version 1 now: every migration runs on it too.
            version = _schema_version(conn, self.path)
            if version > SCHEMA_VERSION:
                raise JournalError(
                    f"journal {self.path} has schema version {version}, newer than this station "
                    f"understands ({SCHEMA_VERSION}); upgrade the station software"
                )
            while version < SCHEMA_VERSION:
                statements = _MIGRATIONS.get(version + 1)
                if statements is None:
                    raise JournalError(f"journal {self.path}: no migration from schema version {version}")
                for statement in statements:
                    conn.execute(statement)
                version += 1
                conn.execute("UPDATE schema_version SET version = ?", (version,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

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
        prepared = [_prepare(*_pair(item)) for item in items]
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
            conn.execute(_insert_statement(len(prepared)), values)
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


class JournalReader(_Access):
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
            raise JournalError(f"cannot read journal {self.path}: {_reason(exc)}") from None
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
            if not _identify(conn, self.path):
                raise NotAJournalError(f"{self.path} is not a journal: it is an empty file or database")
            version = _schema_version(conn, self.path)
            if version > SCHEMA_VERSION:
                raise JournalError(
                    f"journal {self.path} has schema version {version}, newer than this station reads "
                    f"({SCHEMA_VERSION}); read it with the station software that wrote it, or a newer one"
                )
            if version < SCHEMA_VERSION:
                raise JournalError(
                    f"journal {self.path} has schema version {version}, older than this station reads "
                    f"({SCHEMA_VERSION}); read it with the station software that wrote it (a station "
                    "that writes to it migrates it first)"
                )
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
            raise JournalError(f"cannot read journal {self.path}: copying it failed: {_reason(exc)}") from None
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
                cursor = conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq")
                while batch := cursor.fetchmany(_BATCH):
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


def _reason(exc: OSError) -> str:
    """An OS error as a person reads it: "Permission denied", not "[Errno 13] ... '/path'"."""
    return exc.strerror or str(exc)


def _lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _fsync_directory(directory: Path) -> None:
    """Make the directory entries of the journal and its WAL durable (POSIX only)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
