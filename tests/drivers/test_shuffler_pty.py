"""The shuffler over a pty: batch shuffles, deck checks, continuous returns, jams and the door."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec.protocol import NakCode
from drivers.devices import DeviceRefused, ShufflerDriver
from drivers.simulators import CardPool, ShoeSimulator, ShufflerSimulator, start_simulator
from station import events as ev
from station.cards import FULL_DECK, parse_card
from station.events import ShufflerState

from .helpers import FAST, WAIT, Recorder


def _connect(sim: ShufflerSimulator, rec: Recorder) -> ShufflerDriver:
    driver = ShufflerDriver("shuffler", sim.url, rec, settings=FAST)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)
    return driver


@pytest.fixture
def batch(rec: Recorder) -> Iterator[tuple[ShufflerSimulator, ShufflerDriver]]:
    running = start_simulator("shuffler", decks=6, set_colour="blue", seed=3, ack_timeout=0.05)
    sim: ShufflerSimulator = running.simulator
    driver = _connect(sim, rec)
    yield sim, driver
    driver.stop()
    running.stop()


def test_batch_shuffle_reports_progress_then_done_and_hands_over_a_shuffled_set(batch, rec: Recorder) -> None:
    sim, driver = batch
    info = driver.status()
    assert (info.state, info.mode, info.set_colour, info.cards_held) == (ShufflerState.IDLE, "batch", "blue", 312)
    before = sim.held_cards()
    driver.start_shuffle()
    done = rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.DONE)[0]
    assert isinstance(done, ev.ShufflerStatus)
    assert done.set_colour == "blue" and done.progress == 100
    progress = [e.progress for e in rec.of(ev.ShufflerStatus)]
    assert progress == sorted(progress) and progress[0] == 0 and 0 < progress[1] < 100
    cards = sim.take_set()
    assert sorted(cards) == sorted(before) and cards != before
    assert driver.status().state is ShufflerState.IDLE


def test_start_shuffle_refusals_are_clear_errors(batch) -> None:
    sim, driver = batch
    sim.open_door()
    with pytest.raises(DeviceRefused) as refused:
        driver.start_shuffle()
    assert refused.value.code is NakCode.DOOR_OPEN and "door" in str(refused.value)
    sim.close_door()
    sim.load_set([])
    with pytest.raises(DeviceRefused) as refused:
        driver.start_shuffle()
    assert refused.value.code is NakCode.NOT_ALLOWED_NOW


def test_jam_mid_shuffle_is_reported_and_can_be_cleared(batch, rec: Recorder) -> None:
    sim, driver = batch
    sim.step_delay = 0.2
    driver.start_shuffle()
    sim.jam("card stuck in the gripper")
    jam = rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.JAM)[0]
    assert isinstance(jam, ev.ShufflerStatus)
    assert jam.detail == "card stuck in the gripper"
    assert not driver.self_test().passed
    with pytest.raises(DeviceRefused):
        driver.start_shuffle()
    sim.clear_jam()
    rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.IDLE)
    assert driver.status().state is ShufflerState.IDLE


def test_deck_check_counts_every_card_and_names_missing_and_extra(batch, rec: Recorder) -> None:
    sim, driver = batch
    full = driver.deck_check()
    assert full.complete and full.decks == 6 and dict(full.counts) == {c.code: 6 for c in FULL_DECK}
    sim.remove_cards([parse_card("AS"), parse_card("AS"), parse_card("9D")])
    sim.add_cards([parse_card("KH")])
    check = driver.deck_check()
    assert sorted(check.missing) == ["9D", "AS", "AS"]
    assert check.extra == ("KH",)
    assert dict(check.counts)["AS"] == 4 and dict(check.counts)["KH"] == 7
    emitted = rec.of(ev.DeckCheck)
    assert emitted[-1] == check and len(emitted) == 2


def test_continuous_shuffler_and_shoe_share_one_pool(rec: Recorder) -> None:
    pool = CardPool.of_decks(4, seed=9)
    with start_simulator("shuffler", mode="continuous", decks=4, pool=pool, ack_timeout=0.05) as running:
        sim: ShufflerSimulator = running.simulator
        shoe = ShoeSimulator(ack_timeout=0.05)
        shoe.attach_pool(pool)
        driver = _connect(sim, rec)
        try:
            assert driver.status().mode == "continuous"
            round_cards = [shoe.draw() for _ in range(5)]
            assert len(pool) == 203
            sim.return_cards(round_cards)  # type: ignore[arg-type]  # a shoe fed from the pool has no cut card
            returned = rec.wait_kind(ev.CardsReturned)[0]
            assert returned.count == 5
            rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.READY)
            assert len(pool) == 208 and driver.deck_check().complete
            with pytest.raises(DeviceRefused):
                driver.start_shuffle()
        finally:
            driver.stop()
            shoe.stop()


def test_unplugged_shuffler_reports_the_fault_and_the_done_state_after_replug(batch, rec: Recorder) -> None:
    sim, driver = batch
    driver.start_shuffle()
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    assert sim.wait_shuffled(WAIT)  # the shuffle finished while the cable was out
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.DONE)
    done = [e for e in rec.of(ev.ShufflerStatus) if e.state is ShufflerState.DONE]
    assert len(done) == 1


def test_progress_survives_garbage_bad_crcs_and_lost_acks_without_duplicates(batch, rec: Recorder) -> None:
    sim, driver = batch
    sim.inject_garbage(b"\x10\x10\x02\x99\x03junk")
    sim.corrupt_next_frames(2)
    sim.ignore_acks(2)
    driver.start_shuffle()
    rec.wait_matching(lambda e: isinstance(e, ev.ShufflerStatus) and e.state is ShufflerState.DONE)
    assert sim.wait_idle(WAIT)
    states = [(e.state, e.progress) for e in rec.of(ev.ShufflerStatus)]
    assert states == [(ShufflerState.SHUFFLING, 0), (ShufflerState.SHUFFLING, 25), (ShufflerState.SHUFFLING, 50),
                      (ShufflerState.SHUFFLING, 75), (ShufflerState.DONE, 100)]
    assert driver.stats.duplicates >= 1 and driver.stats.errors_by_kind.get("bad_crc", 0) >= 1
