"""Look-ups by kind through the index, and the layouts that brought it (2: the index and the
seam; 3: the index of more kinds)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from station.journal import Journal, JournalReader
from station.journal import schema as layout
from station.journal.verify import verify


def _fill(journal: Journal, records: int) -> None:
    for start in range(0, records, 500):
        journal.append_many([("CardDrawn", {"n": n}) for n in range(start, min(records, start + 500))])


def _looked_up_through_the_index(path: Path, kind: str) -> bool:
    """Whether SQLite's plan for the readers' look-up of ``kind`` goes through the index."""
    conn = sqlite3.connect(path)
    try:
        plan = " ".join(str(row) for row in conn.execute(
            f"EXPLAIN QUERY PLAN SELECT seq FROM records WHERE {layout.INDEXED} AND kind = ? "
            "AND seq < 99999 ORDER BY seq DESC LIMIT 50", (kind,)))
    finally:
        conn.close()
    return "records_by_kind" in plan


def test_the_newest_of_an_indexed_kind_is_found_without_reading_the_records(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        journal.append("Configuration", {"table": {}})
        _fill(journal, 3000)
        journal.append("Checkpoint", {"at": 3001})
        _fill(journal, 20)
        journal.append("Checkpoint", {"at": 3023})
        _fill(journal, 5)
    with JournalReader(path) as reader:
        assert [r.payload["at"] for r in reader.of_kind("Checkpoint")] == [3023, 3001]
        older = reader.last_of_kind("Checkpoint", before=3023)  # the newest is record 3023 itself
        first = reader.first_of_kind("Configuration")
        assert older is not None and older.payload["at"] == 3001
        assert first is not None and first.seq == 1
        assert reader.last_of_kind("Nothing") is None
    assert _looked_up_through_the_index(path, "Checkpoint")


def test_a_journal_of_the_first_layout_reads_and_is_migrated_by_its_writer(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.sqlite3"
    with monkeypatch.context() as old:
        old.setattr(layout, "SCHEMA_VERSION", 1)  # written by a station of the first layout
        with Journal(path) as journal:
            journal.append("Configuration", {"table": {}})
            _fill(journal, 40)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 1
    conn.close()
    with JournalReader(path) as reader:  # read as it is: the look-up reads the records instead
        configuration, first = reader.last_of_kind("Configuration"), reader.get(1)
        assert configuration is not None and configuration.seq == 1 and reader.seam() is None
        assert first is not None and reader.first_hash() == first.hash
    with Journal(path) as journal:
        journal.append("Checkpoint", {"at": 41})
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == layout.SCHEMA_VERSION == 5
    indexes = [row[1] for row in conn.execute("PRAGMA index_list(records)")]
    conn.close()
    assert "records_by_kind" in indexes
    report = verify(path)
    assert report.ok and report.records == 42


@pytest.mark.parametrize("kind", ["StationStarted", "StationStopped", "MetersCheckpoint", "AlertAcknowledged",
                                  "DealerSignedIn"])
def test_every_start_finds_the_stations_own_records_through_the_index(tmp_path: Path, kind: str) -> None:
    """Layout 3: a start asks for the last start and stop, the meters for their last
    checkpoint; layout 4: a shoe's report asks who acknowledged an alert the register no
    longer keeps; layout 5: the console's start asks how the dealer at the table signed in.
    Each is found through the index, not by reading the journal."""
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        journal.append("Configuration", {"table": {}})
        journal.append(kind, {"n": 1})
        _fill(journal, 600)
    with JournalReader(path) as reader:
        found = reader.last_of_kind(kind)
        assert found is not None and found.seq == 2
    assert _looked_up_through_the_index(path, kind)


def test_a_journal_of_the_second_layout_gets_the_wider_index_from_its_writer(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "two.sqlite3"
    with monkeypatch.context() as old:
        old.setattr(layout, "SCHEMA_VERSION", 2)  # written by a station of the second layout
        with Journal(path) as journal:
            journal.append("Configuration", {"table": {}})
            journal.append("StationStarted", {"n": 1})
            _fill(journal, 40)
    with JournalReader(path) as reader:  # read as it is: this kind is not in its index
        started = reader.last_of_kind("StationStarted")
        assert started is not None and started.seq == 2
    with Journal(path) as journal:
        journal.append("StationStopped", {"n": 2})
    conn = sqlite3.connect(path)
    version = conn.execute("SELECT version FROM schema_version").fetchone()[0]
    (condition,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'records_by_kind'").fetchone()
    conn.close()
    assert version == 5 and condition.endswith(f"WHERE {layout.INDEXED}")
    with JournalReader(path) as reader:
        stopped = reader.last_of_kind("StationStopped")
        assert stopped is not None and stopped.seq == 43
    assert verify(path).ok
