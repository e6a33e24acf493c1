"""Guard tests of the foot switch, the USB pedals and the card reader's key wedge, round 14 (the
``drivers`` mutation guard, docs/testing.md), through evdev's stand-in
(drivers/simulators/footswitch.py, one node made to wake its reader with nothing to read), the
simulated unit on the simulated pyusb bus (units made to answer wrongly on purpose) and the
wedge's public ``feed``.

Each test answers a mutant that survived the guard's tests:

* a foot switch's node that wakes its reader with no event to read yet (``EAGAIN``) is no
  fault: the driver stays connected, reads the events when they come and emits only the press
  (``drivers/devices/footswitch.py``, ``_read``);
* every key event the foot switch driver reads is described by what it is: ``down``, ``up``
  and ``repeat``, in its recent frames and to its taps (``_VALUES``);
* pedals whose descriptors cannot be read (the product string request fails) are
  ``DeviceUnavailable`` from ``identify``, saying so, never an identity of nothing
  (``drivers/devices/pedals.py``, ``identify``);
* a self-test reply that does not decode (a wrong checksum) is ``DeviceProtocolError`` naming
  what is wrong, from ``self_test`` and from ``status`` alike, never a driver crash
  (``_self_test``);
* a card reader that ends its line with the keypad's Enter has ended the line as with the main
  Enter (``drivers/input/wedge.py``, ``KEY_KPENTER``);
* a foot switch keeps its last 32 key events for the fault report, as a serial link keeps its
  last 32 frames (``footswitch.py``, ``history``);
* a capital typed with the right Shift is a capital, as with the left (``wedge.py``, ``_SHIFTS``).
"""

from __future__ import annotations

import errno
from typing import Any

import pytest

from drivers.devices import Backoff, DeviceProtocolError, DeviceUnavailable, FootSwitchDriver, PedalDriver
from drivers.input.keys import key_code
from drivers.input.wedge import KEY_ENTER, KeyboardWedge, card_number, keys_for
from drivers.simulators.footswitch import StandInBackend, StandInDevice, StandInFootSwitch, StandInHandle
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import simulated_locator
from station.events import ButtonPressed, DeviceFault, Event
from tests.devices.rigs import EventLog

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0
SERIAL = "PED-SIM-0001"


# --- the foot switch: a wake-up with nothing to read -----------------------------------------------


class _HiccupHandle(StandInHandle):
    """An open node whose next read, once armed, finds nothing (``EAGAIN``) although the node
    was readable: the events stay queued and the node readable, for the read after it."""

    def __init__(self, device: StandInDevice, backend: _HiccupBackend) -> None:
        super().__init__(device)
        self._backend = backend

    def read(self) -> list[Any]:
        if self._backend.armed:
            self._backend.armed = False
            self._backend.hiccups += 1
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return super().read()


class _HiccupBackend(StandInBackend):
    """The stand-in's nodes, each open a :class:`_HiccupHandle`; ``armed`` makes the next read
    of any of them find nothing, ``hiccups`` counts those reads."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.hiccups = 0

    def open(self, path: str) -> StandInHandle:
        for device in self.devices:
            if device.path == path and device.plugged:
                handle = _HiccupHandle(device, self)
                with device.lock:
                    device.handles.append(handle)
                return handle
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)


def _press_or_fault(items: list[Event]) -> bool:
    return any(isinstance(item, (ButtonPressed, DeviceFault)) for item in items)


def test_a_node_waking_its_reader_with_nothing_to_read_is_no_fault_and_the_press_comes_after(
        events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    backend = _HiccupBackend()
    switch = StandInFootSwitch(backend=backend)
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    backend.armed = True
    switch.click("left")
    events.wait_for(_press_or_fault, WAIT, "a press or a fault")
    assert backend.hiccups == 1  # the read that found nothing happened
    assert events.kinds() == ["ButtonPressed"]
    assert events.presses() == [("left", False)]
    assert driver.connected
    assert driver.stats.frames_in == 2  # the down and the up, read by the next read


# --- the foot switch: what each key event is called ------------------------------------------------


def test_each_key_event_is_described_as_down_up_or_repeat_in_the_recent_frames_and_to_taps(
        events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    shown: list[tuple[str, bytes, str]] = []
    driver.add_tap(lambda direction, raw, what: shown.append((direction, bytes(raw), what)))
    assert driver.start(WAIT)
    switch.press("left")
    switch.repeat("left", 1)
    switch.release("left")
    assert events.wait_presses(1) == [("left", False)]
    expected = ["KEY_F13 down", "KEY_F13 repeat", "KEY_F13 up"]
    assert [what for _, _, _, what in driver.recent_frames()] == expected
    assert [what for _, _, what in shown] == expected
    code = key_code("KEY_F13")
    assert [raw for _, raw, _ in shown] == [f"{code:04x}:{value}".encode() for value in (1, 2, 0)]


# --- the pedals: descriptors that cannot be read ---------------------------------------------------


class _NoProductString(SimulatedPedal):
    """A unit that stalls the request for its product string (string descriptor 2)."""

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        if (request_type, request, value) == (p.STANDARD_IN_DEVICE, p.REQUEST_GET_DESCRIPTOR, 0x0302):
            raise usb_error(LibusbError.PIPE)
        return super().control(generation, request_type, request, value, index, length, timeout_ms)


def test_pedals_whose_descriptors_cannot_be_read_are_unavailable_to_identify_not_an_empty_identity(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _NoProductString(SERIAL, timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert driver.start(WAIT)  # found by its serial number: only the product string fails
    with pytest.raises(DeviceUnavailable, match=r"^pedals 'pedals': cannot read descriptors: .*Pipe error"):
        driver.identify()
    assert driver.connected  # a descriptor not read is no outage
    assert events.kinds() == []


# --- the pedals: a self-test reply that does not decode --------------------------------------------


class _BadSelfTestChecksum(SimulatedPedal):
    """A unit whose self-test reply has its last byte (the check) flipped."""

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        reply = super().control(generation, request_type, request, value, index, length, timeout_ms)
        if (request_type, request) == (p.VENDOR_IN_INTERFACE, p.REQUEST_SELF_TEST) and reply:
            return reply[:-1] + bytes((reply[-1] ^ 0xFF,))
        return reply


def test_a_self_test_reply_that_does_not_decode_is_a_protocol_error_naming_what_is_wrong(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _BadSelfTestChecksum(SERIAL, timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    shown: list[str] = []
    driver.add_tap(lambda direction, raw, what: shown.append(direction))
    assert driver.start(WAIT)
    reason = "self-test reply unreadable: self-test reply checksum mismatch"
    with pytest.raises(DeviceProtocolError, match=f"^{reason}$"):
        driver.self_test()
    with pytest.raises(DeviceProtocolError, match=f"^{reason}$"):
        driver.status()
    assert shown.count("control-in") == 2  # each reply shown to the taps, unreadable as it was
    assert driver.connected
    assert events.kinds() == []


# --- the card reader's wedge: the keypad's Enter -------------------------------------------------


def test_a_line_ended_with_the_keypad_enter_is_a_line_as_with_the_main_enter() -> None:
    for enter in (28, 96):  # KEY_ENTER, KEY_KPENTER (linux/input-event-codes.h)
        wedge = KeyboardWedge()
        now = 100.0
        for code, shifted in keys_for(";4000123456789=2912?"):
            if shifted:
                wedge.feed(42, 1, now)
            assert wedge.feed(code, 1, now) is None
            wedge.feed(code, 0, now)
            if shifted:
                wedge.feed(42, 0, now)
            now += 0.01
        typed = wedge.feed(enter, 1, now)
        assert typed == ";4000123456789=2912?", f"key {enter}"
        assert card_number(typed) == "4000123456789"
        assert wedge.counts.lines == 1
        assert wedge.feed(enter, 1, now + 0.01) is None  # the line was emptied by its Enter


def test_a_foot_switch_keeps_its_last_32_key_events_for_the_fault_report(events: EventLog,
                                                                       drivers: list[FootSwitchDriver]) -> None:
    """As a serial link's ring (docs/drivers.md): the last 32 frames, the oldest dropped."""
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    for count in range(1, 18):  # 34 key events, each press taken before the next (no bounce)
        switch.press("left")
        switch.release("left")
        events.wait_presses(count)
    kept = [what for _, _, _, what in driver.recent_frames()]
    assert kept == ["KEY_F13 down", "KEY_F13 up"] * 16


def test_a_capital_typed_with_the_right_shift_is_a_capital() -> None:
    wedge = KeyboardWedge()
    shift_right, key_b = 54, key_code("KEY_B")
    assert wedge.feed(shift_right, 1, 0.0) is None
    assert wedge.feed(key_b, 1, 0.001) is None
    assert wedge.feed(shift_right, 0, 0.002) is None
    assert wedge.feed(key_b, 1, 0.003) is None
    assert wedge.feed(KEY_ENTER, 1, 0.004) == "Bb"
