"""Reading a journal through ``JournalReader`` (issue 40, the journal guard): a path that cannot
be reached or read is named with the reason; a reader may be handed to another thread; the
records of one kind are found whether the index holds the kind or not, newest first, however
many there are and across the batches they are fetched in; a file without its head row says
so; and every layout a station ever wrote is read as it is."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from station.journal import Journal, JournalError, JournalReader
from station.journal import schema as layout
from station.journal.schema import INDEXED_KINDS

from .damage import in_another_thread


def _journal(path: Path, items: list[tuple[str, dict[str, object]]]) -> Path:
    with Journal(path) as journal:
        journal.append_many(items)
    return path


def test_a_path_through_a_file_is_named_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    path = tmp_path / "notes.txt" / "journal.sqlite3"
    with pytest.raises(JournalError) as raised:
        JournalReader(path)
    assert str(raised.value) == f"cannot read journal {path}: Not a directory"


def test_a_file_this_user_may_not_read_is_named(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    path = _journal(tmp_path / "journal.sqlite3", [("Note", {})])
    path.chmod(0)
    try:
        with pytest.raises(JournalError) as raised:
            JournalReader(path)
        assert str(raised.value) == f"cannot read journal {path}: permission denied"
    finally:
        path.chmod(0o600)


def test_an_empty_file_is_not_a_journal_and_is_left_as_it_is(tmp_path: Path) -> None:
    from station.journal import NotAJournalError

    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(NotAJournalError) as raised:
        JournalReader(path)
    assert str(raised.value) == f"{path} is not a journal: it is an empty file or database"
    assert path.read_bytes() == b""


def test_a_reader_may_be_handed_to_another_thread(tmp_path: Path) -> None:
    """The floor feed and the monitors open a reader in one thread and read in another."""
    path = _journal(tmp_path / "journal.sqlite3", [("Note", {"n": n}) for n in range(3)])
    with JournalReader(path) as reader:
        assert in_another_thread(reader.count) == 3


def test_records_of_a_kind_the_index_does_not_hold_are_found_too(tmp_path: Path) -> None:
    assert "CardDrawn" not in INDEXED_KINDS
    items: list[tuple[str, dict[str, object]]] = []
    for n in range(1, 13):
        items.append(("CardDrawn", {"n": n}))
        items.append(("Checkpoint", {"n": n}))
    path = _journal(tmp_path / "journal.sqlite3", items)
    with JournalReader(path) as reader:
        assert [r.payload["n"] for r in reader.of_kind("CardDrawn")] == list(range(12, 0, -1))
        assert [r.payload["n"] for r in reader.of_kind("Checkpoint")] == list(range(12, 0, -1))
        assert reader.seqs_of_kind("CardDrawn") == list(range(1, 25, 2))
        assert reader.seqs_of_kind("Checkpoint") == list(range(2, 25, 2))
        newest = reader.last_of_kind("CardDrawn")
        oldest = reader.first_of_kind("CardDrawn", after=1)
        assert newest is not None and newest.seq == 23
        assert oldest is not None and oldest.seq == 3


@pytest.mark.parametrize("kind", ["CardDrawn", "Checkpoint"])
@pytest.mark.parametrize("count", [49, 50, 51, 100, 101, 137])
def test_every_record_of_a_kind_is_found_newest_first_however_many_there_are(tmp_path: Path, kind: str,
                                                                            count: int) -> None:
    """Fetched 50 at a time (a checkpoint is large): none is left out or given twice at the
    edges of a batch, with or without a bound."""
    items: list[tuple[str, dict[str, object]]] = []
    for n in range(1, count + 1):
        items.append((kind, {"n": n}))
        items.append(("Note", {"n": n}))
    path = _journal(tmp_path / "journal.sqlite3", items)
    with JournalReader(path) as reader:
        assert [r.seq for r in reader.of_kind(kind)] == list(range(2 * count - 1, 0, -2))
        assert [r.seq for r in reader.of_kind(kind, before=2 * count - 1)] == list(range(2 * count - 3, 0, -2))


def test_a_journal_without_its_head_row_says_so(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", [("Note", {})])
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM head")
    conn.commit()
    conn.close()
    with JournalReader(path) as reader, pytest.raises(JournalError) as raised:
        reader.head()
    assert str(raised.value) == f"journal {path} has no head row; run 'station journal verify'"


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_every_layout_a_station_wrote_is_read_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      version: int) -> None:
    path = tmp_path / "journal.sqlite3"
    with monkeypatch.context() as old:
        old.setattr(layout, "SCHEMA_VERSION", version)  # written by a station of that layout
        _journal(path, [("Configuration", {"table": {}}), ("Note", {"n": 1})])
    with JournalReader(path) as reader:
        configuration = reader.last_of_kind("Configuration")
        assert configuration is not None and configuration.seq == 1 and reader.count() == 2
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == version  # read, not migrated
    conn.close()


def test_a_journal_sqlite_cannot_open_is_refused_naming_it(tmp_path: Path) -> None:
    """SQLite opens no path longer than 512 bytes: a copy kept that deep is refused with a
    reason, not read from somewhere else."""
    folder = tmp_path
    for _ in range(3):
        folder /= "d" * 200
    folder.mkdir(parents=True)
    path = _journal(tmp_path / "journal.sqlite3", [("Note", {})])
    deep = folder / "journal.sqlite3"
    path.rename(deep)
    with pytest.raises(JournalError) as raised:
        JournalReader(deep)
    assert str(raised.value).startswith(f"cannot read journal {deep}: SQLite refused")
