"""The journal store against real SQLite files in a temporary directory."""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.cards import parse_card
from station.event_codec import event_from_dict, event_to_dict
from station.events import CardDrawn
from station.journal import (
    GENESIS_HASH,
    Journal,
    JournalError,
    JournalReader,
    JournalRecord,
    NotAJournalError,
    RecordError,
    canonical_json,
    record_hash,
)
from station.journal.lock import lock_path
from station.journal.store import APPLICATION_ID, JournalBusyError, JournalMissingError


class StepClock:
    """A deterministic clock: each call is one millisecond after the last."""

    def __init__(self, start: datetime = datetime(2026, 11, 29, 21, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def recomputed(record: JournalRecord) -> str:
    return record_hash(record.seq, record.time, record.kind, canonical_json(record.payload), record.prev_hash)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "journal.sqlite3"


def test_append_numbers_times_and_chains_records(path: Path) -> None:
    with Journal(path, clock=StepClock()) as journal:
        first = journal.append("CardDrawn", {"device": "shoe", "card": "AS"})
        second = journal.append("SupervisorDecision", {"decision": "void", "who": "sup-7"})
    assert first.seq == 1 and second.seq == 2
    assert first.time == "2026-11-29T21:00:00.001000Z"
    assert second.time == "2026-11-29T21:00:00.002000Z"
    assert first.prev_hash == GENESIS_HASH
    assert second.prev_hash == first.hash
    assert first.hash == recomputed(first) and second.hash == recomputed(second)
    assert first.hash != second.hash


def test_hash_is_sha256_of_the_documented_framing(path: Path) -> None:
    """Anyone can re-check an export with json + hashlib: the documented formula holds."""
    import hashlib

    with Journal(path, clock=StepClock()) as journal:
        record = journal.append("K", {"b": [1, 2.5, None, True], "a": "é"})
    framed = json.dumps(
        [record.seq, record.time, record.kind, record.payload, record.prev_hash],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert hashlib.sha256(framed.encode("utf-8")).hexdigest() == record.hash


def test_records_are_read_back_exactly_by_a_separate_connection(path: Path) -> None:
    """After append returns the record is committed: another connection sees it as returned."""
    with Journal(path) as journal:
        appended = [journal.append("E", {"i": i, "text": f"n{i}"}) for i in range(5)]
        with JournalReader(path) as reader:
            assert list(reader.records()) == appended
        assert list(journal.records()) == appended
        assert list(journal.records(since_seq=3)) == appended[3:]
        assert journal.last() == appended[-1]
        assert journal.get(2) == appended[1]
        assert journal.get(99) is None
        assert journal.count() == 5
        assert journal.head() == (5, appended[-1].hash)


def test_event_payloads_round_trip_to_events(path: Path) -> None:
    event = CardDrawn(device="shoe", card=parse_card("TD"))
    with Journal(path) as journal:
        journal.append(event.kind, event_to_dict(event))
        (record,) = journal.records()
    assert record.kind == "CardDrawn"
    assert event_from_dict(record.payload) == event


def test_empty_journal(path: Path) -> None:
    with Journal(path) as journal:
        assert journal.last() is None
        assert list(journal.records()) == []
        assert journal.count() == 0
        assert journal.head() == (0, GENESIS_HASH)
        assert journal.append_many([]) == []


def test_wal_and_full_sync_are_in_force(path: Path) -> None:
    with Journal(path) as journal:
        conn = journal._conn  # the writer's own connection: synchronous is per connection
        assert conn is not None
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    other = sqlite3.connect(path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent in the file
        assert other.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    finally:
        other.close()


def test_a_store_where_wal_cannot_take_effect_is_refused() -> None:
    """An in-memory database answers 'memory' to journal_mode=WAL: the check must notice."""
    with pytest.raises(JournalError, match="WAL mode did not take effect"):
        Journal(":memory:")


def test_the_directory_is_fsynced_once_the_wal_file_exists(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On every open, also after a clean close removed the WAL: its name must be durable too."""
    from station.journal import store

    Journal(path).close()
    assert not Path(f"{path}-wal").exists()
    synced: list[bool] = []
    real = store.fsync_directory

    def spy(directory: Path) -> None:
        synced.append(directory == path.parent and Path(f"{path}-wal").exists())
        real(directory)

    monkeypatch.setattr(store, "fsync_directory", spy)
    with Journal(path) as journal:
        journal.append("E", {})
    assert synced == [True]


def test_creates_parent_directories(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c" / "journal.sqlite3"
    with Journal(target) as journal:
        journal.append("E", {})
    assert target.is_file()


def test_reopen_continues_the_chain(path: Path) -> None:
    with Journal(path) as journal:
        first = journal.append("E", {"n": 1})
    with Journal(path) as journal:
        second = journal.append("E", {"n": 2})
        assert [r.seq for r in journal.records()] == [1, 2]
    assert second.seq == 2 and second.prev_hash == first.hash


def test_refuses_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shift notes: table 4 opened at 20:00\n" * 20)
    before = notes.read_bytes()
    with pytest.raises(NotAJournalError, match="not a journal"):
        Journal(notes)
    assert notes.read_bytes() == before


def test_refuses_a_foreign_sqlite_database_without_changing_it(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE players (name TEXT)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    with pytest.raises(NotAJournalError, match="not a dealing-station journal"):
        Journal(other)
    with pytest.raises(NotAJournalError):
        JournalReader(other)
    assert other.read_bytes() == before  # not even switched to WAL


def test_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(NotAJournalError, match="not a regular file"):
        Journal(tmp_path)


def test_an_empty_file_becomes_a_journal(tmp_path: Path) -> None:
    empty = tmp_path / "journal.sqlite3"
    empty.touch()
    with Journal(empty) as journal:
        assert journal.append("E", {}).seq == 1


def test_refuses_a_newer_schema(path: Path) -> None:
    Journal(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="schema version 99, newer"):
        Journal(path)


def test_append_many_is_one_group(path: Path) -> None:
    with Journal(path, clock=StepClock()) as journal:
        journal.append("Before", {})
        group = journal.append_many([("CardDrawn", {"n": n}) for n in range(8)])
        assert [r.seq for r in group] == list(range(2, 10))
        assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(group))
        assert list(journal.records(since_seq=1)) == group


def test_a_bad_item_anywhere_in_a_group_writes_nothing(path: Path) -> None:
    with Journal(path) as journal:
        journal.append("E", {})
        with pytest.raises(RecordError):
            journal.append_many([("E", {"ok": 1}), ("E", {"bad": float("nan")}), ("E", {"ok": 2})])
        assert journal.count() == 1
        assert journal.append("E", {"after": True}).seq == 2


def test_append_many_refuses_items_that_are_not_pairs(path: Path) -> None:
    with Journal(path) as journal:
        with pytest.raises(RecordError, match=r"\(kind, payload\) pairs"):
            journal.append_many([("E", {}), ("E", {}, "extra")])  # type: ignore[list-item]  # a triple on purpose
        assert journal.count() == 0


def test_a_failure_inside_the_group_writes_none_of_it(path: Path) -> None:
    """SQLite fails on the third record of four (a trigger stands in for a disk error in the
    middle of the statement): the first two are not left behind, and the head stays."""
    with Journal(path) as journal:
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("CREATE TRIGGER fail_third BEFORE INSERT ON records WHEN NEW.seq = 3 "
                          "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
            with pytest.raises(JournalError, match="append failed, nothing written: disk trouble"):
                journal.append_many([("E", {"n": n}) for n in range(4)])
            assert journal.count() == 0
            assert journal.head() == (0, GENESIS_HASH)
            other.execute("DROP TRIGGER fail_third")
        finally:
            other.close()
        assert journal.append("E", {"n": 9}).seq == 1


def test_a_failing_clock_writes_nothing(path: Path) -> None:
    calls = 0

    def failing_clock() -> datetime:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("clock failed")
        return datetime.now(UTC)

    with Journal(path, clock=failing_clock) as journal:
        with pytest.raises(RuntimeError, match="clock failed"):
            journal.append_many([("E", {"n": n}) for n in range(4)])
        assert journal.count() == 0
        assert journal.append("E", {"n": 9}).seq == 1


def test_the_records_of_one_group_share_the_moment_it_was_written(path: Path) -> None:
    with Journal(path) as journal:
        records = journal.append_many([("E", {"n": n}) for n in range(3)])
        later = journal.append("E", {"n": 3})
    assert len({r.time for r in records}) == 1
    assert later.time >= records[0].time


def test_the_writers_triggers_are_its_own_and_not_in_the_file(path: Path) -> None:
    """The chain check and the head's move live in the writer's connection (TEMP triggers):
    the file's schema is unchanged and another connection's insert moves no head."""
    with Journal(path) as journal:
        journal.append_many([("E", {"n": n}) for n in range(2)])
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")} == {
                "records_are_append_only_update", "records_are_append_only_delete"}
            prev = conn.execute("SELECT hash FROM records WHERE seq = 2").fetchone()[0]
            conn.execute("INSERT INTO records VALUES (3, 't', 'E', '{}', ?, 'x')", (prev,))
            assert conn.execute("SELECT last_seq FROM head").fetchone()[0] == 2
        finally:
            conn.close()
        with pytest.raises(JournalError, match="does not match the journal head"):
            journal.append("E", {})


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("", {}, "non-empty text"),
        (7, {}, "non-empty text"),
        ("E", [1, 2], "must be a JSON object"),
        ("E", {"x": float("inf")}, "not a JSON number"),
        ("E", {"x": {1: "a"}}, "key 1 is not text"),
        ("E", {"x": {1, 2}}, "set is not a JSON value"),
        ("E", {"x": b"raw"}, "bytes is not a JSON value"),
        ("E", {"x": "\ud800"}, "lone surrogate"),
        ("E", {"\ud800": 1}, "lone surrogate"),
    ],
)
def test_unjournalable_input_is_refused_clearly(path: Path, kind: Any, payload: Any, message: str) -> None:
    with Journal(path) as journal:
        with pytest.raises(RecordError, match=message):
            journal.append(kind, payload)
        assert journal.count() == 0


def test_a_naive_clock_is_refused(path: Path) -> None:
    with Journal(path, clock=lambda: datetime(2026, 1, 1)) as journal:
        with pytest.raises(JournalError, match="naive"):
            journal.append("E", {})
        assert journal.count() == 0


def test_times_are_converted_to_utc(path: Path) -> None:
    plus_two = timezone(timedelta(hours=2))
    with Journal(path, clock=lambda: datetime(2026, 6, 1, 23, 30, 0, 5, tzinfo=plus_two)) as journal:
        assert journal.append("E", {}).time == "2026-06-01T21:30:00.000005Z"


def test_closed_journal_refuses_work(path: Path) -> None:
    journal = Journal(path)
    journal.close()
    journal.close()
    assert journal.closed
    with pytest.raises(JournalError, match="closed"):
        journal.append("E", {})
    with pytest.raises(JournalError, match="closed"):
        journal.last()


def test_iteration_spans_batches_and_sees_interleaved_appends(path: Path) -> None:
    with Journal(path) as journal:
        journal.append_many([("E", {"n": n}) for n in range(2500)])
        seen = []
        for record in journal.records():
            seen.append(record.seq)
            if record.seq == 1500:
                journal.append("Late", {})
        assert seen == list(range(1, 2502))


def test_a_second_writer_is_refused_at_once_naming_the_holder(path: Path) -> None:
    with Journal(path) as first:
        first.append("E", {"n": 1})
        held = rf"journal {re.escape(str(path))} is being written by process {os.getpid()}"
        with pytest.raises(JournalBusyError, match=held):
            Journal(path)
        assert first.append("E", {"n": 2}).seq == 2  # the holder is not disturbed
    with Journal(path) as after:  # closing the first lets the next writer in
        assert after.append("E", {"n": 3}).seq == 3
    assert lock_path(path).exists() and not (path.parent / "README.md.lock").exists()


@pytest.mark.e2e
def test_the_writer_lock_is_released_when_the_holder_dies(path: Path) -> None:
    """A SIGKILLed station leaves no stale lock: the kernel drops a flock with its process."""
    child = subprocess.Popen([sys.executable, "-c", (
        "import signal\n"
        "from station.journal.store import Journal\n"
        f"j = Journal({str(path)!r}); print('open', flush=True); signal.pause()\n")],  # holds it until killed
        stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "open"
        with pytest.raises(JournalBusyError, match=f"process {child.pid}"):
            Journal(path)
    finally:
        child.kill()
        child.wait()
    with Journal(path) as journal:
        journal.append("E", {"n": 1})


def test_two_writers_on_one_file_never_share_a_sequence_number(path: Path) -> None:
    """Seq and prev_hash are read inside BEGIN IMMEDIATE, so interleaved writers stay chained
    (a tool's second writer, which skips the writer lock on purpose)."""
    with Journal(path) as a, Journal(path, exclusive=False) as b:
        for n in range(20):
            (a if n % 3 else b).append("E", {"n": n})
        records = list(a.records())
    assert [r.seq for r in records] == list(range(1, 21))
    assert [r.payload["n"] for r in records] == list(range(20))
    assert all(y.prev_hash == x.hash for x, y in itertools.pairwise(records))


def test_a_writer_blocked_by_another_gives_up_clearly_and_writes_nothing(path: Path) -> None:
    with Journal(path, busy_timeout=0.2) as journal:
        journal.append("E", {"n": 1})
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another writer holds the write lock
            with pytest.raises(JournalError, match="cannot start a write"):
                journal.append("E", {"n": 2})
            other.execute("ROLLBACK")
        finally:
            other.close()
        assert journal.append("E", {"n": 3}).seq == 2


def test_the_writer_refuses_to_extend_a_journal_whose_tail_was_cut(path: Path) -> None:
    with Journal(path) as journal:
        journal.append_many([("E", {"n": n}) for n in range(5)])
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER records_are_append_only_delete")
    conn.execute("DELETE FROM records WHERE seq > 3")
    conn.commit()
    conn.close()
    with Journal(path) as journal:
        with pytest.raises(JournalError, match="does not match the journal head"):
            journal.append("E", {})
        assert journal.count() == 3


def test_the_records_table_rejects_accidental_updates(path: Path) -> None:
    with Journal(path) as journal:
        journal.append("E", {"n": 1})
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE records SET payload = '{}'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM records")
    finally:
        conn.close()


def test_reader_never_creates_a_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "journal.sqlite3"
    with pytest.raises(JournalMissingError, match="no journal at"):
        JournalReader(missing)
    assert not missing.parent.exists()


def test_reader_refuses_an_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "j.sqlite3"
    empty.touch()
    with pytest.raises(NotAJournalError):
        JournalReader(empty)
    assert empty.stat().st_size == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.text(min_size=1).filter(str.strip), payload=st.dictionaries(st.text(), json_values, max_size=5))
def test_any_json_object_round_trips_and_hashes(tmp_path: Path, kind: str, payload: dict[str, Any]) -> None:
    target = tmp_path / "prop.sqlite3"
    with Journal(target) as journal:
        record = journal.append(kind, payload)
        stored = journal.get(record.seq)
    assert stored == record
    assert record.payload == payload
    assert record.kind == kind
    assert record.hash == recomputed(record)
