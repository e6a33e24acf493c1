"""Where a restarted outbox stands (issue 40, the floor guard): exactly where its cursor says,
on real journals written by the real core loop, checkpointed and archived by the real code.

A deriver resumed at a cursor (``resume_deriver``) must be the deriver that took every record
of the journal's history up to the cursor: the same table, the same time (the retained state
it publishes first says it), the same currency and time zone (a configuration record just
before a checkpoint included), the same numbers; and what it derives next is what that one
derives. Across an archive with no checkpoint at or before the cursor in the live file, the
history is read from the archive's first record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from station.core.checkpoints import CHECKPOINT
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.sessions import generate
from station.floor.derive import CONFIGURATION, FeedDeriver, FeedMessage
from station.floor.resume import resume_deriver
from station.journal import Journal, JournalReader, JournalRecord
from station.journal.anchors import journal_id
from station.journal.archive import archive
from station.journal.seams import chain_records

OPTIONS = CoreOptions(decks=8)
TABLE = {"currency": "CHF", "minor_digits": 0, "timezone": "Europe/Zurich"}


def _write(path: Path, *, rounds: int, every: int, configuration_at: int | None = None) -> None:
    """A session of ``rounds`` rounds through the core loop, a checkpoint every ``every``
    records; with ``configuration_at``, the station's configuration record is journaled
    after that many events (a checkpoint may then stand right after it)."""
    loop = CoreLoop(path, OPTIONS, checkpoint_every=every)
    for number, event in enumerate(generate(seed=11, rounds=rounds)):
        if number == configuration_at:
            loop.write_own(CONFIGURATION, {"table": TABLE})
        loop.post(event)
        loop.run_pending()
    loop.close()


def _history(path: Path) -> list[JournalRecord]:
    return list(chain_records(path))


def _taken(records: list[JournalRecord], cursor: int, ident: str) -> FeedDeriver:
    """The deriver that took every record from the first up to ``cursor``, with its messages."""
    deriver = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident, devices=("shoe",))
    for record in records:
        if record.seq > cursor:
            break
        deriver.derive(record)
    return deriver


def _next(deriver: FeedDeriver, records: list[JournalRecord]) -> list[dict[str, Any]]:
    messages: list[FeedMessage] = []
    for record in records:
        if record.seq > deriver.seq:
            messages += deriver.derive(record)
    return [m.payload for m in messages]


def _check_resumed_at(path: Path, records: list[JournalRecord], cursor: int) -> FeedDeriver:
    ident = journal_id(records[0].hash)
    expected = _taken(records, cursor, ident)
    with JournalReader(path) as reader:
        resumed = resume_deriver(reader, OPTIONS, expected.position, table="BAC-01", journal_id=ident,
                                 devices=("shoe",))
    # The retained state it publishes first: the table, time and money as of the cursor.
    assert resumed.state() == expected.state()
    assert resumed.position == expected.position and resumed.seq == cursor
    assert (resumed.currency, resumed.minor_digits, resumed.timezone) == (
        expected.currency, expected.minor_digits, expected.timezone)
    assert _next(resumed, records) == _next(expected, records)
    return resumed


def test_a_cursor_right_at_a_checkpoint_keeps_the_time_of_its_record(tmp_path: Path) -> None:
    """Resumed from a checkpoint that stands right at the cursor, nothing is read after it:
    the time the first retained state says is still the cursor's record's."""
    path = tmp_path / "journal.sqlite3"
    _write(path, rounds=20, every=40)
    records = _history(path)
    at = [r.payload["at"] for r in records if r.kind == CHECKPOINT]
    assert len(at) >= 2
    for cursor in at[:2]:
        resumed = _check_resumed_at(path, records, cursor)
        assert resumed.started_after == cursor and resumed.last_time


def test_a_configuration_just_before_the_checkpoint_is_learned(tmp_path: Path) -> None:
    """The configuration record (currency, minor digits, time zone) the checkpoint stands
    right after is behind the checkpoint, not after it: the resumed deriver reads it there."""
    path = tmp_path / "journal.sqlite3"
    _write(path, rounds=10, every=1, configuration_at=30)  # every record is followed by a checkpoint
    records = _history(path)
    configuration = next(r for r in records if r.kind == CONFIGURATION)
    checkpoint = next(r for r in records if r.kind == CHECKPOINT and r.payload["at"] == configuration.seq)
    for cursor in (configuration.seq, checkpoint.seq, checkpoint.seq + 1):
        resumed = _check_resumed_at(path, records, cursor)
        assert (resumed.currency, resumed.minor_digits, resumed.timezone) == ("CHF", 0, "Europe/Zurich")


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A journal whose first records are in an archive beside it (cut at a checkpoint), and
    the live file's first record."""
    path = tmp_path_factory.mktemp("archived") / "journal.sqlite3"
    _write(path, rounds=30, every=60)
    with JournalReader(path) as reader:
        cut = [r.seq for r in reader.records() if r.kind == CHECKPOINT][2]
    with Journal(path) as journal:
        moved = archive(journal, cut, None)
    assert moved.live_from == cut
    return path, cut


@pytest.mark.parametrize("where", ["nothing yet", "first", "early", "last archived", "the cut's checkpoint",
                                   "after the cut"])
def test_across_an_archive_the_history_is_read_from_its_first_record(archived: tuple[Path, int],
                                                                      where: str) -> None:
    path, cut = archived
    records = _history(path)
    assert [r.seq for r in records] == list(range(1, records[-1].seq + 1))
    cursor = {"nothing yet": 0, "first": 1, "early": 17, "last archived": cut - 1, "the cut's checkpoint": cut,
              "after the cut": cut + 25}[where]
    resumed = _check_resumed_at(path, records, cursor)
    with JournalReader(path) as reader:
        assert (reader.get(cursor) is None) is (cursor < cut), "the cursor's record is in the archive"
    # From the checkpoint the live file starts with when it stands at or before the cursor.
    assert resumed.started_after == (cut - 1 if cursor >= cut - 1 else 0)


def test_with_the_archive_gone_a_cursor_at_the_cut_still_resumes(tmp_path: Path) -> None:
    """The live file's first checkpoint stands at the cursor: nothing of the archive is needed
    but the cursor's record's time, which is then unknown rather than a failed feed."""
    path = tmp_path / "journal.sqlite3"
    _write(path, rounds=20, every=60)
    with JournalReader(path) as reader:
        cut = [r.seq for r in reader.records() if r.kind == CHECKPOINT][1]
    with Journal(path) as journal:
        moved = archive(journal, cut, None)
    records = _history(path)
    ident = journal_id(records[0].hash)
    expected = _taken(records, cut - 1, ident)
    moved.path.rename(tmp_path / "elsewhere.sqlite3")
    with JournalReader(path) as reader:
        resumed = resume_deriver(reader, OPTIONS, expected.position, table="BAC-01", journal_id=ident,
                                 devices=("shoe",))
    assert {**resumed.state(), "time": ""} == {**expected.state(), "time": ""} and resumed.last_time == ""
    assert _next(resumed, records) == _next(expected, records)
