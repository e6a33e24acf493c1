"""The core loop itself: thread-safe posting, journal first, replay rules, subscribers."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from station.cards import parse_card
from station.core import loop as loop_module
from station.core import outputs as out
from station.core.loop import CoreLoop, CoreReplayError, Verdict
from station.core.options import CoreOptions
from station.events import BetPlaced, CardDrawn, DealerAction
from station.journal import Journal, JournalError

from ..waiting import stays_false, wait_until


def test_events_posted_from_many_threads_are_all_journaled_then_applied(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    heard: list[out.Output] = []
    loop.subscribe(heard.append)
    loop.post(DealerAction("shuffle_done"))
    loop.post(DealerAction("confirm_cut"))
    for code in ("2S", "2C", "2D"):
        loop.post(CardDrawn("shoe", parse_card(code)))
    thread = loop.start()

    def bettor(box: str) -> None:
        for i in range(20):
            loop.post(BetPlaced(box, f"p{i % 3}", "player", 1000))

    workers = [threading.Thread(target=bettor, args=(str(b),)) for b in (1, 2, 3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wait_until(lambda: loop.machine.events_applied >= 65, 20, "the 65 events applied",
               detail=lambda: f"{loop.machine.events_applied} applied")
    loop.stop()
    assert not thread.is_alive()
    assert loop.machine.events_applied == 65
    assert sum(1 for _ in loop.journal.records()) == 65
    assert loop.machine.round is not None
    bets = loop.machine.round.bets
    assert sum(bets.values()) == 60 * 1000 and len(bets) == 9
    assert len([o for o in heard if isinstance(o, out.BetAccepted)]) == 60
    loop.close()


class _FailingJournal(Journal):
    """A real journal whose disk write fails on demand (the quick form of a full disk; the
    real one, a small file system filled up, is in tests/service/test_disk_full.py)."""

    fail = False

    def append_many(self, items: Any) -> Any:
        if self.fail:
            raise JournalError("database or disk is full")
        return super().append_many(items)


def test_nothing_is_applied_that_was_not_journaled_and_the_loop_waits_for_the_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop_module, "JOURNAL_RETRY_S", 0.02)
    journal = _FailingJournal(tmp_path / "j.sqlite3")
    beats: list[float] = []
    loop = CoreLoop(journal, CoreOptions(), heartbeat=lambda: beats.append(time.monotonic()))
    heard: list[out.Output] = []
    loop.subscribe(heard.append)
    loop.post(DealerAction("shuffle_done"))
    loop.run_pending()
    journal.fail = True
    thread = loop.start()
    loop.post(DealerAction("confirm_cut"))
    wait_until(lambda: loop.journal_error is not None, 10, "the loop to find the journal unwritable", poll=0.01)
    stays_false(lambda: loop.state != "cutting" or loop.machine.events_applied != 1, 0.2,
                "an event applied that was not journaled", detail=lambda: (loop.state, loop.machine.events_applied))
    # The station is alive and says so (the watchdog keeps being fed) while it waits for the disk.
    wait_until(lambda: len(beats) >= 3, 10, "three heartbeats while the journal is unwritable", poll=0.01)
    assert loop.state == "cutting" and loop.machine.events_applied == 1  # nothing unjournaled applied
    assert [o for o in heard if isinstance(o, out.JournalUnwritable)] == [
        out.JournalUnwritable("database or disk is full")
    ]
    journal.fail = False  # space is back
    wait_until(lambda: loop.state == "burning", 10, "the loop to go on once space is back", poll=0.01,
               detail=lambda: loop.state)
    assert loop.journal_error is None and any(isinstance(o, out.JournalWritable) for o in heard)
    loop.stop()
    assert not thread.is_alive()
    assert [r.kind for r in loop.journal.records()] == ["DealerAction", "DealerAction"]
    loop.close()


def test_a_record_the_journal_refuses_is_refused_alone_and_the_batch_goes_on(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    verdicts: list[Verdict] = []
    loop.post(DealerAction("shuffle_done"))
    loop.post(DealerAction("reveal", box="\udfff"), on_done=verdicts.append)  # a lone surrogate
    loop.post(DealerAction("confirm_cut"))
    loop.run_pending()
    assert loop.state == "burning"  # the events around it were journaled and applied
    assert [v.applied for v in verdicts] == [False]
    assert verdicts[0].reason.startswith("cannot be journaled: DealerAction payload.box: text that is not valid")
    kinds = [r.kind for r in loop.journal.records()]
    assert kinds == ["UnjournalableInput", "DealerAction", "DealerAction"]
    assert loop.unjournalable == 1
    loop.close()
    again = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())  # and replay takes the note in its stride
    assert (again.state, again.projection.skipped) == ("burning", 1)
    again.close()


def test_whoever_posts_may_hear_whether_the_event_was_applied_or_refused(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    verdicts: list[Verdict] = []
    loop.post(DealerAction("shuffle_done"), on_done=verdicts.append)
    loop.post(DealerAction("shuffle_done"), on_done=verdicts.append)  # not while cutting
    loop.run_pending()
    assert verdicts[0].applied and verdicts[0].reason == ""
    assert not verdicts[1].applied and verdicts[1].reason
    loop.close()


def test_an_exception_while_applying_latches_an_irregularity_live_and_in_replay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from station.core.machine import TableMachine

    original = TableMachine.apply

    def broken(self: TableMachine, event: Any) -> None:
        if isinstance(event, DealerAction) and event.action == "confirm_cut":
            raise KeyError("a bug in the cut")
        original(self, event)

    monkeypatch.setattr(TableMachine, "apply", broken)
    path = tmp_path / "j.sqlite3"
    loop = CoreLoop(path, CoreOptions())
    heard: list[out.Output] = []
    loop.subscribe(heard.append)
    loop.post(DealerAction("shuffle_done"))
    loop.post(DealerAction("confirm_cut"))
    loop.post(DealerAction("shuffle_done"))  # nothing goes on by itself after the latch
    loop.run_pending()
    assert loop.state == "irregularity" and loop.failures == 1
    problem = loop.machine.irregularity
    assert problem is not None and problem.reason == "internal_error"
    assert "KeyError: 'a bug in the cut' (while applying DealerAction)" in problem.detail
    assert problem.decisions == ("resume",)  # no round is open: nothing to void
    raised = [o for o in heard if isinstance(o, out.IrregularityRaised)]
    assert raised and raised[0].reason == "internal_error"
    loop.close()
    replayed = CoreLoop(path, CoreOptions())  # replay latches at the same input
    irregularity = replayed.machine.irregularity
    assert replayed.state == "irregularity" and irregularity is not None and irregularity.reason == "internal_error"
    replayed.close()


def test_replay_skips_records_that_are_not_events_and_refuses_broken_ones(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        journal.append("DealerAction", {"type": "DealerAction", "action": "shuffle_done"})
        journal.append("ServiceStarted", {"version": "1"})
    loop = CoreLoop(path, CoreOptions())
    assert (loop.replayed, loop.projection.skipped, loop.state) == (1, 1, "cutting")
    loop.close()
    with Journal(path) as journal:
        journal.append("CardDrawn", {"type": "CardDrawn", "device": "shoe", "card": "ZZ"})
    with pytest.raises(CoreReplayError, match="record 3 \\(CardDrawn\\)"):
        CoreLoop(path, CoreOptions())


def test_a_failing_subscriber_does_not_stop_the_others(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    heard: list[out.Output] = []

    def broken(_: out.Output) -> None:
        raise RuntimeError("display unplugged")

    loop.subscribe(broken)
    unsubscribe = loop.subscribe(heard.append)
    loop.post(DealerAction("shuffle_done"))
    loop.run_pending()
    assert [type(o) for o in heard] == [out.StateChanged, out.ExpectationChanged]
    unsubscribe()
    loop.post(DealerAction("confirm_cut"))
    loop.run_pending()
    assert len(heard) == 2
    loop.close()


def test_only_events_may_be_posted(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    with pytest.raises(TypeError):
        loop.post("shuffle_done")  # type: ignore[arg-type]  # text, not an event, on purpose
    loop.close()


def test_heartbeat_is_called_from_the_loop(tmp_path: Path) -> None:
    beats: list[str] = []
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions(),
                    heartbeat=lambda: beats.append(threading.current_thread().name))
    loop.start()
    wait_until(lambda: len(beats) >= 2, 10, "two heartbeats", poll=0.05)
    loop.close()
    assert beats and set(beats) == {"core-loop"}


class _CountingJournal(Journal):
    """A real journal that notes the size of every group it is asked to write."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.groups: list[int] = []

    def append_many(self, items: Any) -> Any:
        self.groups.append(len(items))
        return super().append_many(items)


def test_a_busy_table_gathers_events_arriving_within_the_commit_window(tmp_path: Path) -> None:
    """Events that arrived while the last batch was processed mean more are coming: the loop
    waits the window for them to share the next fsync, and writes the batch as soon as it is
    full (so this test never waits the 30 s window)."""
    journal = _CountingJournal(tmp_path / "j.sqlite3")
    loop = CoreLoop(journal, CoreOptions(), batch_limit=2, commit_window=30.0)
    # The cut is posted while the shuffle is being applied: a backlog.
    loop.subscribe(lambda output: loop.post(DealerAction("confirm_cut")) if journal.groups == [1] and
                   isinstance(output, out.StateChanged) else None)
    loop.post(DealerAction("shuffle_done"))
    late = threading.Timer(0.05, lambda: loop.post(CardDrawn("shoe", parse_card("2S"))))
    late.start()
    started = time.monotonic()
    assert loop.run_pending() == 3
    assert time.monotonic() - started < 10  # not the 30 s window
    late.join()
    assert journal.groups == [1, 2]  # the card posted 50 ms later joined the cut's batch
    assert [r.kind for r in journal.records()] == ["DealerAction", "DealerAction", "CardDrawn"]
    loop.close()


def test_an_event_after_the_loop_caught_up_is_written_at_once(tmp_path: Path) -> None:
    """Nothing was waiting when the last batch was done (a dealer's pace, or a dealer waiting
    for the station's answer): the next event waits for no window."""
    journal = _CountingJournal(tmp_path / "j.sqlite3")
    loop = CoreLoop(journal, CoreOptions(), commit_window=30.0)
    for action in ("shuffle_done", "confirm_cut"):
        loop.post(DealerAction(action))
        started = time.monotonic()
        assert loop.run_pending() == 1
        assert time.monotonic() - started < 10  # not the 30 s window
    assert journal.groups == [1, 1]
    loop.close()


_SIGNAL_DURING_WAIT = """
import signal, sys, tempfile, threading, time
from station.core.loop import CoreLoop
from station.core.options import CoreOptions

loop = CoreLoop(tempfile.mkdtemp() + "/j.sqlite3", CoreOptions())
# A signal handler that runs past the end of the loop's wait for events (as the station's
# own SIGTERM handler can, on a busy machine): its 0.4 s sleep is the deliberate moment the
# test is about, not a wait for readiness.
signal.signal(signal.SIGUSR1, lambda *_: time.sleep(0.4))
main = threading.main_thread().ident
threading.Timer(0.1, lambda: signal.pthread_kill(main, signal.SIGUSR1)).start()
threading.Timer(1.0, loop.stop).start()
loop.run(poll_seconds=0.2)
print("stopped")
"""


@pytest.mark.e2e
def test_a_signal_during_the_loops_wait_does_not_hang_it() -> None:
    """CPython 3.11's ``SimpleQueue.get(timeout)`` waits forever when a signal handler runs past
    its deadline (it turns the negative time left into "no timeout"); a station then never
    acted on SIGTERM. The loop's queue must give up on time all the same."""
    run = subprocess.run([sys.executable, "-c", _SIGNAL_DURING_WAIT], capture_output=True, text=True, timeout=15)
    assert run.returncode == 0 and run.stdout.strip().endswith("stopped"), run.stderr[-2000:]


def test_a_subscriber_that_names_its_kinds_hears_only_those(tmp_path: Path) -> None:
    loop = CoreLoop(tmp_path / "j.sqlite3", CoreOptions())
    every: list[out.Output] = []
    states: list[out.Output] = []
    loop.subscribe(every.append)
    unsubscribe = loop.subscribe(states.append, (out.StateChanged,))
    loop.post(DealerAction("shuffle_done"))
    loop.run_pending()
    assert states and all(isinstance(o, out.StateChanged) for o in states)
    assert [o for o in every if isinstance(o, out.StateChanged)] == states
    assert any(not isinstance(o, out.StateChanged) for o in every)  # an expectation, at least
    unsubscribe()
    heard = len(states)
    loop.post(DealerAction("confirm_cut"))
    loop.run_pending()
    assert len(states) == heard and len(every) > heard
    loop.close()
