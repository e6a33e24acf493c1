"""The verdict of ``verify`` at the corners (issue 40, the journal guard): a record numbered
below the one expected is out of order; a payload merely not canonical is not said to repeat
a key; raw rows verify from record 1 unless told where they start; SQLite's own structure
check runs only when asked; a file too damaged to walk, to read its head or to count its
records is reported with what checked out (nothing, or the records read before the damage,
a query's batch of 1,000 at a time) and never raised; and a seam that does not continue its
archive names the live journal's first record."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from station.journal import Journal, JournalReader
from station.journal.archive import archive
from station.journal.chain import GENESIS_HASH
from station.journal.verify import verify, verify_rows

from .damage import damage_the_index


def _journal(path: Path, records: int) -> Path:
    with Journal(path) as journal:
        for start in range(1, records + 1, 1000):
            journal.append_many([("Note", {"note": f"MARKER-{n:05d}-PAYLOAD"})
                                 for n in range(start, min(start + 1000, records + 1))])
    return path


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS records_are_append_only_update")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _scribble(path: Path, page: int) -> None:
    """Overwrite the header of one page of the file, as a failing disk would."""
    conn = sqlite3.connect(path)
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.close()
    data = bytearray(path.read_bytes())
    data[(page - 1) * size:(page - 1) * size + 12] = b"\xff" * 12
    path.write_bytes(bytes(data))


def _page_of(path: Path, text: bytes) -> int:
    conn = sqlite3.connect(path)
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.close()
    return path.read_bytes().index(text) // size + 1


def _root_page(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    conn.close()
    return int(root)


def test_a_record_numbered_below_the_one_expected_is_out_of_order(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 5)
    _sql(path, "UPDATE records SET seq = 0 WHERE seq = 1")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (0, "record 0: out of order (expected 1)")


def test_a_sequence_number_that_is_not_a_whole_number_is_named(tmp_path: Path) -> None:
    """Whoever can write the file can rebuild its table with another layout, where a
    sequence number is text: the walk names it instead of failing on it."""
    path = _journal(tmp_path / "journal.sqlite3", 5)
    _sql(path,
         "CREATE TABLE rebuilt (seq TEXT, time TEXT, kind TEXT, payload TEXT, prev_hash TEXT, hash TEXT)",
         "INSERT INTO rebuilt SELECT CAST(seq AS TEXT) || '.0', time, kind, payload, prev_hash, hash FROM records",
         "DROP TABLE records",
         "ALTER TABLE rebuilt RENAME TO records")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (
        1, "record 1: sequence number '1.0' is not a whole number (altered)")


def test_a_payload_not_stored_canonically_is_not_said_to_repeat_a_key(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 5)
    _sql(path, """UPDATE records SET payload = '{"note": "MARKER-00003-PAYLOAD"}' WHERE seq = 3""")
    report = verify(path)
    assert report.problem == "record 3: payload is not stored as the canonical JSON the station writes (altered)"


def test_a_repeated_key_is_named_by_its_first_40_characters(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 5)
    key = "k" * 39 + "LMN"
    _sql(path, f"""UPDATE records SET payload = '{{"{key}":1,"{key}":2}}' WHERE seq = 2""")
    assert verify(path).problem == (f"record 2: payload names {'k' * 39 + 'L'!r} twice (altered: readers that keep the "
                                    "first or the last would see two different records)")


def test_raw_rows_verify_from_record_1_unless_told_where_they_start(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 5)
    with JournalReader(path) as reader:
        report = verify_rows(reader.snapshot_rows())
        assert report.ok and (report.records, report.last_seq) == (5, 5)
        beyond = verify_rows(reader.snapshot_rows(), anchors={9: "a" * 64})  # the last file unless told
        assert beyond.problem == "record 9 missing (the anchor names it; records end at 5)"


def test_the_files_structure_is_checked_only_when_asked_and_then_nothing_checked_out(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 30)
    damage_the_index(path)
    plain = verify(path)
    assert plain.ok and plain.records == 30
    deep = verify(path, deep=True)
    assert not deep.ok and deep.problem.startswith("database structure damaged: row 1 missing from index")
    assert (deep.records, deep.first_bad_seq, deep.last_seq, deep.last_hash) == (30, None, 0, GENESIS_HASH)


def test_a_file_too_damaged_to_count_is_reported_with_nothing_checked(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 3000)
    _scribble(path, _page_of(path, b"MARKER-01500-PAYLOAD"))
    deep = verify(path, deep=True)
    assert not deep.ok and deep.problem.startswith("database structure damaged")
    assert (deep.records, deep.last_seq, deep.last_hash) == (0, 0, GENESIS_HASH)


def test_damage_met_in_the_walk_is_reported_after_the_last_batch_read_whole(tmp_path: Path) -> None:
    """The rows are fetched 1,000 to a query: the records of the batch that meets the
    damage are not counted as checked, those before it are."""
    path = _journal(tmp_path / "journal.sqlite3", 3000)
    with JournalReader(path) as reader:
        thousandth = reader.get(1000)
    assert thousandth is not None
    _scribble(path, _page_of(path, b"MARKER-01500-PAYLOAD"))
    report = verify(path)
    assert report.problem == "database damaged after record 1000: database disk image is malformed"
    assert (report.records, report.first_bad_seq, report.last_seq, report.last_hash) == (
        1000, 1001, 1000, thousandth.hash)


def test_a_head_that_cannot_be_read_is_reported_with_nothing_checked(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 30)
    _scribble(path, _root_page(path, "head"))
    report = verify(path)
    assert not report.ok and report.problem == "database damaged: database disk image is malformed"
    assert (report.records, report.first_bad_seq, report.last_seq, report.last_hash) == (30, None, 0, GENESIS_HASH)
    _scribble(path, _page_of(path, b"MARKER-00015-PAYLOAD"))  # and its records cannot be counted either
    assert verify(path).records == 0


def test_a_seam_that_does_not_continue_its_archive_names_the_live_journals_first_record(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    with Journal(path) as journal:
        done = archive(journal, 7, None)
    with JournalReader(done.path) as reader:
        last = reader.last()
    assert last is not None and last.seq == 6
    _sql(path, f"UPDATE seam SET prev_hash = '{'f' * 64}'")
    report = verify(path)
    assert report.problem == ("record 7: the journal's seam does not continue its archive, which ends with record 6 "
                              "(rewritten)")
    assert (report.first_bad_seq, report.last_seq, report.last_hash) == (7, 6, last.hash)
    assert report.records == 6  # the archive's, then none of the live journal's
