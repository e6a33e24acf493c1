"""Guard tests of the serial drivers and their link, second set (the ``drivers`` mutation
guard, docs/testing.md), each against a simulator on a pseudo-terminal (one of them made to
answer late, or with a list from before, on purpose) or a driver not started.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the display board is shown the outcome it is given as the wire's own ``WireOutcome`` as it
  is, and limits left out go as 0 (``drivers/devices/display.py``, ``_outcome`` and
  ``show_limits``);
* the chip reader's antenna list, asked for while a restore and a fault of other antennas came
  as events, is asked for again, never applied over them: the station is never told of a fault
  that was already over (``drivers/devices/chipreader.py``: every antenna event counts, a
  fault as much as a restore);
* an answer to a command's copy that came after the command was answered is counted as a
  stale response, each once (``drivers/devices/link.py``);
* a deck check waits at least 2 s for the count of the set, even on a link whose replies are
  awaited for less: it is sent once (``drivers/devices/shuffler.py``);
* a serial driver is given either ``settings=`` or single link options, not both
  (``drivers/devices/base.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.codec import chipreader as wire
from drivers.codec import display as display_wire
from drivers.codec.protocol import Message
from drivers.devices import ChipReaderDriver, DisplayDriver, ShoeDriver, ShufflerDriver
from drivers.devices.display import WireOutcome
from drivers.simulators import ChipReaderSimulator, DisplaySimulator, ShoeSimulator, ShufflerSimulator, start_simulator
from station import events as ev

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def board(rec: Recorder) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    running = start_simulator("display", ack_timeout=0.05)
    sim: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        yield sim, driver
    finally:
        driver.stop()
        running.stop()


def test_the_board_is_shown_a_wire_outcome_as_it_is_and_limits_left_out_as_0(
        board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    sim, display = board
    for outcome in WireOutcome:
        display.show_result(outcome, 5, 5, ["2H", "3D"], ["4C", "AS"])
    display.show_limits(10, 5000)
    shown = [c for c in sim.commands(display_wire.ShowResult) if isinstance(c, display_wire.ShowResult)]
    assert [result.outcome for result in shown] == list(WireOutcome)
    [limits] = sim.commands(display_wire.ShowLimits)
    assert limits == display_wire.ShowLimits(10, 5000, 0, 0, 0, 0, "", 0)


class _ListOvertaken(ChipReaderSimulator):
    """A reader whose first antenna list (antenna 1 faulted) is overtaken by two events:
    antenna 1 reads again, antenna 3 stops. Its answer is lost once, so both events reach the
    driver before the list does (the driver's copy of the request is answered with it)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.overtaken = threading.Event()

    def handle_command(self, message: Message) -> Message:
        if not isinstance(message, wire.GetAntennas) or self.overtaken.is_set():
            return super().handle_command(message)
        self.overtaken.set()
        before = wire.AntennaList(tuple(
            wire.AntennaEntry(n, wire.AntennaState.DISCONNECTED if n == 1 else wire.AntennaState.OK)
            for n in range(1, self.antennas + 1)))
        self.drop_replies(1)
        self.send_event(wire.AntennaRestored(1))
        self.lose_antenna(3)
        return before


def test_an_antenna_list_overtaken_by_a_restore_and_a_fault_is_asked_for_again(rec: Recorder) -> None:
    sim = _ListOvertaken(ack_timeout=0.05, seed=7)
    sim.start()
    driver = ChipReaderDriver("chipreader", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        wait_until(sim.overtaken.is_set, WAIT, "the first antenna list asked for")
        assert sim.wait_idle(WAIT)  # both events (and the power-on Boot) taken
        assert driver.wait_synced(WAIT)
        faults = [(e.reason, e.code) for e in rec.events if isinstance(e, ev.DeviceFault)]
        assert faults == [("antenna 3: disconnected", "antenna_fault")]
        assert [a.antenna for a in driver.antennas() if not a.ok] == [3]
    finally:
        driver.stop()
        sim.stop()


def test_each_answer_to_a_copy_of_a_command_already_answered_is_one_stale_response(shoe: ShoeSimulator,
                                                                                   rec: Recorder) -> None:
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT) and shoe.wait_idle(WAIT)
        stats = driver.link.stats
        before = stats.frames_in
        shoe.reply_delay = 0.3  # past the link's 0.2 s: the ping is sent again before its answer comes
        driver.ping()
        copies = stats.retransmissions
        assert copies >= 1
        # the answer, then one more for each copy: all read, the last one counted
        wait_until(lambda: stats.frames_in >= before + 1 + copies, WAIT, "an answer to every copy")
        wait_until(lambda: stats.stale_responses >= copies, WAIT, "the answers to the copies counted")
        assert stats.stale_responses == copies
    finally:
        driver.stop()


def test_a_deck_check_waits_for_the_count_longer_than_a_reply(rec: Recorder) -> None:
    running = start_simulator("shuffler", ack_timeout=0.05)
    sim: ShufflerSimulator = running.simulator
    driver = ShufflerDriver("shuffler", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        sim.reply_delay = 0.6  # counting the set: longer than FAST's 0.2 s, within the deck check's 2 s
        check = driver.deck_check()
        assert check.decks == 8 and check.missing == () and check.extra == ()
        assert driver.link.stats.retransmissions == 0 and sim.stats.duplicate_commands == 0
    finally:
        driver.stop()
        running.stop()


def test_a_driver_takes_settings_or_link_options_not_both(rec: Recorder) -> None:
    with pytest.raises(TypeError, match="give either settings= or individual link options, not both"):
        ShoeDriver("shoe", "/dev/ttyUSB-none", rec, settings=FAST, retries=5)
    assert ShoeDriver("shoe", "/dev/ttyUSB-none", rec, retries=5).link.settings.retries == 5
