"""The journal file's layout: its tables, its version and the migrations between versions.

``PRAGMA application_id`` tells a journal from any other file; ``schema_version`` holds the
layout's version. The writer creates a new file at version 1 and migrates it like any older
file, in the opening transaction; readers read the versions in :data:`READABLE_VERSIONS` and
refuse the others, naming the version (docs/journal.md, "Schema versions").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from station.journal.chain import GENESIS_HASH
from station.journal.errors import JournalError, NotAJournalError

APPLICATION_ID = 0x44535431
"""``PRAGMA application_id`` of a journal ("DST1"): how a journal file is told from any other."""

SCHEMA_VERSION = 5
"""The layout this code writes; older layouts are migrated on open, newer ones refused."""

READABLE_VERSIONS = (1, 2, 3, 4, 5)
"""Layouts a reader reads as they are (versions 2 to 4 only add to an index and the seam table:
an older file reads the same, its look-ups by kinds its index lacks reading the records instead)."""


def _kind_condition(kinds: tuple[str, ...]) -> str:
    return "kind IN (" + ", ".join(f"'{kind}'" for kind in kinds) + ")"


#: The kinds layout 2 indexed: the configuration and software at start, the checkpoints of the
#: projection and of the integrity monitor.
_KINDS_V2 = ("Configuration", "Software", "Checkpoint", "IntegrityCheckpoint")
#: Record kinds the station looks up by kind. A partial index holds where each of them is, so
#: the newest is found without reading the journal (a year of a table is about nine million
#: records). Layout 3 adds the meters' checkpoints and the station's own starts and stops, which
#: every start looks up (docs/events.md): without the index a start on a journal of a million
#: rounds read all of it for them (2 s). The list is part of the layout: indexing another kind
#: is a migration.
_KINDS_V3 = (*_KINDS_V2, "MetersCheckpoint", "StationStarted", "StationStopped")
#: Layout 4 adds a supervisor's acknowledgements of alerts: the alert register keeps only the
#: latest acknowledged alerts (station/core/integrity_steps.py), and the integrity report of a
#: shoe finds who acknowledged an older one through the index, not by reading the months after.
_KINDS_V4 = (*_KINDS_V3, "AlertAcknowledged")
#: Layout 5 adds the dealers' sign-ins: a station whose console starts asks how the dealer at
#: the table signed in (a console's sessions end with the station); a journal whose dealer
#: signed in long ago was otherwise read back to that record at every start (1-8 s on a year).
INDEXED_KINDS = (*_KINDS_V4, "DealerSignedIn")
#: The index's condition, written once: SQLite uses a partial index only for a query that
#: repeats its condition word for word.
INDEXED = _kind_condition(INDEXED_KINDS)

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
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # The index above, and the seam: a file whose first records were archived says here where
    # its chain comes from (station/journal/archive.py). One row, or none for a file that
    # begins with record 1.
    2: (
        f"CREATE INDEX records_by_kind ON records (kind, seq) WHERE {_kind_condition(_KINDS_V2)}",
        """CREATE TABLE seam (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            prev_seq   INTEGER NOT NULL,
            prev_hash  TEXT NOT NULL,
            first_hash TEXT NOT NULL,
            archive    TEXT NOT NULL
        )""",
    ),
    # The index again, of more kinds (INDEXED_KINDS): built once, when a station of this
    # layout first opens the journal to write (some seconds on a year of records).
    3: (
        "DROP INDEX records_by_kind",
        f"CREATE INDEX records_by_kind ON records (kind, seq) WHERE {_kind_condition(_KINDS_V3)}",
    ),
    4: (
        "DROP INDEX records_by_kind",
        f"CREATE INDEX records_by_kind ON records (kind, seq) WHERE {_kind_condition(_KINDS_V4)}",
    ),
    5: (
        "DROP INDEX records_by_kind",
        f"CREATE INDEX records_by_kind ON records (kind, seq) WHERE {INDEXED}",
    ),
}


def identify(conn: sqlite3.Connection, path: Path) -> bool:
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


def schema_version(conn: sqlite3.Connection, path: Path) -> int:
    try:
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotAJournalError(f"{path}: journal schema is unreadable: {exc}") from None
    if row is None:
        raise NotAJournalError(f"{path}: journal has no schema version")
    return int(row[0])


def initialise(conn: sqlite3.Connection, path: Path) -> None:
    """Create the layout in a new file, or migrate an older one, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not identify(conn, path):
            for statement in _SCHEMA_V1:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (1)")
            conn.execute("INSERT INTO head (id, last_seq, last_hash) VALUES (1, 0, ?)", (GENESIS_HASH,))
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        # A new file is at version 1 now: every migration runs on it too.
        version = schema_version(conn, path)
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"journal {path} has schema version {version}, newer than this station "
                f"understands ({SCHEMA_VERSION}); upgrade the station software"
            )
        while version < SCHEMA_VERSION:
            statements = _MIGRATIONS.get(version + 1)
            if statements is None:
                raise JournalError(f"journal {path}: no migration from schema version {version}")
            for statement in statements:
                conn.execute(statement)
            version += 1
            conn.execute("UPDATE schema_version SET version = ?", (version,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def check_readable(conn: sqlite3.Connection, path: Path) -> int:
    """The file's layout version, when this station reads it; raises otherwise."""
    version = schema_version(conn, path)
    if version > SCHEMA_VERSION:
        raise JournalError(
            f"journal {path} has schema version {version}, newer than this station reads "
            f"({SCHEMA_VERSION}); read it with the station software that wrote it, or a newer one"
        )
    if version not in READABLE_VERSIONS:
        raise JournalError(
            f"journal {path} has schema version {version}, older than this station reads "
            f"({min(READABLE_VERSIONS)}); read it with the station software that wrote it (a station "
            "that writes to it migrates it first)"
        )
    return version
