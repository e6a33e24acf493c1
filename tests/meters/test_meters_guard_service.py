"""The meters' service at the corners mutation testing found unguarded (tools/mutate.py,
``--guard meters``; docs/testing.md): the checkpoints it hands the core loop, the records it
folds once, and its catch-up after a restart (from which checkpoint, how many records, and
nothing at all when there is nothing to catch up with). The journal is the generated week's
(tests/meters/week.py), written by a real core loop with the station's meters service."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs

from station.config.options import journal_options
from station.core import outputs as out
from station.core.history import History
from station.journal import JournalReader, canonical_json
from station.meters.checkpoint import METERS_CHECKPOINT
from station.meters.service import MetersService

from .week import Week

VIENNA, DAY_START = "Europe/Vienna", "06:00"
WeekFixture = tuple[Path, Week, MetersService]
CATCH_UP_EVENTS = ("meters_caught_up", "meters_catch_up_failed")


def _plain(value: Any) -> Any:
    return json.loads(canonical_json(value))


def _state(service: MetersService) -> str:
    return json.dumps(sorted((p.to_json() for p in service.fold.every_part()), key=json.dumps), sort_keys=True)


def journaled_checkpoints(journal: Path) -> list[dict[str, Any]]:
    """The payloads of the journal's meters checkpoints, oldest first."""
    with JournalReader(journal) as reader:
        return [record.payload for record in reversed(list(reader.of_kind(METERS_CHECKPOINT)))]


def caught_up(journal: Path | None, head: int | None) -> tuple[MetersService, list[dict[str, Any]]]:
    """A restarted station's meters service once it has caught up with ``journal`` up to
    record ``head`` (None: the service's default), and what it logged of the catch-up."""
    options = journal_options(journal, journal) if journal is not None else None
    if head is None:
        service = MetersService(options, VIENNA, DAY_START, journal)
    else:
        service = MetersService(options, VIENNA, DAY_START, journal, head)
    with capture_logs() as logs:
        service.start()
        try:
            assert service.wait_idle(60)
        finally:
            service.stop()
    return service, [dict(entry) for entry in logs if entry["event"] in CATCH_UP_EVENTS]


def test_the_checkpoints_handed_over_are_a_function_of_the_journal(week: WeekFixture) -> None:
    """A service folding the week's records again (its notes kept, not journaled) hands over the
    very checkpoints the station journaled, in order: the same records give the same links, none
    added while the last link that sealed parts has not come back from the journal, none left
    out once it has (it comes back among the records, as in the running station)."""
    path, _, _ = week
    options = journal_options(path, path)
    notes: list[tuple[str, dict[str, Any]]] = []
    service = MetersService(options, VIENNA, DAY_START, note=lambda kind, payload: notes.append((kind, payload)))
    for step in History(path, options).steps():
        service.take(step)
    assert {kind for kind, _ in notes} == {METERS_CHECKPOINT}
    assert [_plain(payload) for _, payload in notes] == journaled_checkpoints(path)
    assert service.checkpoints == len(notes) > 2


def test_without_a_way_to_journal_the_service_writes_no_checkpoint_and_goes_on(week: WeekFixture) -> None:
    """A service with no ``note`` (a bench folding a journal) passes over the projection's
    checkpoints: it counts the same figures as one that writes its own."""
    path, _, _ = week
    options = journal_options(path, path)
    service = MetersService(options, VIENNA, DAY_START)
    steps = list(History(path, options).steps())
    assert any(isinstance(o, out.Checkpointed) for step in steps for o in step.outputs)
    for step in steps:
        service.take(step)
    assert service.checkpoints == 0 and service.parent == 0
    whole = MetersService(options, VIENNA, DAY_START)
    whole.fold.take_all((s.record, s.event, s.outputs) for s in steps)
    assert _state(service) == _state(whole)


def test_the_record_the_fold_stands_at_handed_again_is_not_counted_again(week: WeekFixture) -> None:
    """The live hand-over begins where the catch-up ended, or before: the record the fold has
    just taken (here a round's settlement), handed over again, is passed over."""
    path, _, _ = week
    options = journal_options(path, path)
    steps = list(History(path, options).steps())
    last = max(i for i, step in enumerate(steps) if any(isinstance(o, out.RoundSettled) for o in step.outputs))
    service = MetersService(options, VIENNA, DAY_START)
    for step in steps[:last + 1]:
        service.take(step)
    once = _state(service)
    service.take(steps[last])
    assert _state(service) == once
    assert service.fold.at == steps[last].record.seq


def test_a_restarted_service_reads_the_records_after_the_newest_checkpoint_once(week: WeekFixture) -> None:
    """After a restart the service resumes from the newest meters checkpoint and folds the
    records after the one its fold stands at, up to the head the station had replayed: the log
    says from which checkpoint, and how many records."""
    path, _, _ = week
    with JournalReader(path) as reader:
        head = reader.head()[0]
        newest = next(reader.of_kind(METERS_CHECKPOINT))
    service, logs = caught_up(path, head)
    assert (service.resumed_from, service.fold.at) == (newest.seq, head)
    assert [(e["event"], e["records"], e["from_checkpoint"]) for e in logs] == [
        ("meters_caught_up", head - newest.payload["at"], newest.seq)]


def test_with_no_checkpoint_before_the_head_the_service_reads_from_the_first_record(week: WeekFixture) -> None:
    """A head before the first meters checkpoint's record: every record up to it is read, from
    the first (a head of one record reads that one)."""
    path, _, _ = week
    first_at = journaled_checkpoints(path)[0]["at"]
    for head in (1, first_at - 1):
        service, logs = caught_up(path, head)
        assert (service.resumed_from, service.fold.at) == (0, head)
        assert [(e["event"], e["records"], e["from_checkpoint"]) for e in logs] == [
            ("meters_caught_up", head, None)]


def test_with_nothing_replayed_there_is_nothing_to_catch_up(week: WeekFixture, tmp_path: Path) -> None:
    """No journal, a journal that is not there, or a head of 0 (the loop had replayed nothing,
    the default): the service folds only what it is handed live; no catch-up is tried."""
    path, _, _ = week
    missing = tmp_path / "not-here.sqlite3"
    for journal, head in ((None, 0), (None, 5), (missing, 5), (path, 0), (path, None)):
        service, logs = caught_up(journal, head)
        assert (service.fold.at, service.resumed_from, logs) == (0, 0, []), (journal, head)
    assert not missing.exists()
