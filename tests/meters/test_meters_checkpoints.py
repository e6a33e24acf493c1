"""The meters' checkpoints: a station that starts again resumes its fold from the newest one
and goes on writing the chain; a reader passes over a checkpoint it cannot use, and reads
from the first record when the chain is broken; the figures are the same every way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.config.options import journal_options
from station.journal import Journal, JournalReader
from station.meters.checkpoint import METERS_CHECKPOINT, METERS_FORMAT, resume, sealed_before
from station.meters.service import MetersService


def figures(capsys: pytest.CaptureFixture[str], journal: Path, *extra: str) -> dict[str, Any]:
    assert main(["meters", "--journal", str(journal), "--day", "all", "--json", *extra]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def copy(journal: Path, folder: Path) -> Path:
    target = folder / journal.name
    shutil.copyfile(journal, target)
    return target


def append(journal: Path, kind: str, payload: dict[str, Any]) -> None:
    with Journal(journal) as writer:
        writer.append(kind, payload)


def test_the_chain_reaches_the_first_checkpoint_and_holds_every_sealed_part(week) -> None:
    week, _, _ = week
    options = journal_options(week, week)
    resumed = resume(week, options, "Europe/Vienna", "06:00")
    assert resumed is not None
    with JournalReader(week) as reader:
        every = {r.seq: r.payload for r in reader.of_kind(METERS_CHECKPOINT)}
    assert resumed.seq == max(every)
    links, seq = [], resumed.seq
    while seq:
        links.append(seq)
        seq = every[seq]["parent"]
    # Each names the last that sealed parts: the chain is those and the newest, no other.
    sealing = {s for s, p in every.items() if p["sealed"]}
    assert set(links) - {resumed.seq} == sealing - {resumed.seq}
    assert len(every) > len(links) > 2
    assert all(p["at"] == p["checkpoint"] for p in every.values())  # right after the projection's
    sealed = sealed_before(week, resumed)
    assert sealed is not None
    assert len(sealed) == sum(len(p["sealed"]) for p in every.values()) > 0
    # Sealed a gaming day at a time, the oldest first, but for the parts of the rounds a correction
    # may still reach (the last 101 settled: four days of this week).
    days = sorted({part.day for part in sealed})
    assert days == [f"2026-03-{day}" for day in range(25, 25 + len(days))]
    kept = set(resumed.fold.rounds.values())
    assert all(part.day >= days[-1] and (part.day > days[-1] or part.key in kept)
               for part in resumed.fold.parts.values())


def test_a_restarted_station_s_meters_resume_from_the_newest_checkpoint(week, tmp_path) -> None:
    week, _, _ = week
    journal = copy(week, tmp_path)
    options = journal_options(journal, journal)
    with JournalReader(journal) as reader:
        head = reader.head()[0]
        newest = next(reader.of_kind(METERS_CHECKPOINT))
    service = MetersService(options, "Europe/Vienna", "06:00", journal, head)
    service.start()
    try:
        assert service.wait_idle(60)
    finally:
        service.stop()
    assert service.resumed_from == newest.seq
    assert service.parent == newest.seq  # the next checkpoint it writes continues the chain
    assert service.fold.at == head


@pytest.mark.parametrize("damage", [
    {"format": METERS_FORMAT + 1},  # another layout
    {"fold": {"at": "not a state"}},  # a state that does not read back
])
def test_a_checkpoint_it_cannot_use_is_passed_over_for_the_one_before(week, tmp_path, capsys, damage) -> None:
    week, _, _ = week
    expected = figures(capsys, week)
    journal = copy(week, tmp_path)
    with JournalReader(journal) as reader:
        newest = next(reader.of_kind(METERS_CHECKPOINT))
    append(journal, METERS_CHECKPOINT, {**newest.payload, **damage})
    report = figures(capsys, journal)
    assert report["read"]["checkpoint"] == newest.seq
    assert report["days"] == expected["days"]


def test_a_broken_chain_reads_from_the_first_record(week, tmp_path, capsys) -> None:
    week, _, _ = week
    expected = figures(capsys, week)
    journal = copy(week, tmp_path)
    with JournalReader(journal) as reader:
        newest = next(reader.of_kind(METERS_CHECKPOINT))
    append(journal, METERS_CHECKPOINT, {**newest.payload, "parent": newest.seq - 1})  # not a meters checkpoint
    report = figures(capsys, journal)
    assert report["read"]["checkpoint"] is None
    assert report["days"] == expected["days"]
