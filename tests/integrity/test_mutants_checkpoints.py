"""The integrity monitor's checkpoints (the service's restart from them, the deep replay's
check of them) at corners mutation testing (tools/mutate.py, docs/testing.md) found
unguarded: each test here fails on a mutant that survived the rest of the tests.

The restart runs a real core loop with its integrity service on a real journal. The check of
the checkpoints is fed records as the deep replay hands them (journal records and the outputs
the projection gave for them), made here so that their number is exactly what the test needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from station.cards import FULL_DECK, ShoeComposition
from station.core import outputs as out
from station.core.checkpoints import CHECKPOINT
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord, Projection
from station.core.sessions import generate
from station.integrity import checkpoints
from station.integrity.checkpoints import MonitorCheck
from station.integrity.monitor import IntegrityMonitor, IntegritySettings
from station.integrity.monitor_state import MONITOR_FORMAT, monitor_state, settings_json
from station.integrity.service import INTEGRITY_CHECKPOINT, IntegrityService
from station.journal import JournalReader, canonical_json
from station.journal.records import JournalRecord

from ..forgery import rewrite_journal
from .test_monitor_checkpoints import SETTINGS, run

OPTIONS = CoreOptions(decks=8)
OTHER = IntegritySettings(repeat_depth=2, window_rounds=50)


def _plain(value: Any) -> Any:
    return json.loads(canonical_json(value))


def record(seq: int, kind: str, payload: dict[str, Any] | None = None) -> JournalRecord:
    return JournalRecord(seq, "2026-12-02T00:00:00.000000Z", kind, payload or {}, "0" * 64, "0" * 64)


def accounts(n: int) -> list[out.Output]:
    """A shoe's start, then ``n - 1`` rounds accounted (no settlement: voided)."""
    comp = ShoeComposition(8)
    left = tuple(comp.count(c) for c in FULL_DECK)
    return [out.CardsAccounted(1, "", "start", (), left, 8),
            *(out.CardsAccounted(1, f"1-{i}", "round", (), (), 8) for i in range(1, n))]


def feed(check: MonitorCheck, steps: list[tuple[JournalRecord, tuple[out.Output, ...]]]) -> None:
    projection = Projection(OPTIONS)
    for journal_record, outputs in steps:
        check(ProjectedRecord(journal_record, None, outputs), projection)


def checkpoint_of(seq: int, at: int, settings: IntegritySettings, of: IntegrityMonitor,
                  **change: Any) -> JournalRecord:
    """An integrity checkpoint after record ``at`` with the state of ``of`` (``change``
    replaces fields of the payload)."""
    payload = {"format": MONITOR_FORMAT, "at": at, "checkpoint": at, "settings": settings_json(settings),
               "monitor": _plain(monitor_state(of)), **change}
    return record(seq, INTEGRITY_CHECKPOINT, payload)


def restarted(journal: Path, options: CoreOptions, head: int) -> tuple[IntegrityService, list[Any]]:
    """The integrity service of a restarted station, once it has caught up and stopped, and
    what it logged."""
    service = IntegrityService(lambda event: None, options, SETTINGS, journal, head)
    with capture_logs() as logs:
        service.start()
        try:
            assert service.caught_up.wait(30) and service.wait_idle(30)
        finally:
            service.stop()
    return service, logs


def test_a_change_of_settings_is_compared_up_to_the_segment_limit_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A station restarted under other settings: the check rebuilds its monitor from the
    outputs kept since the start, as many as the limit allows; one more, and it says the
    checkpoint was not compared."""
    for kept, compared in ((5, True), (6, False)):
        monkeypatch.setattr(checkpoints, "SEGMENT_LIMIT", 5)
        stream = accounts(kept)
        under_other = IntegrityMonitor(OPTIONS, OTHER)
        for o in stream:
            under_other.feed(o)
        check = MonitorCheck(OPTIONS, SETTINGS)
        steps = [(record(i, "CardDrawn"), (o,)) for i, o in enumerate(stream, start=1)]
        feed(check, [*steps, (checkpoint_of(kept + 1, kept, OTHER, under_other), ())])
        assert check.ok
        assert (check.checked, check.not_compared) == ((1, 0) if compared else (0, 1)), kept
        skipped = "0 integrity checkpoints match the replay (1 after a change of settings not compared)"
        assert check.words() == ("1 integrity checkpoint matches the replay" if compared else skipped)


def test_only_integrity_checkpoints_are_compared_and_another_layout_is_counted_apart() -> None:
    stream = accounts(3)
    check = MonitorCheck(OPTIONS, SETTINGS)
    monitor = IntegrityMonitor(OPTIONS, SETTINGS)
    for o in stream:
        monitor.feed(o)
    steps = [(record(i, "CardDrawn", {"format": MONITOR_FORMAT}), (o,)) for i, o in enumerate(stream, start=1)]
    other = checkpoint_of(4, 3, SETTINGS, monitor, format=MONITOR_FORMAT + 1, monitor={"nothing": "alike"})
    feed(check, [*steps, (other, ())])
    assert check.ok and (check.checked, check.other_format, check.not_compared) == (0, 1, 0)
    assert check.words() == "0 integrity checkpoints match the replay (1 of another layout not compared)"


def test_after_the_first_checkpoint_found_wrong_the_check_names_it_and_compares_no_more() -> None:
    stream = accounts(4)
    monitor = IntegrityMonitor(OPTIONS, SETTINGS)
    check = MonitorCheck(OPTIONS, SETTINGS)
    steps: list[tuple[JournalRecord, tuple[out.Output, ...]]] = []
    for i, o in enumerate(stream, start=1):
        steps.append((record(2 * i - 1, "CardDrawn"), (o, out.Checkpointed(2 * i - 1, 2 * i - 1))))
        monitor.feed(o)
        wrong = {"monitor": {**_plain(monitor_state(monitor)), "window_rounds": 99}} if i in (2, 3) else {}
        steps.append((checkpoint_of(2 * i, 2 * i - 1, SETTINGS, monitor, **wrong), ()))
    feed(check, steps)
    assert not check.ok and check.first_bad_seq == 4 and check.checked == 2
    assert check.words() == check.problem and check.problem.startswith("record 4: integrity checkpoint differs")


def test_an_integrity_checkpoint_that_stands_elsewhere_than_its_checkpoint_is_passed_over(tmp_path: Path) -> None:
    """The newest integrity checkpoint says it stands after another record than the projection
    checkpoint it names: it is not used, the one before it is."""
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    _, head = run(journal, options, generate(11, 150, decks=4), SETTINGS)
    with JournalReader(journal) as reader:
        marks = [r for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT]
    assert len(marks) >= 3

    def moved(body: dict[str, Any]) -> None:
        body["at"] = body["at"] - 1

    rewrite_journal(journal, marks[-1].seq, moved)
    again, logs = restarted(journal, options, head)
    assert again.resumed_from == marks[-2].seq
    unusable = [e for e in logs if e["event"] == "integrity_checkpoint_unusable"]
    assert [e["seq"] for e in unusable] == [marks[-1].seq] and "it stands after record" in unusable[0]["error"]


def test_a_restart_tries_the_three_newest_integrity_checkpoints_and_no_more(tmp_path: Path) -> None:
    """The two newest unusable: the third is used. The three newest unusable: the monitor reads
    the journal from its first record, though an older checkpoint may be sound."""
    options = CoreOptions(decks=4)
    first = tmp_path / "first.sqlite3"
    _, head = run(first, options, generate(11, 150, decks=4), SETTINGS)
    second = tmp_path / "second.sqlite3"
    second.write_bytes(first.read_bytes())
    with JournalReader(first) as reader:
        marks = [r for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT]
    assert len(marks) >= 4

    def moved(body: dict[str, Any]) -> None:
        body["at"] = body["at"] - 1

    for journal, unusable, resumed in ((first, 2, marks[-3].seq), (second, 3, 0)):
        for mark in marks[-unusable:]:
            rewrite_journal(journal, mark.seq, moved)
        again, _ = restarted(journal, options, head)
        assert again.resumed_from == resumed, unusable


def test_the_first_settings_are_those_compared_with_and_none_given_are_the_defaults(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint under the settings the check starts with is compared at once (no rebuild,
    so not bound by the segment limit, here 1)."""
    monkeypatch.setattr(checkpoints, "SEGMENT_LIMIT", 1)
    stream = accounts(3)
    for first, settings in ((SETTINGS, SETTINGS), (None, IntegritySettings())):
        monitor = IntegrityMonitor(OPTIONS, settings)
        steps: list[tuple[JournalRecord, tuple[out.Output, ...]]] = []
        for i, o in enumerate(stream, start=1):
            monitor.feed(o)
            steps.append((record(i, "CardDrawn"), (o, out.Checkpointed(i, i)) if i == 3 else (o,)))
        check = MonitorCheck(OPTIONS, first)
        feed(check, [*steps, (checkpoint_of(4, 3, settings, monitor), ())])
        assert check.ok and (check.checked, check.not_compared) == (1, 0), first


def test_an_integrity_checkpoint_may_name_one_of_the_last_eight_projection_checkpoints() -> None:
    """The monitor's checkpoint follows the projection's within a few records; the check keeps
    the monitor's state at the last eight of them. One naming the ninth from the end names
    nothing the check knows."""
    stream = accounts(9)
    steps: list[tuple[JournalRecord, tuple[out.Output, ...]]] = []
    for i, o in enumerate(stream, start=1):
        steps.append((record(i, "CardDrawn"), (o, out.Checkpointed(i, i))))
    for named, sound in ((2, True), (1, False)):
        again = IntegrityMonitor(OPTIONS, SETTINGS)
        for o in stream[:named]:
            again.feed(o)
        check = MonitorCheck(OPTIONS, SETTINGS)
        feed(check, [*steps, (checkpoint_of(10, named, SETTINGS, again), ())])
        assert check.ok is sound, named
        if not sound:
            assert check.problem == "record 10: integrity checkpoint names no checkpoint of the projection before it"


def test_a_change_of_settings_rebuilds_from_the_last_sound_checkpoint_and_what_came_after_it() -> None:
    """Records 1-2, a projection checkpoint after 2 and the monitor's (sound) after it, records 3
    and 5; then the station restarted under other settings: its checkpoint after record 5 is
    the sound one restored under them, fed records 3 and 5."""
    from station.integrity.monitor_state import restore_monitor

    o1, o2, o3, o4 = accounts(4)
    monitor = IntegrityMonitor(OPTIONS, SETTINGS)
    monitor.feed(o1)
    monitor.feed(o2)
    base = _plain(monitor_state(monitor))
    restarted = restore_monitor(OPTIONS, OTHER, base)
    restarted.feed(o3)
    restarted.feed(o4)
    steps = [(record(1, "CardDrawn"), (o1,)), (record(2, "CardDrawn"), (o2, out.Checkpointed(2, 2))),
             (record(3, "CardDrawn"), (o3,)), (checkpoint_of(4, 2, SETTINGS, monitor), ()),
             (record(5, "CardDrawn"), (o4,)), (checkpoint_of(6, 5, OTHER, restarted), ())]
    check = MonitorCheck(OPTIONS, SETTINGS)
    feed(check, steps)
    assert check.ok and (check.checked, check.not_compared) == (2, 0), check.words()


def test_an_integrity_checkpoint_naming_a_record_that_is_no_checkpoint_is_passed_over(tmp_path: Path) -> None:
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    _, head = run(journal, options, generate(11, 150, decks=4), SETTINGS)
    with JournalReader(journal) as reader:
        marks = [r for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT]
        first = reader.get(1)
    assert first is not None and first.kind != CHECKPOINT and len(marks) >= 2

    def misnamed(body: dict[str, Any]) -> None:
        body["checkpoint"] = 1

    rewrite_journal(journal, marks[-1].seq, misnamed)
    again, logs = restarted(journal, options, head)
    assert again.resumed_from == marks[-2].seq
    unusable = [e["error"] for e in logs if e["event"] == "integrity_checkpoint_unusable"]
    assert unusable == ["ValueError: record 1 is not a checkpoint"]
