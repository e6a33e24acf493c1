"""Guard tests of the device drivers and the device URLs, third set (the ``drivers`` mutation
guard, docs/testing.md): serial drivers against their simulators on a pseudo-terminal (one made
to answer late on purpose), the USB pedals on the simulated pyusb bus (a unit made to hang), and
``url_problem`` as the configuration check calls it.

Each test answers a mutant that survived the guard's tests:

* a serial device's self-test waits at least 2 s for the verdict, even on a link whose replies
  are awaited for less: it is sent once, never retransmitted as if lost
  (``drivers/devices/base.py``, ``self_test``);
* a baccarat result shown without its round number goes to the board as round 0, the same by
  ``show_round`` as by ``show_result``: 0 is no round's number, rounds count from 1 after the
  burn (``drivers/devices/display.py``, ``show_round``);
* a pedal self-test the unit does not answer within the control timeout is a
  ``DeviceTimeout`` saying the self-test request failed, never some other error; answered
  again, it passes (``drivers/devices/pedals.py``, ``_self_test``);
* a player-card reader given anything but an ``evdev:`` locator or ``sim:`` is told it is an
  input device and which locators name one, never a foot switch's message
  (``drivers/transport/urls.py``, ``url_problem``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec import display as display_wire
from drivers.devices import Backoff, DeviceTimeout, DisplayDriver, PedalDriver, ShoeDriver
from drivers.simulators import DisplaySimulator, ShoeSimulator, start_simulator
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.urls import url_problem
from drivers.usb.locator import simulated_locator
from station.cards import parse_cards
from station.games.baccarat.rules import result_of
from tests.devices.rigs import EventLog

from .helpers import FAST, WAIT, Recorder

# --- a serial self-test takes a while ----------------------------------------------------------


def test_a_self_test_waits_for_its_verdict_longer_than_a_reply_and_is_sent_once(rec: Recorder) -> None:
    running = start_simulator("shoe", ack_timeout=0.05)
    sim: ShoeSimulator = running.simulator
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        sim.reply_delay = 0.6  # testing itself: longer than FAST's 0.2 s, within a self-test's 2 s
        assert driver.self_test().passed
        assert driver.stats.retransmissions == 0 and sim.stats.duplicate_commands == 0
    finally:
        driver.stop()
        running.stop()


# --- the display board: a result without its round number ------------------------------------


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


def test_a_result_shown_without_its_round_number_goes_as_round_0_by_either_call(
        board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    sim, display = board
    result = result_of(parse_cards("4H 5C"), parse_cards("4D 4S"))
    display.show_round(result)
    display.show_result(result.outcome, result.player_total, result.banker_total, result.player, result.banker,
                        natural=result.natural, player_pair=result.player_pair, banker_pair=result.banker_pair)
    by_round, by_result = sim.commands(display_wire.ShowResult)
    assert by_round == by_result
    assert isinstance(by_round, display_wire.ShowResult) and by_round.round_no == 0


# --- the pedals: a self-test the unit does not answer ------------------------------------------


def test_a_pedal_self_test_the_unit_does_not_answer_is_a_timeout(events: EventLog,
                                                                 drivers: list[PedalDriver]) -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    # A heartbeat far off: the hang is met by the self-test, not by the link's own watch.
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2), read_timeout_ms=50,
                         control_timeout_ms=200, heartbeat_s=600.0)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    unit.hang()  # enumerated, but its firmware answers no control request
    with pytest.raises(DeviceTimeout, match=r"^self-test request failed: "):
        driver.self_test()
    unit.unhang()
    assert driver.self_test().passed


# --- a card reader's URL -----------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/dev/ttyUSB0", "usb://1209:0001", "socket://localhost:7000"])
def test_a_card_reader_not_given_an_evdev_locator_is_told_it_is_an_input_device(url: str) -> None:
    assert url_problem("cardreader", url) == (
        f"{url!r}: a cardreader is an input device: evdev://VID:PID, evdev:///dev/input/by-id/... or sim:")
