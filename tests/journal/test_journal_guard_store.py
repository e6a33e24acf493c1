"""The journal's writer through ``Journal`` and its lock (issue 40, the journal guard): where it
cannot be opened it says why, naming the path (a folder that is a file, a path that leads
nowhere, a lock that cannot be made, another connection writing); it refuses to extend a
journal whose head and records disagree, naming both; the lock file is the station's group's
to read and names its holder; a clock must say its offset; a payload that only round-trips
as JSON through lists is still journaled; the file says it is a journal in its header; and
the layouts it migrates from are the ones it knows."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

import pytest

from station.journal import Journal, JournalError, JournalReader
from station.journal.lock import JournalLockedError, WriterLock, lock_path
from station.journal.verify import verify

from .damage import in_another_thread


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def test_a_folder_that_is_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the journal's folder should be\n")
    with pytest.raises(JournalError) as raised:
        Journal(tmp_path / "state" / "journal.sqlite3")
    assert str(raised.value) == f"cannot create the journal's directory {tmp_path / 'state'}: File exists"


def test_a_journal_path_that_leads_nowhere_is_named(tmp_path: Path) -> None:
    """A link to a folder that is not there: nothing says so before SQLite opens the file."""
    link = tmp_path / "journal.sqlite3"
    link.symlink_to(tmp_path / "gone" / "journal.sqlite3")
    with pytest.raises(JournalError) as raised:
        Journal(link)
    assert str(raised.value) == f"cannot open journal {link}: unable to open database file"


def test_a_lock_that_cannot_be_made_names_the_folder(path: Path) -> None:
    lock_path(path).mkdir()
    with pytest.raises(JournalError) as raised:
        Journal(path)
    assert str(raised.value) == f"cannot write in the journal's folder {path.parent}: Is a directory"


def test_a_journal_another_connection_is_writing_is_not_opened(path: Path) -> None:
    """A transaction held by someone else (a tool with the file open) outlasts the writer's
    patience: it says so, and holds nothing."""
    Journal(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(JournalError) as raised:
            Journal(path, busy_timeout=0.05)
        assert str(raised.value) == f"cannot open journal {path}: database is locked"
    finally:
        other.close()
    with Journal(path) as journal:  # its lock was let go
        assert journal.append("Note", {}).seq == 1


def test_a_journal_without_its_head_is_not_extended(path: Path) -> None:
    with Journal(path) as journal:
        journal.append_many([("Note", {"n": n}) for n in range(3)])
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM head")
    conn.commit()
    conn.close()
    with Journal(path) as journal, pytest.raises(JournalError) as raised:
        journal.append("Note", {})
    assert str(raised.value) == (f"journal {path}: the last record does not match the journal head (records end at 3, "
                                 "head says None); refusing to append; run 'station journal verify'")


def test_a_head_behind_the_records_is_named_with_both(path: Path) -> None:
    with Journal(path) as journal:
        journal.append_many([("Note", {"n": n}) for n in range(3)])
        second = journal.get(2)
    assert second is not None
    conn = sqlite3.connect(path)
    conn.execute("UPDATE head SET last_seq = 2, last_hash = ?", (second.hash,))
    conn.commit()
    conn.close()
    with Journal(path) as journal, pytest.raises(JournalError, match=r"\(records end at 3, head says 2\); refusing"):
        journal.append("Note", {})


def test_a_head_moved_under_a_tip_just_checked_is_refused_not_guessed(path: Path) -> None:
    """Another writer (a tool opened without the lock) appends between the moment this writer
    checked the journal's tip and its own insert: the insert is refused as a head mismatch, and
    the other's record stays."""
    other = Journal(path, exclusive=False)

    def clock() -> datetime:
        other.append("Note", {"by": "the other writer"})
        return datetime(2026, 12, 7, 10, 0, tzinfo=UTC)

    try:
        with Journal(path, clock=clock) as journal, pytest.raises(JournalError) as raised:
            journal.append("Note", {"by": "this writer"})
    finally:
        other.close()
    assert str(raised.value) == (f"journal {path}: the last record does not match the journal head; refusing to "
                                 "append; run 'station journal verify'")
    with JournalReader(path) as reader:
        assert [r.payload for r in reader.records()] == [{"by": "the other writer"}]


class _NoOffset(tzinfo):
    """A time zone that cannot say its offset (as a broken zone database can)."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str:
        return "nowhere"


def test_a_clock_whose_zone_gives_no_offset_is_refused_like_a_naive_one(path: Path) -> None:
    with Journal(path, clock=lambda: datetime(2026, 12, 7, 10, 0, tzinfo=_NoOffset())) as journal:
        with pytest.raises(JournalError, match="the journal clock returned a naive datetime"):
            journal.append("Note", {})
        assert journal.count() == 0


def test_tuples_are_journaled_as_lists_with_every_value_inside_them(path: Path) -> None:
    """A payload that does not come back from JSON as it went in only because of its tuples
    is walked part by part, and every part of it (numbers, objects, lists) is taken."""
    payload = {"pair": (1, 2.5), "nested": {"inner": (True, None, "text", [0.25])}, "plain": {"x": 1.5}}
    with Journal(path) as journal:
        record = journal.append("Note", payload)
    assert record.payload == {"pair": [1, 2.5], "nested": {"inner": [True, None, "text", [0.25]]}, "plain": {"x": 1.5}}
    assert verify(path).ok


# --- the lock -------------------------------------------------------------------------------------


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_the_lock_file_is_the_station_groups_to_read_and_nobody_elses(path: Path, umask_022: None) -> None:
    with Journal(path):
        mode = stat.S_IMODE(lock_path(path).stat().st_mode)
        assert mode == 0o640
        assert lock_path(path).read_text() == f"{os.getpid()}\n"


def test_a_lock_is_held_from_its_acquiring_to_its_release(path: Path) -> None:
    lock = WriterLock(path)
    assert not lock.held
    lock.acquire()
    try:
        assert lock.held
    finally:
        lock.release()
    assert not lock.held
    lock.release()  # twice is harmless
    assert not lock.held


def test_a_holder_whose_pid_cannot_be_read_is_another_process(path: Path) -> None:
    """A lock file that cannot be read at its start (here a pipe someone holds the lock on)
    names no process, and the refusal still stands."""
    fifo = lock_path(path)
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(JournalLockedError) as raised:
            WriterLock(path).acquire()
        assert raised.value.pid is None
        assert "is being written by another process" in str(raised.value)
    finally:
        os.close(fd)


# --- the layout -------------------------------------------------------------------------------


def test_a_journal_file_says_dst1_in_its_header(path: Path) -> None:
    """SQLite's application id (bytes 68-71 of the file) is how a journal is told from any
    other database: "DST1", as every journal in the field carries it."""
    Journal(path).close()
    assert path.read_bytes()[68:72] == b"DST1"


def _with_schema_version(path: Path, version: int | None) -> None:
    conn = sqlite3.connect(path)
    if version is None:
        conn.execute("DELETE FROM schema_version")
    else:
        conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.commit()
    conn.close()


def test_a_journal_of_a_layout_before_the_first_is_neither_migrated_nor_read(path: Path) -> None:
    Journal(path).close()
    _with_schema_version(path, 0)
    with pytest.raises(JournalError) as raised:
        Journal(path)
    assert str(raised.value) == f"journal {path}: no migration from schema version 0"
    with pytest.raises(JournalError) as raised:
        JournalReader(path)
    assert str(raised.value) == (f"journal {path} has schema version 0, older than this station reads (1); read it "
                                 "with the station software that wrote it (a station that writes to it migrates it "
                                 "first)")


def test_a_journal_whose_layout_version_is_missing_is_not_a_journal(path: Path) -> None:
    from station.journal import NotAJournalError

    Journal(path).close()
    _with_schema_version(path, None)
    with pytest.raises(NotAJournalError) as raised:
        JournalReader(path)
    assert str(raised.value) == f"{path}: journal has no schema version"
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE schema_version")
    conn.commit()
    conn.close()
    with pytest.raises(NotAJournalError) as raised:
        JournalReader(path)
    assert str(raised.value) == f"{path}: journal schema is unreadable: no such table: schema_version"


def test_a_writer_may_be_handed_to_another_thread(path: Path) -> None:
    """The service opens the journal before its core loop's thread appends to it."""
    with Journal(path) as journal:
        assert in_another_thread(lambda: journal.append("Note", {}).seq) == 1


def test_opening_a_journal_syncs_its_folder(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new file and its write-ahead log are entries of the folder: the folder itself is
    fsynced (not only the files), so a power cut cannot take the log's name away."""
    synced: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode) and os.path.samestat(os.fstat(fd), path.parent.stat()))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    Journal(path).close()
    assert True in synced


def test_a_folder_where_files_cannot_be_locked_is_refused_with_the_reason(path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Some network filesystems refuse ``flock`` (ENOLCK): the writer says so, in words."""
    import errno
    import fcntl

    def flock(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", flock)
    with pytest.raises(JournalError) as raised:
        Journal(path)
    assert str(raised.value) == f"cannot write in the journal's folder {path.parent}: {os.strerror(errno.ENOLCK)}"
