"""Guard tests of the card reader, the version-1 display's limits, the foot switch's presses, the
USB pedals' port and their locator, round 17 (the ``drivers`` mutation guard, docs/testing.md),
through the card reader's stand-in at python-evdev's boundary (drivers/simulators/cardreader.py),
the version-1 translation's public ``limits_v1``, ``KeyPresses``' public ``feed`` and
``next_due``, the simulated unit on the simulated pyusb bus (a unit made to fail on purpose) and
``parse_locator``.

Each test answers a mutant that survived the guard's tests:

* every key event the card reader reads is described by what it is: the Enter that ends a line
  is ``enter down``/``enter up``, every other key ``character down``/``character up``, in its
  recent frames and to its taps (``drivers/devices/cardreader.py``, ``_read``);
* a version-1 board's pairs maximum, as every maximum, is rounded down to whole units, so the
  sign never invites a bet the table refuses (``drivers/devices/display_v1.py``, ``limits_v1``);
* the foot switch's presses are next due at the soonest of what is pending (a long hold reached,
  an up that waited out its debounce), not the latest (``drivers/input/presses.py``,
  ``next_due``);
* a heartbeat the unit fails with a USB error (not a timeout) is the link lost, its code from
  the error and its reason saying the heartbeat failed, never a heartbeat answered
  (``drivers/transport/usb_port.py``, ``heartbeat``);
* a ``usb://`` locator with a path is refused, saying it has only VID:PID and ``?serial=``
  (``drivers/usb/locator.py``, ``parse_locator``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec import display as wire
from drivers.devices import Backoff
from drivers.devices.cardreader import CardReaderDriver
from drivers.devices.display_v1 import limits_v1
from drivers.input.presses import DOWN, UP, KeyPress, KeyPresses
from drivers.simulators.cardreader import StandInCardReader
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.usb_port import UsbLinkLost, UsbPort
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import LocatorError, parse_locator, simulated_locator
from station.events import PlayerCardRead
from tests.devices.rigs import EventLog

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0
SERIAL = "PED-SIM-0001"


# --- the card reader: what each key event is called ------------------------------------------------


@pytest.fixture
def card_reader() -> Iterator[tuple[StandInCardReader, CardReaderDriver, EventLog]]:
    reader = StandInCardReader()
    events = EventLog()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=FAST)
    try:
        yield reader, driver, events
    finally:
        driver.stop()


def test_the_enter_ending_a_line_is_described_as_enter_and_every_other_key_as_a_character(
        card_reader: tuple[StandInCardReader, CardReaderDriver, EventLog]) -> None:
    reader, driver, events = card_reader
    shown: list[str] = []
    driver.add_tap(lambda direction, raw, what: shown.append(what))
    assert driver.start(WAIT)
    reader.scan("000123")  # a barcode: digits only, no Shift
    assert [e.card for e in events.wait_kind(PlayerCardRead, 1)] == ["000123"]
    expected = ["character down", "character up"] * 6 + ["enter down", "enter up"]
    assert [what for _, _, _, what in driver.recent_frames()] == expected
    assert shown == expected


# --- the version-1 display: the pairs maximum ------------------------------------------------------


def test_a_version_1_board_s_pairs_maximum_is_rounded_down_to_whole_units_as_every_maximum() -> None:
    """99.99 is shown 99: a pair bet of 100 would be refused by the table."""
    v1 = limits_v1(wire.ShowLimits(1050, 499999, 550, 50099, 2550, 9999, "EUR", 2))
    assert (v1.table_min, v1.table_max, v1.tie_min, v1.tie_max, v1.pair_min, v1.pair_max) == (
        11, 4999, 6, 500, 26, 99)
    assert v1.minor_digits == 0 and v1.currency == "EUR"


# --- the foot switch's presses: when the next one is due ---------------------------------------------


def test_the_next_press_is_due_at_the_soonest_of_what_is_pending_not_the_latest() -> None:
    left, right = 30, 48
    keys = KeyPresses(frozenset({left, right}), debounce_s=0.03, long_press_s=0.8)
    assert keys.feed(left, DOWN, 0.0) == []
    assert keys.feed(right, DOWN, 0.5) == []
    # left's long hold is reached at 0.8, right's at 1.3: the sooner decides.
    assert keys.next_due(0.6) == pytest.approx(0.2)
    assert keys.feed(right, UP, 0.6) == []
    # right's up is taken at 0.63 (its debounce), before left's long hold at 0.8.
    assert keys.next_due(0.6) == pytest.approx(0.03)
    assert keys.due(0.63) == [KeyPress(right, long=False)]
    assert keys.next_due(0.63) == pytest.approx(0.17)
    assert keys.due(0.8) == [KeyPress(left, long=True)]


# --- the USB pedals' port: a heartbeat that fails ------------------------------------------------


class _FailsGetStatus(SimulatedPedal):
    """A unit that, once ``failing``, answers ``GET_STATUS`` with an I/O error (a broken cable:
    the host gets ``EIO``, not a timeout)."""

    failing = False

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        if self.failing and (request_type, request) == (p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS):
            raise usb_error(LibusbError.IO)
        return super().control(generation, request_type, request, value, index, length, timeout_ms)


def test_a_heartbeat_failed_with_a_usb_error_is_the_link_lost_saying_the_heartbeat_failed() -> None:
    unit = _FailsGetStatus(SERIAL, timed_long_press=False)
    port = UsbPort(simulated_locator(SimulatedBackend([unit]), SERIAL))
    port.open()
    try:
        port.heartbeat()  # the unit answers: nothing to say
        unit.failing = True
        with pytest.raises(UsbLinkLost) as lost:
            port.heartbeat()
    finally:
        port.close(give_back=True)
    assert lost.value.code == "io-error"
    assert lost.value.reason.startswith("heartbeat failed: ")
    assert "Input/output error" in lost.value.reason


# --- the USB pedals' locator: no path ---------------------------------------------------------


@pytest.mark.parametrize("url", ["usb://1209:0001/dev/bus/usb/001/004", "usb://1209:0001/x?serial=PED-0001"])
def test_a_usb_locator_with_a_path_is_refused_saying_it_has_only_ids_and_serial(url: str) -> None:
    with pytest.raises(LocatorError, match=r"a usb:// locator has no path, only VID:PID and \?serial=$"):
        parse_locator(url)
    assert parse_locator("usb://1209:0001/?serial=PED-0001").serial == "PED-0001"  # a bare slash is no path
