"""Retention: finished gaming days move to an archive file, and the chain goes on across the seam.

A journal is written by the real core loop (with its integrity service) under a clock that
runs an hour a commit, so its shoes span several gaming days of a table in Vienna; then
it is archived, and every reader is held to account: verify (the pair end to end), recall and
export (both files), the core loop, the integrity monitor and the deep replay.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from station.config.options import CONFIGURATION_RECORD, configuration_record, core_options
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.recall import recall_rounds
from station.core.sessions import generate
from station.integrity.monitor import IntegritySettings
from station.integrity.service import IntegrityService
from station.journal import Journal, JournalReader, canonical_json, record_hash
from station.journal.verify import verify
from station.localtime import gaming_day, zone
from station.service.config import parse_config
from station.service.deep_check import deep_check
from station.service.retention import RetentionError, archive_before

pytestmark = pytest.mark.e2e  # each test starts a station, a command or a process of its own

CONFIG = {"table": {"timezone": "Europe/Vienna", "gaming_day_start": "06:00", "decks": 4}}


def _clock(start: datetime, step: timedelta) -> Any:
    moment = [start]

    def now() -> datetime:
        moment[0] += step
        return moment[0]

    return now


@pytest.fixture
def written(tmp_path: Path) -> Iterator[tuple[Path, CoreOptions]]:
    path = tmp_path / "journal.sqlite3"
    config = parse_config(CONFIG, tmp_path / "station.toml")
    options = core_options(config, tmp_path / "station.toml")
    journal = Journal(path, clock=_clock(datetime(2026, 3, 1, 5, 0, tzinfo=UTC), timedelta(hours=1)))
    journal.append(CONFIGURATION_RECORD, configuration_record(config))
    loop = CoreLoop(journal, options, checkpoint_every=400)
    service = IntegrityService(loop.post, options, IntegritySettings(), path, loop.journal.head()[0], note=loop.note)
    loop.subscribe(service.on_output, IntegrityService.KINDS)
    service.start()
    assert service.caught_up.wait(30)
    inputs = generate(21, 90, decks=4)
    for start in range(0, len(inputs), 6):
        for event in inputs[start:start + 6]:
            loop.post(event)
        loop.run_pending()
        assert service.wait_idle(30)
    loop.run_pending()
    service.stop()
    loop.close()
    yield path, options


def _days(path: Path) -> list[date]:
    with JournalReader(path) as reader:
        return sorted({gaming_day(r.time, zone("Europe/Vienna"), datetime(2000, 1, 1, 6).time())
                       for r in reader.records()})


def test_finished_gaming_days_move_and_every_reader_reads_across_the_seam(written: tuple[Path, CoreOptions]) -> None:
    path, options = written
    days = _days(path)
    assert len(days) >= 5
    before_recall = recall_rounds(path, options)
    with JournalReader(path) as reader:
        before_records = list(reader.records())
    keep_from = days[len(days) // 2]
    archived = archive_before(path, keep_from, now=datetime(2026, 12, 1, tzinfo=UTC))

    assert archived.path.exists() and archived.first == 1
    with JournalReader(archived.path) as reader:  # the archive: records 1..N, nothing of the kept days
        moved = list(reader.records())
    assert [r.seq for r in moved] == list(range(1, archived.last + 1))
    assert all(gaming_day(r.time, zone("Europe/Vienna"), datetime(2000, 1, 1, 6).time()) < keep_from for r in moved)
    with JournalReader(path) as reader:
        kept = list(reader.records())
        seam = reader.seam()
    assert kept[0].seq == archived.live_from == archived.last + 1 and kept[0].kind == "Checkpoint"
    assert seam is not None and seam.prev_hash == moved[-1].hash == kept[0].prev_hash
    assert kept[-1].kind == CONFIGURATION_RECORD  # the configuration in force, carried over the seam
    assert moved + kept[:-1] == before_records

    report = verify(path)
    assert report.ok and report.records == len(before_records) + 1 and "archive" in report.note
    assert verify(path, standalone=True).records == len(kept)
    assert recall_rounds(path, options) == before_recall
    assert deep_check(path).ok

    exported = subprocess.run([sys.executable, "-m", "station", "journal", "export", "--journal", str(path)],
                              capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    lines = [json.loads(line) for line in exported]
    assert [r["seq"] for r in lines] == list(range(1, len(lines) + 1)) and len(lines) == report.records
    prev = "0" * 64
    for line in lines:  # re-checked as anyone may: a JSON library and SHA-256, across the seam
        assert line["prev_hash"] == prev
        assert record_hash(line["seq"], line["time"], line["kind"], canonical_json(line["payload"]), prev) == \
            line["hash"]
        prev = line["hash"]


def test_the_station_and_its_monitor_start_from_the_live_journal(written: tuple[Path, CoreOptions]) -> None:
    path, options = written
    with CoreLoop(path, options) as loop:
        state = loop.snapshot()
    archive_before(path, _days(path)[-2], now=datetime(2026, 12, 1, tzinfo=UTC))
    with CoreLoop(path, options) as loop:
        assert loop.snapshot() == state and loop.checkpoint_seq > 0
        head = loop.journal.head()[0]
    posted: list[Any] = []
    monitor = IntegrityService(posted.append, options, IntegritySettings(), path, head)
    monitor.start()
    assert monitor.caught_up.wait(30) and monitor.wait_idle(30)
    monitor.stop()
    assert monitor.resumed_from > 0 and posted == []


def test_an_archive_edited_by_hand_is_caught(written: tuple[Path, CoreOptions]) -> None:
    path, _ = written
    archived = archive_before(path, _days(path)[-2], now=datetime(2026, 12, 1, tzinfo=UTC))
    conn = sqlite3.connect(archived.path)
    conn.execute("DROP TRIGGER records_are_append_only_update")
    conn.execute("""UPDATE records SET payload = '{"edited":true,' || substr(payload, 2) WHERE seq = 17""")
    conn.commit()
    report = verify(path)
    assert not report.ok and report.first_bad_seq == 17
    assert report.problem.startswith(f"archive {archived.path.name}: record 17")
    # Rewritten whole, its own chain and head consistent: the live journal's seam exposes it.
    rows = conn.execute("SELECT seq, time, kind, payload, prev_hash FROM records ORDER BY seq").fetchall()
    prev = rows[0][4]
    for seq, time, kind, payload, _ in rows:
        text = canonical_json(json.loads(payload))  # stored as the station stores it, keys sorted
        digest = record_hash(seq, time, kind, text, prev)
        conn.execute("UPDATE records SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?", (text, prev, digest, seq))
        prev = digest
    conn.execute("UPDATE head SET last_hash = ? WHERE id = 1", (prev,))
    conn.commit()
    conn.close()
    assert verify(archived.path, standalone=True).ok
    report = verify(path)
    assert not report.ok and "seam does not continue its archive" in report.problem


def test_a_journal_without_its_archive_verifies_its_part_and_says_so(written: tuple[Path, CoreOptions]) -> None:
    path, options = written
    archived = archive_before(path, _days(path)[-2], now=datetime(2026, 12, 1, tzinfo=UTC))
    archived.path.rename(path.parent / "elsewhere.sqlite3")  # taken off the PC
    report = verify(path)
    assert report.ok and "not found beside it: not checked" in report.note
    with CoreLoop(path, options) as loop:  # the station does not need it
        assert loop.checkpoint_seq > 0
    with pytest.raises(Exception, match="not beside it"):
        recall_rounds(path, options)


def test_only_finished_days_and_what_the_floor_published_are_archived(written: tuple[Path, CoreOptions]) -> None:
    path, _ = written
    days = _days(path)
    with pytest.raises(RetentionError, match="after today's gaming day"):
        archive_before(path, days[-1] + timedelta(days=1), now=datetime(2026, 3, 2, tzinfo=UTC))
    with pytest.raises(RetentionError, match="no checkpoint was written before"):
        archive_before(path, days[0], now=datetime(2026, 12, 1, tzinfo=UTC))
    from station.floor.cursor import cursor_path, store_cursor
    from station.floor.derive import FeedPosition
    from station.journal.anchors import journal_id

    with JournalReader(path) as reader:
        first = reader.first_hash()
    assert first is not None
    store_cursor(cursor_path(path), journal_id(first), FeedPosition(seq=3))
    with pytest.raises(RetentionError, match="floor feed has published records up to 3 only"):
        archive_before(path, days[-2], now=datetime(2026, 12, 1, tzinfo=UTC))


def test_the_command_archives_and_a_running_station_keeps_its_journal(written: tuple[Path, CoreOptions]) -> None:
    path, options = written
    day = _days(path)[-2].isoformat()
    with CoreLoop(path, options):  # a station has it open: the writer's lock is taken
        held = subprocess.run([sys.executable, "-m", "station", "journal", "archive", "--before", day, "--journal",
                               str(path)], capture_output=True, text=True, timeout=60)
    assert held.returncode == 69 and "being written by process" in held.stderr
    done = subprocess.run([sys.executable, "-m", "station", "journal", "archive", "--before", day, "--journal",
                           str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "moved to" in done.stdout, done.stderr
    verified = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal", str(path)],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "intact" in verified.stdout and "with 1 archive" in verified.stdout
