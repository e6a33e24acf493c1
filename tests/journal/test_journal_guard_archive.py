"""Moving a journal's first records to an archive file, through ``station.journal.archive``
and the readers of a journal's history (issue 40, the journal guard): the archive is named by
the numbers of the records it holds; the live journal keeps the journal's id (record 1's hash)
and where its chain comes from; its whole history is read from record 1 across the files;
there must be a record before the cut; an archive already there is never overwritten; an
archive that does not verify moves nothing; a cut that fails leaves the live journal whole;
and the copy says how far it has got, batch by batch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from station.journal import Journal, JournalError, JournalReader, JournalRecord
from station.journal.archive import archive
from station.journal.seams import chain, chain_records
from station.journal.verify import verify


def _journal(path: Path, records: int) -> Path:
    with Journal(path) as journal:
        journal.append("Configuration", {"table": {"id": "BAC-07"}})
        for start in range(1, records, 1000):
            journal.append_many([("Note", {"n": n}) for n in range(start, min(start + 1000, records))])
    return path


def _records(path: Path) -> list[JournalRecord]:
    with JournalReader(path) as reader:
        return list(reader.records())


def test_the_records_before_the_cut_move_to_an_archive_named_by_their_numbers(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    before = _records(path)
    with Journal(path) as journal:
        carried = journal.get(1)
        done = archive(journal, 6, carried)
    assert done.path == tmp_path / "journal.sqlite3.archive-1-5.sqlite3"
    assert (done.first, done.last, done.live_from) == (1, 5, 6)
    assert [r.seq for r in _records(done.path)] == [1, 2, 3, 4, 5]
    with JournalReader(path) as reader:
        seam = reader.seam()
        assert seam is not None
        assert (seam.prev_seq, seam.prev_hash, seam.archive) == (5, before[4].hash, done.path.name)
        assert seam.first_hash == reader.first_hash() == before[0].hash  # the journal's id stays
        assert reader.start() == (5, before[4].hash)
        assert [r.seq for r in reader.records()] == [6, 7, 8, 9, 10, 11]
    history = list(chain_records(path))  # from record 1 by default, across the seam
    assert history[:10] == before and history[10].kind == "Configuration" and history[10].seq == 11
    assert verify(path).ok


def test_an_archive_of_an_archived_journal_continues_the_row_of_files(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 20)
    before = _records(path)
    with Journal(path) as journal:
        first = archive(journal, 6, None)
        second = archive(journal, 12, None)
    assert second.path.name == "journal.sqlite3.archive-6-11.sqlite3" and (second.first, second.last) == (6, 11)
    with JournalReader(second.path) as reader:
        seam = reader.seam()
        assert seam is not None and (seam.prev_seq, seam.archive) == (5, first.path.name)
        assert reader.first_hash() == before[0].hash
    assert [item.path for item in chain(path)] == [first.path, second.path, path]
    assert list(chain_records(path)) == before
    report = verify(path)
    assert report.ok and report.records == 20 and report.note == "with 2 archives of its first records"


def test_there_must_be_a_record_before_the_cut(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    with Journal(path) as journal:
        for cut in (1, 0):
            with pytest.raises(JournalError) as raised:
                archive(journal, cut, None)
            assert str(raised.value) == f"journal {path}: no record before {cut} to archive"
        assert archive(journal, 2, None).last == 1  # record 1 alone is an archive
        with pytest.raises(JournalError, match="no record before 2 to archive"):
            archive(journal, 2, None)  # it is not in the live journal any more
    assert list(tmp_path.glob("*.archive-*")) == [tmp_path / "journal.sqlite3.archive-1-1.sqlite3"]


def test_an_archive_already_there_is_never_overwritten(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    there = tmp_path / "journal.sqlite3.archive-1-5.sqlite3"
    there.write_text("someone's file\n")
    with Journal(path) as journal, pytest.raises(JournalError) as raised:
        archive(journal, 6, None)
    assert str(raised.value) == f"{there} exists already; move it away first (it is an archive of records 1-5)"
    assert there.read_text() == "someone's file\n"
    assert len(_records(path)) == 10


def test_an_archive_that_does_not_verify_moves_nothing(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER records_are_append_only_update")
    conn.execute("""UPDATE records SET payload = '{"n":333}' WHERE seq = 3""")
    conn.commit()
    conn.close()
    with Journal(path) as journal, pytest.raises(JournalError) as raised:
        archive(journal, 6, None)
    assert str(raised.value) == "the archive did not verify (record 3: hash mismatch (altered)); nothing moved"
    assert sorted(p.name for p in tmp_path.iterdir() if "archive" in p.name) == []
    assert [r.seq for r in _records(path)] == list(range(1, 11))


def test_a_cut_that_fails_leaves_the_live_journal_whole(tmp_path: Path) -> None:
    """The live journal's part of the move is one transaction: when it cannot be made (here
    the file's append-only guard was dropped by hand, so it cannot be lifted for the move),
    no record is gone and no seam written; the archive just written goes too (it would be in the
    way of the next try), and the failure is a journal error in words, not SQLite's."""
    path = _journal(tmp_path / "journal.sqlite3", 10)
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER records_are_append_only_delete")
    conn.commit()
    conn.close()
    with Journal(path) as journal, pytest.raises(JournalError, match=r"could not be taken out of it .*nothing moved"):
        archive(journal, 6, journal.get(1))
    with JournalReader(path) as reader:
        assert reader.seam() is None and [r.seq for r in reader.records()] == list(range(1, 11))
    assert sorted(p.name for p in tmp_path.iterdir() if ".archive-" in p.name) == [], \
        "the archive written for the failed move was left behind"


def test_the_copy_says_how_far_it_has_got_every_5000_records(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 12_001)
    told: list[int] = []
    with Journal(path) as journal:
        done = archive(journal, 12_001, None, told.append)
    assert done.last == 12_000 and told == [5_000, 10_000, 12_000]


def test_a_history_whose_archive_is_gone_is_read_from_the_seam_on(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3", 10)
    with Journal(path) as journal:
        done = archive(journal, 6, None)
    done.path.rename(tmp_path / "elsewhere.sqlite3")
    assert [r.seq for r in chain_records(path, 5)] == [6, 7, 8, 9, 10]
    with pytest.raises(JournalError) as raised:
        list(chain_records(path, 4))
    assert str(raised.value) == (f"records 1-5 of {path} are in the archive {done.path.name}, which is not beside it: "
                                 "put it back to read them")


def test_an_archive_is_checked_on_its_own_before_anything_moves(tmp_path: Path) -> None:
    """What the move must prove is that the new archive holds exactly the records it takes: an
    older archive edited meanwhile is not its business (verify names it), and does not stop it."""
    path = _journal(tmp_path / "journal.sqlite3", 20)
    with Journal(path) as journal:
        first = archive(journal, 6, None)
    conn = sqlite3.connect(first.path)
    conn.execute("DROP TRIGGER records_are_append_only_update")
    conn.execute("""UPDATE records SET payload = '{"n":222}' WHERE seq = 2""")
    conn.commit()
    conn.close()
    with Journal(path) as journal:
        second = archive(journal, 12, None)
    assert (second.first, second.last) == (6, 11)
    report = verify(path)
    assert report.problem == f"archive {first.path.name}: record 2: hash mismatch (altered)"
