"""The one way features hear the core loop (station/core/tap.py), on a real loop and journal:
any number of record hearers and commit hooks, each hearing everything from when it starts to
when it stops, in journal order, a failing one logged and passed over."""

from __future__ import annotations

from pathlib import Path

import structlog

from station.cards import parse_card
from station.core import outputs as out
from station.core.loop import CoreLoop
from station.core.projection import ProjectedRecord
from station.events import CardDrawn, DealerAction
from station.journal import JournalReader


def test_every_hearer_hears_every_record_and_commit_in_journal_order(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    first: list[ProjectedRecord] = []
    second: list[ProjectedRecord] = []
    commits: list[tuple[int, int, str]] = []
    other_commits: list[int] = []
    with CoreLoop(path, checkpoint_every=5) as loop:
        loop.hear_records(first.append)
        stop_second = loop.hear_records(second.append)
        loop.hear_commits(lambda _seconds, count, seq, digest: commits.append((count, seq, digest)))
        loop.hear_commits(lambda _seconds, _count, seq, _digest: other_commits.append(seq))
        loop.post(DealerAction("shuffle_done"))
        loop.run_pending()
        loop.note("TestNote", {"n": 1})  # a record of a feature's own
        loop.post(DealerAction("confirm_cut"))
        loop.post(CardDrawn("shoe", parse_card("2S")))
        loop.run_pending()
        stop_second()
        loop.post(CardDrawn("shoe", parse_card("2C")))
        loop.post(CardDrawn("shoe", parse_card("2D")))
        loop.run_pending()
        head = loop.journal.head()
    with JournalReader(path) as reader:
        written = [(record.seq, record.kind) for record in reader.records()]
    heard = [(step.record.seq, step.record.kind) for step in first]
    assert heard == written  # inputs, the note and the checkpoints, each once, in order
    assert any(kind == "TestNote" for _, kind in heard) and any(kind == "Checkpoint" for _, kind in heard)
    assert [step.event is None for step in first] == [kind in ("TestNote", "Checkpoint") for _, kind in heard]
    assert any(isinstance(o, out.StateChanged) for step in first for o in step.outputs)
    assert [step.record.seq for step in second] == [seq for seq, _ in written][:len(second)]
    assert len(second) < len(first)  # it stopped hearing when it said so
    assert sum(count for count, _, _ in commits) == len(written)
    assert (commits[-1][1], commits[-1][2]) == head and other_commits == [seq for _, seq, _ in commits]


def test_a_failing_hearer_is_logged_and_the_loop_and_the_others_go_on(tmp_path: Path) -> None:
    heard: list[int] = []

    def broken(_step: ProjectedRecord) -> None:
        raise ValueError("a feature's bug")

    with CoreLoop(tmp_path / "journal.sqlite3") as loop, structlog.testing.capture_logs() as logs:
        loop.hear_records(broken)
        loop.hear_records(lambda step: heard.append(step.record.seq))
        loop.hear_commits(lambda *_: (_ for _ in ()).throw(RuntimeError("a hook's bug")))
        loop.post(DealerAction("shuffle_done"))
        loop.post(DealerAction("confirm_cut"))
        loop.run_pending()
        assert loop.state != "shuffling"  # the loop went on
    assert heard == [1, 2]
    events = [entry["event"] for entry in logs]
    assert events.count("core.record_hearer_failed") == 2 and "core.commit_hook_failed" in events


def test_a_batch_hook_hears_each_batch_end_after_all_of_its_outputs(tmp_path: Path) -> None:
    """A picture drawn at a batch's end holds every output of it: the hook comes after the
    outputs of every input of the batch and after the published snapshot is replaced."""
    told: list[tuple[str, int]] = []  # ("output", n) per output heard, ("end", seq published) per batch end
    with CoreLoop(tmp_path / "journal.sqlite3") as loop:
        loop.subscribe(lambda _output: told.append(("output", 0)))
        stop = loop.hear_batches(lambda: told.append(("end", loop.published.seq)))
        loop.post(DealerAction("shuffle_done"))
        loop.post(DealerAction("confirm_cut"))  # the same batch: one end for both
        loop.run_pending()
        ended_at = loop.journal.head()[0]
        loop.post(CardDrawn("shoe", parse_card("2S")))
        loop.run_pending()
        stop()
        loop.post(CardDrawn("shoe", parse_card("2C")))
        loop.run_pending()
    ends = [n for n, (kind, _) in enumerate(told) if kind == "end"]
    assert len(ends) == 2  # two batches while it heard, none after it stopped
    assert told[ends[0]] == ("end", ended_at)  # published already holds the whole batch
    assert ends[0] > 0 and all(kind == "output" for kind, _ in told[:ends[0]])
    assert told[ends[0] + 1:ends[1]] and all(kind == "output" for kind, _ in told[ends[0] + 1:ends[1]])
    assert told[-1][0] == "output"  # the last batch's outputs were heard, its end was not


def test_a_failing_batch_hook_is_logged_and_the_loop_goes_on(tmp_path: Path) -> None:
    with CoreLoop(tmp_path / "journal.sqlite3") as loop, structlog.testing.capture_logs() as logs:
        loop.hear_batches(lambda: (_ for _ in ()).throw(RuntimeError("a hook's bug")))
        loop.post(DealerAction("shuffle_done"))
        loop.run_pending()
        loop.post(DealerAction("confirm_cut"))
        loop.run_pending()
        assert loop.state != "shuffling"
    assert [entry["event"] for entry in logs].count("core.batch_hook_failed") == 2
