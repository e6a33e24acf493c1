"""verify() against real journal files altered through sqlite3, as an attacker with the file would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.journal import Journal, canonical_json, record_hash
from station.journal.store import JournalMissingError, NotAJournalError
from station.journal.verify import verify


def test_an_untouched_journal_is_intact(journal_of) -> None:
    path = journal_of(20)
    report = verify(path)
    assert report.ok and report.records == 20 and report.first_bad_seq is None and report.problem == ""
    with Journal(path) as journal:
        last = journal.last()
    assert last is not None and (report.last_seq, report.last_hash) == (20, last.hash)
    assert "intact, 20 records" in report.verdict(path)


def test_an_empty_journal_is_intact(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    Journal(path).close()
    report = verify(path)
    assert report.ok and report.records == 0 and report.verdict() == "intact, 0 records"


def test_altered_payload_names_the_record(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("""UPDATE records SET payload = replace(payload, '"9H"', '"9D"') WHERE seq = 17""")
    report = verify(path)
    assert not report.ok
    assert report.first_bad_seq == 17
    assert report.problem == "record 17: hash mismatch (altered)"
    assert report.records == 20 and report.last_seq == 16


@pytest.mark.parametrize("column", ["time", "kind"])
def test_altered_time_or_kind_is_detected(journal_of, tamper, column: str) -> None:
    path = journal_of(10)
    with tamper(path) as conn:
        conn.execute(f"UPDATE records SET {column} = {column} || ' ' WHERE seq = 4")
    report = verify(path)
    assert (report.ok, report.first_bad_seq, report.problem) == (False, 4, "record 4: hash mismatch (altered)")


def test_payload_that_is_no_longer_json(journal_of, tamper) -> None:
    path = journal_of(10)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET payload = substr(payload, 2) WHERE seq = 3")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (3, "record 3: payload is not a JSON object (altered)")


def test_payload_with_non_json_numbers(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("""UPDATE records SET payload = '{"x":NaN}' WHERE seq = 2""")
    assert verify(path).problem == "record 2: payload is not strict JSON (altered)"


def test_a_field_stored_with_the_wrong_type(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET payload = CAST(payload AS BLOB) WHERE seq = 2")
    assert verify(path).problem == "record 2: payload has the wrong type (altered)"


def test_deleted_record_is_named_missing(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq = 17")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (17, "record 17 missing (sequence jumps 16 -> 18)")
    assert report.records == 19


def test_several_deleted_records(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq BETWEEN 5 AND 7")
    assert verify(path).problem == "records 5-7 missing (sequence jumps 4 -> 8)"


def test_deleted_first_record(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq = 1")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (1, "record 1 missing (sequence starts at 2)")


def test_deletion_hidden_by_renumbering_breaks_the_link(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq = 17")
        conn.execute("UPDATE records SET seq = -seq WHERE seq > 17")
        conn.execute("UPDATE records SET seq = -seq - 1 WHERE seq < 0")
        conn.execute("UPDATE head SET last_seq = 19")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (17, "record 17: previous-hash link broken (reordered or removed)")


def test_swapped_records_are_named(journal_of, tamper) -> None:
    path = journal_of(10)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET seq = -1 WHERE seq = 5")
        conn.execute("UPDATE records SET seq = 5 WHERE seq = 6")
        conn.execute("UPDATE records SET seq = 6 WHERE seq = -1")
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (5, "record 5: previous-hash link broken (reordered or removed)")


def test_a_record_moved_to_the_end_leaves_a_gap(journal_of, tamper) -> None:
    path = journal_of(10)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET seq = 11 WHERE seq = 4")
    assert verify(path).problem == "record 4 missing (sequence jumps 3 -> 5)"


def test_rehashing_an_altered_record_breaks_the_next_link(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        seq, time, kind, payload, prev = conn.execute(
            "SELECT seq, time, kind, payload, prev_hash FROM records WHERE seq = 17"
        ).fetchone()
        forged = canonical_json({**json.loads(payload), "card": "9D"})
        conn.execute(
            "UPDATE records SET payload = ?, hash = ? WHERE seq = 17",
            (forged, record_hash(seq, time, kind, forged, prev)),
        )
    report = verify(path)
    assert (report.first_bad_seq, report.problem) == (18, "record 18: previous-hash link broken (reordered or removed)")


def test_tail_cut_off_is_detected_through_the_head(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq > 18")
    report = verify(path)
    assert not report.ok
    assert report.first_bad_seq == 19
    assert report.problem == "records 19-20 missing from the end (head checkpoint says 20, records end at 18)"


def test_last_record_altered_is_caught_by_the_head(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("UPDATE head SET last_hash = '" + "ab" * 32 + "'")
    assert verify(path).problem == "record 5: hash differs from the head checkpoint (altered)"


def test_missing_head_row(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("DELETE FROM head")
    report = verify(path)
    assert not report.ok and report.problem == "the head checkpoint is missing (altered)"


def test_malformed_head_row(journal_of, tamper) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("UPDATE head SET last_seq = 'five'")
    assert verify(path).problem == "the head checkpoint is malformed (altered)"


def test_record_added_behind_the_stations_back(journal_of, tamper) -> None:
    """Even a correctly chained extra record is evident: the head was not moved with it."""
    path = journal_of(5)
    with tamper(path) as conn:
        prev = conn.execute("SELECT hash FROM records WHERE seq = 5").fetchone()[0]
        time, kind, payload = "2026-11-29T22:00:00.000000Z", "SupervisorDecision", '{"decision":"void"}'
        conn.execute(
            "INSERT INTO records VALUES (6, ?, ?, ?, ?, ?)",
            (time, kind, payload, prev, record_hash(6, time, kind, payload, prev)),
        )
    report = verify(path)
    assert report.first_bad_seq == 6 and report.problem.startswith("record 6: not covered by the head checkpoint")


def test_tail_cut_with_the_head_rewritten_needs_an_anchor(journal_of, tamper) -> None:
    """The documented limit: cutting the tail and moving the head back looks intact, except to an anchor."""
    path = journal_of(20)
    anchor = (20, verify(path).last_hash)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq > 15")
        last_hash = conn.execute("SELECT hash FROM records WHERE seq = 15").fetchone()[0]
        conn.execute("UPDATE head SET last_seq = 15, last_hash = ?", (last_hash,))
    assert verify(path).ok  # nothing inside the file can tell
    report = verify(path, anchor=anchor)
    assert not report.ok
    assert report.first_bad_seq == 16
    assert report.problem == "record 20 missing (the anchor names it; records end at 15)"


def test_a_rewritten_journal_is_exposed_by_an_anchor(journal_of, tamper) -> None:
    path = journal_of(10)
    anchor = (7, _hash_of(path, 7)[:16])
    with tamper(path) as conn:  # rewrite 5..10 with fresh, consistent hashes and head
        prev = conn.execute("SELECT hash FROM records WHERE seq = 4").fetchone()[0]
        rows = conn.execute("SELECT seq, time, kind FROM records WHERE seq >= 5 ORDER BY seq").fetchall()
        for seq, time, kind in rows:
            payload = canonical_json({"device": "shoe", "card": "KD", "note": f"forged {seq}"})
            digest = record_hash(seq, time, kind, payload, prev)
            conn.execute(
                "UPDATE records SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?", (payload, prev, digest, seq)
            )
            prev = digest
        conn.execute("UPDATE head SET last_hash = ?", (prev,))
    assert verify(path).ok
    report = verify(path, anchor=anchor)
    assert (report.first_bad_seq, report.ok) == (7, False)
    assert report.problem.startswith("record 7: hash differs from the anchor")


def _hash_of(path: Path, seq: int) -> str:
    with Journal(path) as journal:
        record = journal.get(seq)
    assert record is not None
    return record.hash


def test_anchor_that_matches_passes(journal_of) -> None:
    path = journal_of(10)
    assert verify(path, anchor=(3, _hash_of(path, 3))).ok
    assert verify(path, anchor=(3, _hash_of(path, 3)[:16].upper())).ok


@pytest.mark.parametrize("deep", [True, False])
def test_structural_damage_is_reported_not_raised(journal_of, deep: bool) -> None:
    import sqlite3

    path = journal_of(300)
    assert verify(path, deep=True).ok
    conn = sqlite3.connect(path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'").fetchone()[0]
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + 12] = b"\xff" * 12  # scribble over the records table's root page header
    path.write_bytes(bytes(data))
    report = verify(path, deep=deep)
    assert not report.ok
    assert "damaged" in report.problem


def test_missing_or_foreign_files_raise(tmp_path: Path) -> None:
    with pytest.raises(JournalMissingError):
        verify(tmp_path / "absent.sqlite3")
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some words\n" * 10)
    with pytest.raises(NotAJournalError):
        verify(text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_tampering_names_the_first_bad_record(tmp_path: Path, data: st.DataObject) -> None:
    count = data.draw(st.integers(min_value=2, max_value=30), label="count")
    target = data.draw(st.integers(min_value=1, max_value=count - 1), label="target")
    how = data.draw(st.sampled_from(["alter", "delete", "swap", "relink"]), label="how")
    path = tmp_path / f"prop-{count}-{target}-{how}.sqlite3"
    path.unlink(missing_ok=True)
    with Journal(path) as journal:
        journal.append_many([("E", {"n": n}) for n in range(1, count + 1)])
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER records_are_append_only_update")
    conn.execute("DROP TRIGGER records_are_append_only_delete")
    if how == "alter":
        conn.execute("""UPDATE records SET payload = '{"n":-1}' WHERE seq = ?""", (target,))
    elif how == "delete":
        conn.execute("DELETE FROM records WHERE seq = ?", (target,))
    elif how == "swap":
        conn.execute("UPDATE records SET seq = -1 WHERE seq = ?", (target,))
        conn.execute("UPDATE records SET seq = ? WHERE seq = ?", (target, target + 1))
        conn.execute("UPDATE records SET seq = ? WHERE seq = -1", (target + 1,))
    else:
        conn.execute("UPDATE records SET prev_hash = ? WHERE seq = ?", ("0" * 64, target + 1))
    conn.commit()
    conn.close()
    report = verify(path)
    assert not report.ok
    assert report.first_bad_seq == (target + 1 if how == "relink" else target)
    assert f"record {report.first_bad_seq}" in report.problem
