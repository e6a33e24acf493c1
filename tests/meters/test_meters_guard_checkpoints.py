"""The meters' checkpoints at the corners mutation testing found unguarded (tools/mutate.py,
``--guard meters``; docs/testing.md): which checkpoint a reader may start from, how many it
tries, and what it does when a chain or the journal's history is not whole. Each test plays
the generated week (tests/meters/week.py) or a copy of it with checkpoints appended by hand,
and reads it as ``station meters`` does; the figures must be those of every record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.config.options import journal_options
from station.core import outputs as out
from station.core.checkpoints import CHECKPOINT
from station.core.history import History
from station.journal import Journal, JournalReader, JournalRecord
from station.meters.checkpoint import METERS_CHECKPOINT, checkpoint_payload, resume
from station.meters.fold import MetersFold
from station.meters.reading import read_meters
from station.meters.service import MetersService

from .week import Week, play_week

VIENNA, DAY_START = "Europe/Vienna", "06:00"
WeekFixture = tuple[Path, Week, MetersService]


def figures(capsys: pytest.CaptureFixture[str], journal: Path, *extra: str) -> dict[str, Any]:
    assert main(["meters", "--journal", str(journal), "--day", "all", "--json", *extra]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def copy(journal: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / journal.name
    shutil.copyfile(journal, target)
    return target


def append(journal: Path, kind: str, payload: dict[str, Any]) -> int:
    with Journal(journal) as writer:
        return writer.append(kind, payload).seq


def meters_checkpoints(journal: Path) -> list[JournalRecord]:
    """The journal's meters checkpoints, newest first."""
    with JournalReader(journal) as reader:
        return list(reader.of_kind(METERS_CHECKPOINT))


def fold_at(journal: Path, seq: int) -> MetersFold:
    """The meters' fold of every record up to record ``seq`` (sealing nothing)."""
    fold = MetersFold(VIENNA, DAY_START)
    for step in History(journal, journal_options(journal, journal)).steps(until=seq):
        fold.take(step.record, step.event, step.outputs)
    return fold


def test_the_week_s_checkpoints_are_of_layout_2(week: WeekFixture) -> None:
    """Meters checkpoints are of layout (``format``) 2 since the figures count the chips
    (layout 1's did not: tests/meters/test_chip_meters.py), and a reader passes over a
    checkpoint of any other layout: the number changes only with the layout, on purpose, or
    every station would read its journal from the first record."""
    path, _, service = week
    written = meters_checkpoints(path)
    assert written and {record.payload["format"] for record in written} == {2}
    assert service.checkpoints == len(written)  # every checkpoint handed to the loop was journaled


def test_a_reader_tries_three_unusable_checkpoints_then_reads_from_the_first_record(
        week: WeekFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Damaged checkpoints (of this layout) are tried newest first: after two the third back is
    used; after three the reader gives up on checkpoints and reads every record."""
    path, _, _ = week
    expected = figures(capsys, path)
    newest = meters_checkpoints(path)[0]
    damaged = {**newest.payload, "fold": {"at": "not a state"}}
    for count, read_from in ((2, newest.seq), (3, None)):
        journal = copy(path, tmp_path / str(count))
        for _ in range(count):
            append(journal, METERS_CHECKPOINT, damaged)
        report = figures(capsys, journal)
        assert report["read"]["checkpoint"] == read_from, count
        assert report["days"] == expected["days"], count


def test_a_checkpoint_standing_at_the_bound_asked_is_taken(week: WeekFixture) -> None:
    """``resume(at_most=n)`` (a restarted station's catch-up up to the record it had replayed)
    takes the newest checkpoint whose fold stands at record ``n`` at the latest: one standing
    exactly there, not one after it."""
    path, _, _ = week
    options = journal_options(path, path)
    newest, before = meters_checkpoints(path)[:2]
    at = newest.payload["at"]
    exactly = resume(path, options, VIENNA, DAY_START, at_most=at)
    assert exactly is not None and exactly.seq == newest.seq
    earlier = resume(path, options, VIENNA, DAY_START, at_most=at - 1)
    assert earlier is not None and earlier.seq == before.seq


def test_a_checkpoint_must_name_a_checkpoint_of_the_projection(
        week: WeekFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The projection a reader starts from is the one of the ``Checkpoint`` record the meters
    checkpoint names: naming a record of another kind (even one holding a copy of a
    checkpoint's state) makes it unusable, and the one before is read."""
    path, _, _ = week
    expected = figures(capsys, path)
    journal = copy(path, tmp_path)
    newest = meters_checkpoints(journal)[0]
    with JournalReader(journal) as reader:
        core = reader.get(newest.payload["checkpoint"])
    assert core is not None and core.kind == CHECKPOINT
    other = append(journal, "CheckpointCopy", core.payload)
    append(journal, METERS_CHECKPOINT, {**newest.payload, "checkpoint": other})
    report = figures(capsys, journal)
    assert report["read"]["checkpoint"] == newest.seq
    assert report["days"] == expected["days"]


def test_a_fold_may_stand_at_or_after_its_projection_never_before(
        week: WeekFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A meters checkpoint's fold stands after record ``at``, the projection it names after its
    own record: a fold at or after the projection's record is usable (the records between are
    in the fold already, counted once); a fold before it would miss the records between, and a
    payload whose ``at`` is not its fold's is not to be trusted: both are passed over."""
    path, _, _ = week
    expected = figures(capsys, path)
    newest = meters_checkpoints(path)[0]
    checkpoint = newest.payload["checkpoint"]
    with JournalReader(path) as reader:
        core = reader.get(checkpoint)
        head = reader.head()[0]
    assert core is not None
    projection_at = core.payload["at"]  # the record the projection's state stands after
    settling = [step.record.seq for step in History(path, journal_options(path, path)).steps()
                if step.record.seq > checkpoint and any(isinstance(o, out.RoundSettled) for o in step.outputs)]
    assert settling, "a round settled after the newest checkpoint of the projection"
    cases = {
        "at the projection": (fold_at(path, projection_at), True),
        "after it, at a round's settlement": (fold_at(path, settling[-1]), True),
        "before it": (fold_at(path, projection_at - 1), False),
    }
    for name, (fold, usable) in cases.items():
        journal = copy(path, tmp_path / name.replace(" ", "_"))
        seq = append(journal, METERS_CHECKPOINT, checkpoint_payload(fold, checkpoint, 0))
        report = figures(capsys, journal)
        assert report["read"]["checkpoint"] == (seq if usable else newest.seq), name
        assert report["days"] == expected["days"], name
        if usable:  # the records after the fold's, the appended checkpoint included
            assert report["read"]["records_read"] == seq - fold.at == head + 1 - fold.at, name
    journal = copy(path, tmp_path)
    append(journal, METERS_CHECKPOINT, {**newest.payload, "at": newest.payload["at"] - 1})
    report = figures(capsys, journal)
    assert report["read"]["checkpoint"] == newest.seq
    assert report["days"] == expected["days"]


def test_records_read_are_those_after_the_checkpoint_s_fold(week: WeekFixture,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``read.records_read`` counts the records fed to the fold after the checkpoint it was
    restored from: those after the record its fold stands at, each once."""
    path, _, _ = week
    newest = meters_checkpoints(path)[0]
    report = figures(capsys, path)
    assert report["read"]["checkpoint"] == newest.seq
    assert report["read"]["records_read"] == report["read"]["last_seq"] - newest.payload["at"] > 0


@pytest.mark.parametrize("damage", [
    {"sealed": "not a list of parts"},  # the newest link cannot be read
    {"parent": 10**9},  # names a record that is not in the journal (nor beside it)
])
def test_a_chain_that_cannot_be_followed_reads_from_the_first_record(
        week: WeekFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: dict[str, Any]) -> None:
    path, _, _ = week
    expected = figures(capsys, path)
    journal = copy(path, tmp_path)
    newest = meters_checkpoints(journal)[0]
    append(journal, METERS_CHECKPOINT, {**newest.payload, **damage})
    report = figures(capsys, journal)
    assert report["read"]["checkpoint"] is None
    assert report["days"] == expected["days"]


def test_read_meters_starts_from_the_newest_checkpoint_unless_asked_to_start_from_the_first(
        week: WeekFixture) -> None:
    path, _, _ = week
    options = journal_options(path, path)
    quick = read_meters(path, options, VIENNA, DAY_START)
    assert quick.checkpoint == meters_checkpoints(path)[0].seq
    slow = read_meters(path, options, VIENNA, DAY_START, from_start=True)
    assert slow.checkpoint is None and slow.records_read == slow.last_seq == quick.last_seq


def test_a_journal_whose_archive_is_gone_names_the_archive_to_put_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With no meters checkpoint to start from in the files beside it, the meters of a journal
    whose oldest archive was taken away cannot be read: ``station meters`` says which archive
    to put back (it does not look for checkpoints in a file that is not there)."""
    journal, _, _ = play_week(tmp_path, rounds_per_stretch=2, checkpoint_every=150)  # no meters service
    capsys.readouterr()
    days = figures(capsys, journal)["gaming_days"]
    assert main(["journal", "archive", "--before", days[-1], "--journal", str(journal)]) == 0
    capsys.readouterr()
    [archive] = tmp_path.glob(f"{journal.name}.archive-*")
    archive.rename(tmp_path / "elsewhere.sqlite3")
    assert main(["meters", "--journal", str(journal), "--json"]) == 2
    err = capsys.readouterr().err
    assert archive.name in err and "is not beside it: put it back to read them" in err, err
