"""Retention without losing the chain: finished gaming days move to an archive file.

A journal only ends when the table's configuration changes, so on a busy table it grows by
about nine thousand records a day. ``station journal archive --before DATE`` moves the records
of the gaming days before DATE into an archive file beside the journal, and the live journal
keeps the rest. The chain is not cut: the archive file is a journal of the same layout whose
records are the moved ones, hash-chained as they always were, and the live journal's
``seam`` row (:class:`~station.journal.access.Seam`) names the last moved record (its seq and
hash, which the live journal's first record carries as its ``prev_hash``), the hash of record 1
(the journal's id) and the archive file. An archive of an archived journal continues the same
way from the archive before it, so a table's whole history is a row of files, each one
continuing the one before.

The cut is placed at a checkpoint of the projection (:mod:`station.core.checkpoints`): the
live journal begins with the table's whole state, so the station, the floor feed and the
integrity monitor start from it as from any checkpoint; the last configuration record is
carried over (appended to the live journal, in the same transaction), so the station still
refuses a changed configuration. The archive file is written under another name, checked and
fsynced before it takes its name, and the live journal changes in one transaction after it:
a crash at any point leaves either the journal as it was or the pair, never a gap.

``station journal verify`` checks the pair end to end, ``station recall`` and ``station
journal export`` read both (:mod:`station.journal.seams`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from station.journal.chain import canonical_json, record_hash
from station.journal.errors import JournalError
from station.journal.records import JournalRecord
from station.journal.schema import APPLICATION_ID, initialise
from station.journal.seams import archive_path
from station.journal.store import Journal, format_time, fsync_directory, utc_now
from station.journal.verify import verify

#: Records copied to the archive per statement.
_COPY_BATCH = 5000
#: The append-only trigger the live journal drops for the move, and restores in the same
#: transaction (station/journal/schema.py).
_DELETE_GUARD = """CREATE TRIGGER records_are_append_only_delete BEFORE DELETE ON records
       BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END"""


@dataclass(frozen=True)
class Archived:
    """What :func:`archive` did: the archive file and the records it holds."""

    path: Path
    first: int
    last: int
    live_from: int  # the live journal's first record now (a checkpoint)


def archive(journal: Journal, cut: int, carried: JournalRecord | None,
            progress: Callable[[int], None] | None = None) -> Archived:
    """Move the records before ``cut`` (a checkpoint's seq) of the open ``journal`` (its
    writer: no station may hold it) to a new archive file; ``carried`` is the configuration
    record appended to the live journal (in the same transaction) when the move takes it away.
    ``progress`` is told the last record copied, batch by batch."""
    path = journal.path
    conn = journal._require_open()
    start_seq, start_hash = journal.start()
    seam = journal.seam()
    first_hash = journal.first_hash()
    last_moved = journal.get(cut - 1)
    if last_moved is None or cut - 1 <= start_seq or first_hash is None:
        raise JournalError(f"journal {path}: no record before {cut} to archive")
    target = archive_path(path, start_seq + 1, last_moved.seq)
    if target.exists():
        raise JournalError(f"{target} exists already; move it away first (it is an archive of records "
                           f"{start_seq + 1}-{last_moved.seq})")
    _write_archive(conn, target, start_seq, start_hash, last_moved, first_hash,
                   seam.archive if seam is not None else None, progress)
    try:
        _cut_live(journal, cut, last_moved, first_hash, target.name, carried)
    except sqlite3.Error as exc:
        # The live journal rolled back whole: the archive just written would hold records the
        # journal still holds, and a second try would find it in its way. It goes.
        target.unlink()
        fsync_directory(target.parent)
        raise JournalError(f"journal {path}: the records could not be taken out of it ({exc}); nothing moved, "
                           "the journal is whole") from None
    return Archived(target, start_seq + 1, last_moved.seq, cut)


def _write_archive(live: sqlite3.Connection, target: Path, start_seq: int, start_hash: str, last: JournalRecord,
                   first_hash: str, before: str | None, progress: Callable[[int], None] | None = None) -> None:
    """The moved records in a journal file of their own, complete on disk before it is named."""
    building = target.with_name(target.name + ".building")
    for leftover in target.parent.glob(building.name + "*"):
        leftover.unlink()
    conn = sqlite3.connect(building, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no write-ahead log beside it
        conn.execute("PRAGMA synchronous = FULL")
        initialise(conn, building)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE head SET last_seq = ?, last_hash = ? WHERE id = 1", (last.seq, last.hash))
        if before is not None or start_seq:
            conn.execute("INSERT INTO seam (id, prev_seq, prev_hash, first_hash, archive) VALUES (1, ?, ?, ?, ?)",
                         (start_seq, start_hash, first_hash, before or ""))
        after = start_seq
        while after < last.seq:
            rows = live.execute("SELECT seq, time, kind, payload, prev_hash, hash FROM records WHERE seq > ? AND "
                                "seq <= ? ORDER BY seq LIMIT ?", (after, last.seq, _COPY_BATCH)).fetchall()
            if not rows:
                raise JournalError(f"records {after + 1}-{last.seq} vanished while being archived")
            conn.executemany("INSERT INTO records (seq, time, kind, payload, prev_hash, hash) "
                             "VALUES (?, ?, ?, ?, ?, ?)", rows)
            after = rows[-1][0]
            if progress is not None:
                progress(after)
        conn.execute("COMMIT")
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            raise JournalError(f"{building}: the archive's layout did not take")
    finally:
        conn.close()
    with open(building, "rb") as stream:
        os.fsync(stream.fileno())
    report = verify(building, standalone=True)  # the archive must hold exactly what it should
    if not report.ok or report.last_seq != last.seq or report.last_hash != last.hash:
        building.unlink()
        raise JournalError(f"the archive did not verify ({report.problem or 'it ends elsewhere'}); nothing moved")
    os.replace(building, target)
    fsync_directory(target.parent)


def _cut_live(journal: Journal, cut: int, last: JournalRecord, first_hash: str, archive_name: str,
              carried: JournalRecord | None) -> None:
    """In one transaction: the seam, the moved records deleted, the configuration carried."""
    conn = journal._require_open()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM seam")
        conn.execute("INSERT INTO seam (id, prev_seq, prev_hash, first_hash, archive) VALUES (1, ?, ?, ?, ?)",
                     (last.seq, last.hash, first_hash, archive_name))
        conn.execute("DROP TRIGGER records_are_append_only_delete")
        conn.execute("DELETE FROM records WHERE seq < ?", (cut,))
        conn.execute(_DELETE_GUARD)
        if carried is not None:
            head_seq, head_hash = conn.execute("SELECT last_seq, last_hash FROM head WHERE id = 1").fetchone()
            time = format_time(utc_now())
            payload = canonical_json(carried.payload)
            digest = record_hash(head_seq + 1, time, carried.kind, payload, head_hash)
            conn.execute("INSERT INTO records (seq, time, kind, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                         (head_seq + 1, time, carried.kind, payload, head_hash, digest))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    journal.forget_tip()


__all__ = ["Archived", "archive"]
