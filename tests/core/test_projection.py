"""The projection: a replay of the journal gives, record by record, the outputs the live run gave.

Every reader of the journal (the core loop after a restart, the floor feed, the integrity
monitor, recall) hears the journal through :class:`station.core.projection.Projection`. These
tests run real sessions through the core loop and a real journal, keep what each input gave
live, then read the journal back through a fresh projection and compare, record by record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

from station.core import outputs as out
from station.core.checkpoints import CHECKPOINT
from station.core.loop import CoreLoop, Verdict
from station.core.options import CoreOptions
from station.core.projection import UNJOURNALABLE_INPUT, Projection
from station.core.sessions import generate
from station.events import Actor, BetPlaced, DealerAction, Event, PauseRequested, ResumeRequested
from station.journal import JournalReader

from .test_fuzz import PRELUDE, events, option_sets


def live_run(path: Path, options: CoreOptions | None, inputs: list[Event]) -> tuple[list[tuple[out.Output, ...]],
                                                                                       list[out.Output]]:
    """Post every input to a real core loop; (what each input gave, every output delivered)."""
    loop = CoreLoop(path, options)
    heard: list[out.Output] = []
    loop.subscribe(heard.append)
    given_back: list[tuple[out.Output, ...]] = []

    def done(verdict: Verdict) -> None:
        given_back.append(verdict.outputs)

    for event in inputs:
        loop.post(event, on_done=done)
        loop.run_pending()  # one input a batch: its verdict comes before the next is posted
    loop.close()
    return given_back, heard


def replayed(path: Path, options: CoreOptions | None) -> list[tuple[str, tuple[out.Output, ...]]]:
    projection = Projection(options)
    with JournalReader(path) as reader:
        return [(record.kind, projection.take(record).outputs) for record in reader.records()]


def assert_same_stream(path: Path, options: CoreOptions | None, inputs: list[Event]) -> None:
    live, heard = live_run(path, options, inputs)
    every = replayed(path, options)
    # Derived data: a checkpoint says only that it is there (the integrity monitor checkpoints with it).
    assert all(len(outputs) == 1 and isinstance(outputs[0], out.Checkpointed)
               for kind, outputs in every if kind == CHECKPOINT)
    again = [(kind, outputs) for kind, outputs in every if kind != CHECKPOINT]
    assert len(again) == len(inputs) == len(live)
    for number, ((kind, outputs), given_live) in enumerate(zip(again, live, strict=True), start=1):
        assert outputs == given_live, f"record {number} ({kind}) gives other outputs in replay"
    assert [o for _, outputs in every for o in outputs] == heard


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=s.integers(0, 10_000), rounds=s.integers(1, 60))
def test_a_session_replays_to_the_outputs_it_gave_live(tmp_path: Path, seed: int, rounds: int) -> None:
    path = tmp_path / f"session-{seed}-{rounds}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    assert_same_stream(path, CoreOptions(decks=4), generate(seed, rounds, decks=4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=option_sets, sequence=s.lists(events, min_size=10, max_size=80))
def test_any_inputs_replay_to_the_outputs_they_gave_live(tmp_path: Path, options: CoreOptions,
                                                         sequence: list[Event]) -> None:
    path = tmp_path / f"fuzz-{abs(hash(tuple(sequence)))}.sqlite3"
    path.unlink(missing_ok=True)  # hypothesis may try an example again
    assert_same_stream(path, options, PRELUDE + sequence)


def test_the_stream_names_facts_as_fields(tmp_path: Path) -> None:
    """The last round, a round's id and its close come as typed fields, not words."""
    inputs = generate(3, 90, decks=4)
    live, _ = live_run(tmp_path / "j.sqlite3", CoreOptions(decks=4), inputs)
    stream = [o for outputs in live for o in outputs]
    last_round = [o for o in stream if isinstance(o, out.ExpectationChanged) and o.last_round]
    assert last_round and all("last round" in o.text for o in last_round)
    assert not any("last round" in o.text for o in stream if isinstance(o, out.ExpectationChanged)
                   and not o.last_round)
    closed = [o for o in stream if isinstance(o, out.RoundClosed)]
    settled = [o for o in stream if isinstance(o, out.RoundSettled)]
    assert closed and {o.round_id for o in settled} <= {o.round_id for o in closed} | {settled[-1].round_id}
    first = closed[0]
    assert (first.round_id.shoe, first.round_id.number) == (1, 1) and first.record["round_id"] == "1-1"
    assert first.record["opened_at"].endswith("Z")
    ended = [o for o in stream if isinstance(o, out.ShoeEnded)]
    assert ended and ended[0].shoe == 1


def test_refusals_and_who_took_a_decision_are_in_the_stream(tmp_path: Path) -> None:
    supervisor = Actor("supervisor", "sam")
    inputs: list[Event] = [DealerAction("shuffle_done"), DealerAction("no_more_bets"),
                           PauseRequested(supervisor, "count the float"), ResumeRequested(supervisor),
                           BetPlaced("1", "ann", "banker", 1000, Actor("dealer", "dee"))]
    path = tmp_path / "j.sqlite3"
    live, _ = live_run(path, None, inputs)
    refused = [o for o in live[1] if isinstance(o, out.Refused)]
    assert refused and refused[0].what == "DealerAction"
    assert out.TablePaused("supervisor", "sam", "count the float") in live[2]
    assert out.TableResumed("supervisor", "sam") in live[3]
    bet_refusal = next(o for o in live[4] if isinstance(o, out.Refused))
    assert (bet_refusal.role, bet_refusal.who) == ("dealer", "dee")
    assert_same_stream(tmp_path / "again.sqlite3", None, inputs)


def test_a_note_of_an_unjournalable_input_replays_as_its_refusal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    loop = CoreLoop(path)
    verdicts: list[Verdict] = []
    loop.post(DealerAction("shuffle_done"))
    loop.post(BetPlaced("1", "ann\udcff", "banker", 1000), on_done=verdicts.append)
    loop.run_pending()
    loop.close()
    assert not verdicts[0].applied
    kinds: list[Any] = [kind for kind, _ in replayed(path, None)]
    assert UNJOURNALABLE_INPUT in kinds
    notes = [outputs for kind, outputs in replayed(path, None) if kind == UNJOURNALABLE_INPUT]
    assert notes == [verdicts[0].outputs]


def test_recall_reads_the_rounds_from_the_stream(tmp_path: Path) -> None:
    from station.core.recall import recall_rounds

    inputs = generate(5, 20, decks=4)
    path = tmp_path / "j.sqlite3"
    live, _ = live_run(path, CoreOptions(decks=4), inputs)
    closed = [o for outputs in live for o in outputs if isinstance(o, out.RoundClosed)]
    rounds = recall_rounds(path, CoreOptions(decks=4))
    finished = [r for r in rounds if not r["in_progress"]]
    assert [r["round_id"] for r in finished] == [o.round_id for o in closed]
    assert all(r["opened_at"] and r["closed_at"] >= r["opened_at"] for r in finished)
    assert rounds[0]["shoe_opening"] is not None and rounds[1]["shoe_opening"] is None
