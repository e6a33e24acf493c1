"""The integrity monitor's checkpoints: exact state, a restart that reads only the last stretch,
and a deep replay that checks them (settings changed between restarts included)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from station.cards import FULL_DECK, ShoeComposition
from station.core import outputs as out
from station.core.checkpoints import check_checkpoints
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.projection import Projection
from station.core.rounds import RoundId
from station.core.sessions import generate
from station.events import Event
from station.integrity.checkpoints import MonitorCheck
from station.integrity.monitor import IntegrityMonitor, IntegritySettings
from station.integrity.monitor_state import monitor_state, restore_monitor, settings_from
from station.integrity.service import INTEGRITY_CHECKPOINT, IntegrityService
from station.journal import JournalReader, canonical_json
from station.journal.verify import verify

from ..forgery import rewrite_journal

SETTINGS = IntegritySettings(repeat_depth=3, window_rounds=60, advantage_percent=0.5)


def _plain(value: Any) -> Any:
    return json.loads(canonical_json(value))


def session_outputs(options: CoreOptions, rounds: int, seed: int) -> list[out.Output]:
    """The monitor's outputs of a real session, from the projection."""
    from station.core.machine import TableMachine

    machine = TableMachine(options)
    stream: list[out.Output] = []
    for event in generate(seed, rounds, decks=options.decks):
        machine.apply(event)
        stream += [o for o in machine.take_outputs() if isinstance(o, IntegrityMonitor.KINDS)]
    return stream


def continuous_outputs(rounds: int, seed: int) -> list[out.Output]:
    """A continuous shuffler's session: each round's cards out and back, results at random."""
    rng = random.Random(seed)
    comp = ShoeComposition(8)
    left = lambda: tuple(comp.count(c) for c in FULL_DECK)  # noqa: E731
    stream: list[out.Output] = [out.CardsAccounted(1, "", "start", (), left(), 8)]
    for n in range(1, rounds + 1):
        rid = RoundId(1, n)
        outcome = rng.choice(["banker", "player", "banker", "player", "tie"])
        stream.append(out.RoundSettled(rid, "baccarat", (), (), outcome, False, False, False, (), 0))
        cards = tuple(rng.sample(FULL_DECK, 5))
        stream.append(out.CardsAccounted(1, rid, "round", cards, left(), 8))
    return stream


def dealt_to_the_end(seed: int) -> list[out.Output]:
    """One 4-deck shoe dealt to its last dozen cards: deep in a shoe the offered wagers'
    edges swing, and advantage situations begin and go on over several rounds."""
    rng = random.Random(seed)
    comp = ShoeComposition(4)
    left = lambda: tuple(comp.count(c) for c in FULL_DECK)  # noqa: E731
    shoe = [card for card in FULL_DECK for _ in range(4)]
    rng.shuffle(shoe)
    stream: list[out.Output] = [out.CardsAccounted(1, "", "start", (), left(), 4)]
    n = 0
    while len(shoe) > 12:
        n += 1
        rid = RoundId(1, n)
        outcome = rng.choice(["banker", "player", "tie"])
        stream.append(out.RoundSettled(rid, "baccarat", (), (), outcome, False, False, False, (), 0))
        cards, shoe = tuple(shoe[:5]), shoe[5:]
        comp.remove_all(cards)
        stream.append(out.CardsAccounted(1, rid, "round", cards, left(), 4))
    return stream


def assert_resumes_exactly(options: CoreOptions, stream: list[out.Output], cuts: list[int]) -> None:
    whole = IntegrityMonitor(options, SETTINGS)
    findings = [whole.feed(o) for o in stream]
    for cut in cuts:
        before = IntegrityMonitor(options, SETTINGS)
        for o in stream[:cut]:
            before.feed(o)
        state = json.loads(canonical_json(monitor_state(before)))
        resumed = restore_monitor(options, SETTINGS, state)
        assert _plain(monitor_state(resumed)) == state
        assert [resumed.feed(o) for o in stream[cut:]] == findings[cut:], f"findings differ after output {cut}"
        assert _plain(monitor_state(resumed)) == _plain(monitor_state(whole))


def test_the_state_carries_every_shoe_crossing_fact() -> None:
    options = CoreOptions(decks=4)
    stream = session_outputs(options, 260, seed=4)
    assert sum(isinstance(o, out.CardsAccounted) and o.stage == "end" for o in stream) >= 4  # earlier shoes count
    assert_resumes_exactly(options, stream, [1, 7, len(stream) // 3, len(stream) // 2, len(stream) - 3])


def test_an_advantage_situation_goes_on_across_a_checkpoint_without_being_raised_again() -> None:
    options = CoreOptions(decks=4)
    stream = dealt_to_the_end(0)
    monitor = IntegrityMonitor(options, IntegritySettings(advantage_percent=0.5))
    began = [i for i, o in enumerate(stream) if any(f.code == "advantage_situation" for f in monitor.feed(o))]
    assert began
    assert_resumes_exactly(options, stream, [began[0] + 2, began[-1], began[-1] + 2])


def test_a_continuous_session_resumes_its_blocks_and_keeps_no_cards() -> None:
    options = CoreOptions(decks=8, equipment="continuous")
    stream = continuous_outputs(200, seed=9)
    assert_resumes_exactly(options, stream, [2, 81, 150, 161])
    monitor = IntegrityMonitor(options, SETTINGS)
    for o in stream:
        monitor.feed(o)
    assert monitor.shoe is not None and monitor.shoe.cards == [] and monitor.shoe.cards_read == 1000
    assert len(monitor.shoe.results) == SETTINGS.block_rounds and monitor.shoe.results_count == 200


# --- through the station's loop -----------------------------------------------------------


def run(journal: Path, options: CoreOptions, inputs: list[Event], settings: IntegritySettings,
        every: int = 200) -> tuple[IntegrityService, int]:
    """The inputs through a real core loop with its integrity service; (service, head)."""
    with CoreLoop(journal, options, checkpoint_every=every) as loop:
        service = IntegrityService(loop.post, options, settings, journal, loop.journal.head()[0], note=loop.note)
        loop.subscribe(service.on_output, IntegrityService.KINDS)
        service.start()
        assert service.caught_up.wait(30)
        for start in range(0, len(inputs), 5):
            for event in inputs[start:start + 5]:
                loop.post(event)
            loop.run_pending()
            assert service.wait_idle(30)
        loop.run_pending()  # the monitor's last checkpoint
        service.stop()
        return service, loop.journal.head()[0]


def fed_from_the_first_record(journal: Path, options: CoreOptions, settings: IntegritySettings,
                              upto: int) -> IntegrityMonitor:
    projection, monitor = Projection(options), IntegrityMonitor(options, settings)
    with JournalReader(journal) as reader:
        for record in reader.records():
            if record.seq > upto:
                break
            for o in projection.take(record).outputs:
                if isinstance(o, IntegrityMonitor.KINDS):
                    monitor.feed(o)
    return monitor


def test_a_restart_starts_the_monitor_from_its_newest_checkpoint(tmp_path: Path) -> None:
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    inputs = generate(11, 150, decks=4)
    _, head = run(journal, options, inputs, SETTINGS)
    with JournalReader(journal) as reader:
        marks = [r for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT]
    assert len(marks) >= 3
    posted: list[Any] = []
    again = IntegrityService(posted.append, options, SETTINGS, journal, head)
    again.start()
    assert again.caught_up.wait(30) and again.wait_idle(30)
    again.stop()
    assert again.resumed_from == marks[-1].seq
    assert posted == []  # nothing found twice
    assert _plain(monitor_state(again.monitor)) == _plain(monitor_state(
        fed_from_the_first_record(journal, options, SETTINGS, head)))


def _deep(journal: Path, options: CoreOptions) -> MonitorCheck:
    with JournalReader(journal) as reader:
        first = reader.first_of_kind(INTEGRITY_CHECKPOINT)
        check = MonitorCheck(options, settings_from(first.payload["settings"]) if first is not None else None)
        assert check_checkpoints(reader.records(), options, observe=check).ok
    return check


def test_the_deep_replay_checks_the_monitors_checkpoints_across_a_change_of_settings(tmp_path: Path) -> None:
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    inputs = generate(12, 160, decks=4)
    run(journal, options, inputs[: len(inputs) // 2], SETTINGS)
    other = IntegritySettings(repeat_depth=1, window_rounds=50, advantage_percent=0.5)
    run(journal, options, inputs[len(inputs) // 2:], other)  # restarted under other settings
    check = _deep(journal, options)
    assert check.ok and check.checked >= 4 and check.not_compared == 0, check.words()


def test_a_tampered_monitor_checkpoint_is_named(tmp_path: Path) -> None:
    journal, options = tmp_path / "j.sqlite3", CoreOptions(decks=4)
    run(journal, options, generate(13, 120, decks=4), SETTINGS)
    with JournalReader(journal) as reader:
        target = [r for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT][1]

    def an_earlier_shoe_forgotten(body: dict[str, Any]) -> None:
        body["monitor"]["earlier"] = body["monitor"]["earlier"][1:]

    rewrite_journal(journal, target.seq, an_earlier_shoe_forgotten)  # the chain re-hashed after it
    assert verify(journal).ok
    check = _deep(journal, options)
    assert not check.ok and check.first_bad_seq == target.seq and "monitor.earlier" in check.problem
