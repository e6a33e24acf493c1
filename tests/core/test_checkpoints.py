"""Checkpoints of the projection: restartable state, the same stream from any of them, checked.

Sessions run through the real core loop on a real journal, with checkpoints written often.
From each checkpoint in the journal a fresh projection is restored and the rest of the journal
replayed: record by record it must give what the replay from the first record gives (and that
is what the live run gave, ``tests/core/test_projection.py``), and end in the same state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from station.cards import parse_card
from station.core import outputs as out
from station.core.checkpoints import (
    CHECKPOINT,
    EVERY_RECORDS,
    check_checkpoints,
    latest_checkpoint,
    projection_state,
    start_projection,
)
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.projection import Projection
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.events import (
    Actor,
    BetCorrected,
    BetPlaced,
    CardDrawn,
    DealerAction,
    Event,
    PauseRequested,
    PayoutConfirmationRequired,
    PayoutsConfirmed,
    ResumeRequested,
)
from station.journal import Journal, JournalReader
from station.journal.verify import verify

from ..forgery import rewrite_journal
from .test_fuzz import PRELUDE, events, option_sets


def run_live(path: Path, options: CoreOptions | None, inputs: list[Event], every: int) -> CoreLoop:
    loop = CoreLoop(path, options, checkpoint_every=every)
    for start in range(0, len(inputs), 3):
        for event in inputs[start:start + 3]:
            loop.post(event)
        loop.run_pending()
    return loop


def full_replay(path: Path, options: CoreOptions | None) -> tuple[list[Any], list[tuple[out.Output, ...]], Projection]:
    projection = Projection(options)
    with JournalReader(path) as reader:
        records = list(reader.records())
    return records, [projection.take(record).outputs for record in records], projection


def assert_every_checkpoint_resumes_the_stream(path: Path, options: CoreOptions | None) -> int:
    records, outputs, final = full_replay(path, options)
    points = [i for i, record in enumerate(records) if record.kind == CHECKPOINT]
    for index in points:
        resumed = start_projection(options, records[index].payload)
        assert resumed.seq == records[index].payload["at"] == records[index].seq - 1
        for later in range(index, len(records)):
            assert resumed.take(records[later]).outputs == outputs[later], (
                f"from the checkpoint at {records[index].seq}, record {records[later].seq} "
                f"({records[later].kind}) gives other outputs")
        assert projection_state(resumed) == projection_state(final)
    return len(points)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=s.integers(0, 10_000), rounds=s.integers(5, 40), every=s.integers(2, 40))
def test_a_session_replays_alike_from_every_checkpoint(tmp_path: Path, seed: int, rounds: int, every: int) -> None:
    path = tmp_path / f"s-{seed}-{rounds}-{every}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    options = CoreOptions(decks=4)
    run_live(path, options, generate(seed, rounds, decks=4), every).close()
    assert assert_every_checkpoint_resumes_the_stream(path, options) >= 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=option_sets, sequence=s.lists(events, min_size=10, max_size=80), every=s.integers(1, 9))
def test_any_inputs_replay_alike_from_every_checkpoint(tmp_path: Path, options: CoreOptions, sequence: list[Event],
                                                       every: int) -> None:
    """Every equipment, style and game, irregularities with held cards, wars, pauses."""
    path = tmp_path / f"f-{abs(hash(tuple(sequence)))}-{every}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    run_live(path, options, PRELUDE + sequence, every).close()
    assert assert_every_checkpoint_resumes_the_stream(path, options) >= 1


def test_payouts_to_confirm_a_pause_to_come_and_rounds_to_correct_carry_across_checkpoints(tmp_path: Path) -> None:
    """The console's state and the pause asked mid-round are in every checkpoint: a box still
    to confirm, a pause that begins at the round's end, a round that has left the table and is
    corrected later (settled again from the play the checkpoint kept)."""
    sam, dana = Actor("supervisor", "sam"), Actor("dealer", "dana")

    def cards(codes: str) -> list[Event]:
        return [CardDrawn("shoe", parse_card(code)) for code in codes.split()]

    inputs: list[Event] = [
        PayoutConfirmationRequired(True), DealerAction("shuffle_done"), DealerAction("confirm_cut"),
        *cards("2S 2C 2D"), BetPlaced("1", "ann", "banker", 2000), BetPlaced("3", "bo", "player", 1000),
        DealerAction("no_more_bets"), *cards("2S 4H 3D 4C"),  # Banker wins round 1-1
        PayoutsConfirmed("1-1", ("3",), dana), DealerAction("next_round"),  # box 1 still to confirm
        PayoutsConfirmed("", (), dana), DealerAction("next_round"),
        BetPlaced("1", "ann", "player", 2000), DealerAction("no_more_bets"), *cards("2H"),
        PauseRequested(sam, "fill the float"), *cards("4S 3H 4D"),  # the pause begins as round 1-2 ends
        ResumeRequested(sam), PayoutsConfirmed("", (), dana), DealerAction("next_round"),
        BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 2000, "misread", sam),
    ]
    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4)
    run_live(path, options, inputs, every=1).close()
    records, outputs, _ = full_replay(path, options)
    assert assert_every_checkpoint_resumes_the_stream(path, options) >= 8
    seq_of = {type(o): r.seq for r, outs in zip(records, outputs, strict=True) for o in outs}
    checkpoints = [r.seq for r in records if r.kind == CHECKPOINT]

    def checkpoint_between(kind: type[out.Output], then: type[out.Output]) -> bool:
        return any(seq_of[kind] < seq < seq_of[then] for seq in checkpoints)

    assert checkpoint_between(out.PayoutsDue, out.PayoutsConfirmation)
    assert checkpoint_between(out.PausePending, out.TablePaused)
    assert checkpoint_between(out.RoundClosed, out.RoundCorrected)
    paused = next(o for outs in outputs for o in outs if isinstance(o, out.TablePaused))
    assert (paused.who, paused.reason) == ("sam", "fill the float")
    corrected = next(o for outs in outputs for o in outs if isinstance(o, out.RoundCorrected))
    # ann won 1,900 on Banker and bo lost 1,000 on Player; corrected, ann lost 2,000 on Player.
    assert corrected.round_id == "1-1" and (corrected.house_before, corrected.house_after) == (-900, 3000)


def test_a_restart_replays_only_what_follows_the_newest_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4)
    inputs = generate(7, 60, decks=4)
    half = len(inputs) // 2
    loop = run_live(path, options, inputs[:half], every=50)
    before = loop.snapshot()
    newest = loop.checkpoint_seq
    loop.close()
    reopened = CoreLoop(path, options, checkpoint_every=50)
    assert reopened.checkpoint_seq == newest > 0
    assert reopened.replayed <= 50 and reopened.snapshot() == before
    for event in inputs[half:]:
        reopened.post(event)
    reopened.run_pending()
    reopened.close()
    uninterrupted = run_live(tmp_path / "straight.sqlite3", options, inputs, every=50)
    assert reopened.snapshot() == uninterrupted.snapshot()
    uninterrupted.close()


def test_the_loop_checkpoints_at_every_shoe_end(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    loop = run_live(path, CoreOptions(decks=4), generate(2, 80, decks=4), every=EVERY_RECORDS)
    shoes = loop.machine.shoe.number
    loop.close()
    with JournalReader(path) as reader:
        reasons = [r.payload["reason"] for r in reader.records() if r.kind == CHECKPOINT]
    assert reasons.count("shoe_end") == shoes - 1 >= 1


def test_an_old_journal_without_checkpoints_opens_and_is_checkpointed_once(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    inputs = generate(4, 40, decks=4)
    with Journal(path) as journal:  # as a station before checkpoints wrote it: inputs only
        for start in range(0, len(inputs), 16):
            journal.append_many([(e.kind, event_to_dict(e)) for e in inputs[start:start + 16]])
    first = CoreLoop(path, CoreOptions(decks=4), checkpoint_every=100)
    assert first.replayed == len(inputs) and first.checkpoint_seq == len(inputs) + 1
    state = first.snapshot()
    first.close()
    again = CoreLoop(path, CoreOptions(decks=4), checkpoint_every=100)
    assert again.replayed == 0 and again.snapshot() == state
    again.close()


def test_a_checkpoint_that_cannot_be_read_back_is_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4)
    inputs = generate(9, 30, decks=4)
    run_live(path, options, inputs, every=40).close()
    with JournalReader(path) as reader:
        newest = reader.last_of_kind(CHECKPOINT)
        older = latest_checkpoint(reader, options, at_most=newest.payload["at"] - 1) if newest else None
    assert newest is not None and older is not None
    rewrite_journal(path, newest.seq, lambda payload: payload.update(state={"machine": "nonsense"}))
    reopened = CoreLoop(path, options, checkpoint_every=40)
    assert reopened.checkpoint_seq != newest.seq
    _, _, final = full_replay(path, options)
    assert reopened.snapshot() == final.machine.snapshot()
    reopened.close()


# --- verify --deep -----------------------------------------------------------------------


def _deep(path: Path, options: CoreOptions | None) -> Any:
    with JournalReader(path) as reader:
        return check_checkpoints(reader.records(), options)


def test_deep_verification_accepts_an_honest_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    run_live(path, CoreOptions(decks=4), generate(6, 50, decks=4), every=30).close()
    check = _deep(path, CoreOptions(decks=4))
    assert check.ok and check.checked >= 3, check.problem


def test_a_tampered_checkpoint_with_its_hash_recomputed_is_caught_by_the_deep_replay(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    run_live(path, CoreOptions(decks=4), generate(6, 50, decks=4), every=30).close()
    with JournalReader(path) as reader:
        target = [r for r in reader.records() if r.kind == CHECKPOINT][1]

    def richer_house(payload: dict[str, Any]) -> None:
        payload["state"]["machine"]["house_net"] += 50_000

    rewrite_journal(path, target.seq, richer_house)
    assert verify(path).ok  # the chain is consistent: only the replay can tell
    check = _deep(path, CoreOptions(decks=4))
    assert not check.ok and check.first_bad_seq == target.seq
    assert f"record {target.seq}: checkpoint differs" in check.problem and "machine.house_net" in check.problem


def test_a_checkpoint_other_software_would_now_write_otherwise_is_named(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A journal written by software that settled differently (a changed rule, a defect later
    fixed): the deep replay by this software names the first checkpoint that disagrees."""
    from station.core.round_steps import RoundSteps

    path = tmp_path / "j.sqlite3"
    original = RoundSteps._finish

    def finish_and_miscount(self: Any) -> None:
        original(self)
        self.house_net += 1  # the "old software": every round's house result one unit off

    with monkeypatch.context() as patched:
        patched.setattr(RoundSteps, "_finish", finish_and_miscount)
        run_live(path, CoreOptions(decks=4), generate(6, 30, decks=4), every=25).close()
    with JournalReader(path) as reader:
        first = next(r for r in reader.records() if r.kind == CHECKPOINT)
        settled_before = first.payload["state"]["machine"]["rounds_settled"]
    check = _deep(path, CoreOptions(decks=4))
    assert not check.ok and "machine.house_net" in check.problem
    assert check.first_bad_seq is not None and (settled_before == 0 or check.first_bad_seq == first.seq)


# --- a kill while a checkpoint is written --------------------------------------------------

CHILD = Path(__file__).with_name("checkpoint_child.py")


def _child(inputs: Path, journal: Path, out_path: Path, seed: int) -> Any:
    import os
    import subprocess
    import sys

    env = dict(os.environ, CHECKPOINT_CHILD_SEED=str(seed), PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.Popen([sys.executable, str(CHILD), str(inputs), str(journal), str(out_path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.e2e
def test_a_kill_while_a_checkpoint_is_written_loses_nothing(tmp_path: Path) -> None:
    """SIGKILL the moment the child starts writing a checkpoint, again and again: every time
    the journal verifies, opens, and stands where a replay from its first record stands; the
    session then finishes exactly as an uninterrupted run."""
    import json
    import random
    import signal

    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps([event_to_dict(e) for e in generate(13, 40, decks=4)]))
    reference_out = tmp_path / "reference.json"
    straight = _child(inputs, tmp_path / "reference.sqlite3", reference_out, 0)
    assert straight.wait(120) == 0, straight.stderr.read() if straight.stderr else ""
    reference = json.loads(reference_out.read_text())

    journal, finished = tmp_path / "killed.sqlite3", tmp_path / "killed.json"
    rng = random.Random(13)
    kills = 0
    for attempt in range(40):
        if kills >= 8:
            break
        child = _child(inputs, journal, finished, attempt)
        wanted = rng.randint(1, 3)
        seen = 0
        assert child.stdout is not None
        for line in child.stdout:
            seen += line.strip() == "checkpoint"
            if seen == wanted:
                child.send_signal(signal.SIGKILL)
                break
        code = child.wait(60)
        if code == 0:  # finished before the wanted checkpoint: start again
            finished.unlink()
            for leftover in tmp_path.glob("killed.sqlite3*"):
                leftover.unlink()
            continue
        assert code == -signal.SIGKILL, child.stderr.read() if child.stderr else ""
        kills += 1
        assert verify(journal).ok
        opened = CoreLoop(journal, CoreOptions(decks=4), checkpoint_every=5)
        _, _, replayed_from_start = full_replay(journal, CoreOptions(decks=4))
        assert opened.snapshot() == replayed_from_start.machine.snapshot()
        opened.close()
    assert kills >= 4
    last = _child(inputs, journal, finished, 99)
    assert last.wait(120) == 0, last.stderr.read() if last.stderr else ""
    assert json.loads(finished.read_text()) == reference
    with JournalReader(journal) as reader:
        assert check_checkpoints(reader.records(), CoreOptions(decks=4)).ok
