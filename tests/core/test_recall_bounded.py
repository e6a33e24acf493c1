"""Recall and the event log from a stretch of the journal give what the whole journal gives.

``station recall --last N``, ``--round``, ``--day``, ``station events --since`` and the console's
recall read only the stretch they show, from the checkpoint before it
(:mod:`station.core.landmarks`). Here every such answer is compared with the same question put
to a reading of the whole journal, on sessions written through the real core loop onto a real
journal with checkpoints written often (so a stretch starts at a checkpoint mid-shoe, mid-round
and at a shoe end), random sessions and random inputs (hypothesis: wars, irregularities,
corrections, pauses), and a week of play with dealers, corrections, alarms and gaming days.
The station's own journals (a restart, a SIGKILL, an archive seam) are compared the same way in
tests/service/test_readers_on_real_journals.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from station.config.options import journal_options
from station.core.checkpoints import CHECKPOINT
from station.core.landmarks import Landmarks
from station.core.options import CoreOptions
from station.core.recall import recall_between, recall_last, recall_round, recall_rounds
from station.core.sessions import generate
from station.events import Event
from station.journal import JournalReader
from station.significant.log import read_log

from ..meters.week import play_week
from .test_checkpoints import run_live
from .test_fuzz import PRELUDE, events, option_sets


def assert_bounded_recall_agrees(path: Path, options: CoreOptions | None) -> list[dict[str, Any]]:
    """Every bounded question against the whole journal's answer; returns every round."""
    every = recall_rounds(path, options)
    for last in sorted({1, 2, 3, 7, max(1, len(every)), len(every) + 5}):
        assert recall_last(path, options, last) == every[-last:], f"the last {last} rounds"
    for round_ in every[::3] + every[-2:]:  # every third, and the last two (one may be on the table)
        assert recall_round(path, options, round_["round_id"]) == round_, f"round {round_['round_id']}"
    assert recall_round(path, options, "999-1") is None
    if every:
        last_shoe = every[-1]["shoe"]
        assert recall_round(path, options, f"{last_shoe}-999") is None
    opened = sorted({r["opened_at"] for r in every})
    for start, end in zip(opened[::3], [*opened[2::3], "9999"], strict=False):
        assert recall_between(path, options, start, end) == [r for r in every if start <= r["opened_at"] < end], (
            f"the rounds opened from {start} to {end}")
    return every


def assert_bounded_events_agree(path: Path, options: CoreOptions | None, points: int = 8) -> None:
    whole = read_log(path, options)
    with JournalReader(path) as reader:
        times = [record.time for record in reader.records()]
    step = max(1, len(times) // points)
    for since in [*times[::step], times[-1], "2000-01-01T00:00:00.000000Z", "9999"]:
        assert read_log(path, options, since=since) == [e for e in whole if e.time >= since], f"since {since}"


def checkpoints_in(path: Path) -> int:
    with JournalReader(path) as reader:
        return len(reader.seqs_of_kind(CHECKPOINT))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=s.integers(0, 10_000), rounds=s.integers(8, 30), every=s.integers(3, 30))
def test_sessions_recall_alike_from_any_stretch(tmp_path: Path, seed: int, rounds: int, every: int) -> None:
    path = tmp_path / f"s-{seed}-{rounds}-{every}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    options = CoreOptions(decks=4)
    run_live(path, options, generate(seed, rounds, decks=4), every).close()
    assert checkpoints_in(path) >= 2
    assert_bounded_recall_agrees(path, options)
    assert_bounded_events_agree(path, options)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=option_sets, sequence=s.lists(events, min_size=10, max_size=80), every=s.integers(1, 9))
def test_any_inputs_recall_alike_from_any_stretch(tmp_path: Path, options: CoreOptions, sequence: list[Event],
                                                  every: int) -> None:
    """Every equipment, style and game, irregularities, wars, corrections of past rounds."""
    path = tmp_path / f"f-{abs(hash(tuple(sequence)))}-{every}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    run_live(path, options, PRELUDE + sequence, every).close()
    assert_bounded_recall_agrees(path, options)
    assert_bounded_events_agree(path, options)


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CoreOptions]:
    path, config, _ = play_week(tmp_path_factory.mktemp("recall-week"), checkpoint_every=150)
    options = journal_options(path, config)
    assert options is not None
    return path, options


def test_a_week_recalls_alike_from_any_stretch(week: tuple[Path, CoreOptions]) -> None:
    """Dealers, corrections, an alarm, several gaming days, checkpoints every 150 records."""
    path, options = week
    every = assert_bounded_recall_agrees(path, options)
    assert any(r["corrections"] for r in every), "the week corrects rounds"
    assert sum(1 for r in every if r["shoe_opening"]) >= 2
    assert_bounded_events_agree(path, options, points=40)


def test_a_question_reads_only_its_stretch(week: tuple[Path, CoreOptions]) -> None:
    """The last rounds start at one of the last checkpoints, a round in the middle at the one
    before it opened: not at the first record."""
    path, options = week
    with Landmarks(path, options) as marks:
        assert len(marks) >= 10
        newest = marks.history(len(marks) - 1)
        assert newest.checkpoint_seq == marks.marks[-1].seq
        every = recall_rounds(path, options)
        middle = every[len(every) // 2]["round_id"]
        shoe, number = (int(part) for part in middle.split("-"))
        index = marks.before_round(shoe, number)
        assert 0 < index < len(marks) - 1
        assert marks.position(index) < (shoe, number) <= marks.position(index + 1)
        assert marks.before_time(marks.time(5)) == 4
        assert marks.before_time("2000") == -1


def test_an_unreadable_checkpoint_is_passed_over_for_an_older_one(tmp_path: Path) -> None:
    """A checkpoint of another state layout (older software) is not read back: recall starts
    at the one before it, and answers alike."""
    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4)
    run_live(path, options, generate(3, 12, decks=4), 20).close()
    every = recall_rounds(path, options)
    import sqlite3

    conn = sqlite3.connect(path)
    with conn:  # the layout number only: as older software wrote it (the chain is not the point here)
        conn.execute("DROP TRIGGER IF EXISTS records_are_append_only_update")
        newest = conn.execute(f"SELECT max(seq) FROM records WHERE kind = '{CHECKPOINT}'").fetchone()[0]
        conn.execute("UPDATE records SET payload = json_set(payload, '$.format', 1) WHERE seq = ?", (newest,))
    conn.close()
    with Landmarks(path, options) as marks:
        assert marks.history(len(marks) - 1).checkpoint_seq == marks.marks[-2].seq
    assert recall_last(path, options, 2) == every[-2:]


def test_a_correction_long_after_its_round_is_found_from_the_round_s_stretch(tmp_path: Path) -> None:
    """A supervisor corrects a round some rounds after it left the table, after a restart:
    the round's recall reads on until the round can no longer be corrected, and finds it."""
    from station.core.loop import CoreLoop
    from station.events import Actor, BetCorrected

    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4)
    run_live(path, options, generate(11, 16, decks=4), 7).close()
    before = recall_rounds(path, options)
    target = next(r for r in before[-6::-1] if r["settlement"] and not r["voided"] and r["bets"])
    bet = target["bets"][0]
    loop = CoreLoop(path, options, checkpoint_every=7)  # the station started again
    loop.post(BetCorrected(target["round_id"], bet["box"], bet["player"], bet["region"], bet["box"], bet["player"],
                           bet["region"], bet["amount"] * 2, "keyed half the bet", Actor("supervisor", "sam")))
    loop.run_pending()
    loop.close()
    every = assert_bounded_recall_agrees(path, options)
    corrected = next(r for r in every if r["round_id"] == target["round_id"])
    assert len(corrected["corrections"]) == 1, corrected["corrections"]
    assert recall_round(path, options, target["round_id"]) == corrected, "the correction, found from its stretch"
    assert corrected["round_id"] != every[-1]["round_id"]


def test_the_consoles_recall_shows_what_the_whole_journal_shows(week: tuple[Path, CoreOptions]) -> None:
    """The console's recall (the last rounds, any round by id) reads its stretch and words
    the same rounds as a reading of the whole journal."""
    from station.console.recall import _round, recall_for_console
    from station.localtime import zone
    from station.money import Money

    path, options = week
    every = recall_rounds(path, options)
    settings = {"journal": str(path), "config": str(path.parent / "station.toml"), "digits": 2, "currency": "EUR",
                "timezone": "Europe/Vienna"}
    money, tz = Money(2, "EUR"), zone("Europe/Vienna")
    shown = recall_for_console(settings, 10, "")
    assert shown["ok"] and shown["rounds"] == [_round(r, money, tz) for r in reversed(every[-10:])]
    for round_ in every[:: max(1, len(every) // 7)]:
        one = recall_for_console(settings, 10, round_["round_id"])
        assert one["rounds"] == [_round(round_, money, tz)], round_["round_id"]
    assert recall_for_console(settings, 10, "999-1")["message"] == "no round 999-1 in this journal"
    assert "is not a round id" in recall_for_console(settings, 10, "x")["message"]
