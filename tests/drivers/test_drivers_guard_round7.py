"""Guard tests of the codecs, the chip reader's driver and the card reader's driver, round 7 (the
``drivers`` mutation guard, docs/testing.md), through the protocols' encode and construction, a
chip reader simulator on a pseudo-terminal and the card reader's stand-in at python-evdev's
boundary.

Each test answers a mutant that survived the guard's tests (``/tmp/wave5-a.txt``):

* a text field holds at most 255 bytes of UTF-8 (not characters): a longer one is refused with a
  message giving its length in bytes and the limit (``drivers/codec/fields.py``, ``TEXT``);
* a protocol whose table holds a message with a part (the message itself, or one of its fields)
  of a version after the protocol's current one is refused when it is built, by name: the
  station would otherwise send a device fields of a version it does not speak
  (``drivers/codec/protocol.py``, ``Protocol``);
* a chip reader that answers a setting (its mode) with anything but an ACK has not taken it:
  ``set_mode`` says so (False), the mode is kept and sent again, and the reader ends up with it
  (``drivers/devices/chipreader.py``, ``_send``);
* an antenna list that antenna events overtake each time it is asked for is asked for five
  times in all, then left: the events stand, and the station was told of each of them, never
  of a list older than they are (``drivers/devices/chipreader.py``, ``_sync_antennas``);
* a card reader whose node wakes with nothing to read (``EAGAIN``) is not lost: no fault, no
  reconnection, and the next swipe is read (``drivers/devices/cardreader.py``, ``_read``).
"""

from __future__ import annotations

import select
import threading
from dataclasses import dataclass
from typing import Annotated, ClassVar

import pytest

from drivers.codec import chipreader as chip_wire
from drivers.codec import display
from drivers.codec.fields import U8
from drivers.codec.protocol import Message, Protocol, Since
from drivers.devices import Backoff, ChipReaderDriver
from drivers.devices.cardreader import CardReaderDriver
from drivers.simulators import ChipReaderSimulator, start_simulator
from drivers.simulators.cardreader import StandInCardReader
from station import events as ev
from tests.devices.rigs import EventLog

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

DISPLAY = display.DISPLAY

# -- the codecs ---------------------------------------------------------------------------------


def test_a_text_of_more_than_255_bytes_of_utf8_is_refused_saying_its_length_in_bytes() -> None:
    """150 characters, each two bytes of UTF-8: 300 bytes, too long for a text field, and the
    refusal says how long it is in bytes; 255 bytes exactly go."""
    with pytest.raises(ValueError, match=r"^text of 300 bytes is longer than 255$"):
        DISPLAY.encode(display.ShowMessage("é" * 150), 1)
    fits = DISPLAY.encode(display.ShowMessage("é" * 127 + "x"), 1)
    assert bytes((255,)) + ("é" * 127 + "x").encode("utf-8") in fits


@dataclass(frozen=True)
class _FieldOfVersion3(Message):
    """A message of version 1 with a field added in version 3."""

    TYPE: ClassVar[int] = 0x2E
    WIRE_NAME: ClassVar[str] = "FieldOfVersion3"
    first: Annotated[int, U8]
    added: Annotated[int, U8, Since(3)] = 0


@dataclass(frozen=True)
class _MessageOfVersion3(Message):
    """A message added in version 3."""

    TYPE: ClassVar[int] = 0x2F
    WIRE_NAME: ClassVar[str] = "MessageOfVersion3"
    SINCE: ClassVar[int] = 3
    first: Annotated[int, U8] = 0


@pytest.mark.parametrize("message", [_FieldOfVersion3, _MessageOfVersion3], ids=["field", "message"])
def test_a_protocol_holding_a_part_of_a_later_version_than_its_current_is_refused(message: type[Message]) -> None:
    with pytest.raises(TypeError, match=rf"^vendor: {message.WIRE_NAME} has parts of version 3, after 2$"):
        Protocol("vendor", (message,), current=2)
    assert Protocol("vendor", (message,), current=3).by_type[message.TYPE] is message


# -- the chip reader ------------------------------------------------------------------------------


def test_a_mode_answered_by_anything_but_an_ack_is_not_taken_and_is_sent_again(rec: Recorder) -> None:
    """A firmware bug answers SetMode with a status report: the reader has not taken the mode
    (set_mode says False); the driver keeps it and sends it again, and the reader ends with it."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    sim: ChipReaderSimulator = running.simulator
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT) and driver.wait_synced(WAIT)  # the power-on Boot taken, the first sync done
        sim.answer_wrongly(chip_wire.SetMode, chip_wire.ReaderStatus(False, 0, 100, 0))
        assert driver.set_mode(True, 500) is False
        assert driver.wanted_mode == (True, 500)
        assert driver.wait_synced(WAIT)
        assert sim.commands(chip_wire.SetMode) == [chip_wire.SetMode(True, 500)] * 2
        info = driver.status()
        assert (info.continuous, info.period_ms) == (True, 500)
    finally:
        driver.stop()
        running.stop()


class _FlapsAtEachAntennaList:
    """A tap: while armed, each antenna-list request that goes out (a new one, not a copy of
    one sent again) is followed by antenna 2 failing or coming back, its event taken by the
    driver before the list is looked at: every list is older than an event."""

    def __init__(self, sim: ChipReaderSimulator) -> None:
        self.sim = sim
        self.armed = threading.Event()
        self.flaps = 0
        self.untaken = 0  # flaps whose event the driver did not take in time (none expected)
        self._last_frame = b""

    def __call__(self, direction: str, raw: bytes, decoded: object) -> None:
        if direction != "tx" or not isinstance(decoded, chip_wire.GetAntennas) or not self.armed.is_set():
            return
        if raw == self._last_frame:  # the same request sent again (same sequence number)
            return
        self._last_frame = raw
        self.flaps += 1
        if self.flaps % 2:
            self.sim.lose_antenna(2)
        else:
            self.sim.restore_antenna(2)
        if not self.sim.wait_idle(WAIT):  # acknowledged: the driver has handled it
            self.untaken += 1


def test_an_antenna_list_overtaken_by_events_each_time_is_asked_for_five_times_then_left(rec: Recorder) -> None:
    """After a reconnection, antenna 2 fails or comes back during every antenna-list request:
    the list is asked for five times, then the driver stops asking (the events stand, each told
    to the station once; no list older than them is applied)."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    sim: ChipReaderSimulator = running.simulator
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    flapping = _FlapsAtEachAntennaList(sim)
    driver.add_tap(flapping)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT) and driver.wait_synced(WAIT)  # the power-on Boot taken, the first sync done
        lists_before = len(sim.commands(chip_wire.GetAntennas))
        sim.unplug()
        rec.wait_kind(ev.DeviceFault)
        seen_before = len(rec.events)
        flapping.armed.set()
        sim.replug()  # connected again: the driver syncs again
        wait_until(lambda: flapping.flaps, WAIT, "the first antenna list asked for after the reconnection")
        assert driver.wait_synced(WAIT)
        flapping.armed.clear()
        assert len(sim.commands(chip_wire.GetAntennas)) - lists_before == 5
        assert (flapping.flaps, flapping.untaken) == (5, 0)
        told = [(type(e).__name__, getattr(e, "reason", "")) for e in rec.events[seen_before:]
                if isinstance(e, (ev.DeviceFault, ev.DeviceRecovered))]
        fault, back = ("DeviceFault", "antenna 2: disconnected"), ("DeviceRecovered", "")
        assert told == [back, fault, back, fault, back, fault]  # the reconnection, then each event
        assert [(a.antenna, a.fault) for a in driver.antennas() if not a.ok] == [(2, "disconnected")]
    finally:
        driver.stop()
        running.stop()


# -- the card reader ------------------------------------------------------------------------------


def test_a_card_reader_whose_node_wakes_with_nothing_to_read_stays_connected(drivers: list[object],
                                                                           events: EventLog) -> None:
    """The reader's node is readable once with no key event behind it (the read says EAGAIN):
    nothing happens, no fault, no reconnection, and the next swipe is a card."""
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=Backoff(0.02, 2.0, 0.2))
    drivers.append(driver)
    assert driver.start(WAIT)
    handle = reader.device.grabbed_by
    assert handle is not None
    handle.wake()  # readable, nothing queued

    def readable() -> bool:
        ready, _, _ = select.select([handle.fd], [], [], 0)
        return bool(ready)

    wait_until(lambda: not readable(), WAIT, "the driver to read the empty wake-up")
    reader.swipe("4000123456789")
    assert [e.card for e in events.wait_kind(ev.PlayerCardRead)] == ["4000123456789"]
    assert events.kinds() == ["PlayerCardRead"]
    assert driver.connected and reader.device.grabbed_by is handle  # the same grab, never let go
