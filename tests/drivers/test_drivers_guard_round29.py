"""Guard tests of the foot switch and the card reader, round 29 (the ``drivers`` mutation guard,
docs/testing.md), through evdev's stand-in (drivers/simulators/footswitch.py,
drivers/simulators/cardreader.py, one node made to fail on purpose) and the drivers'
``from_config``.

Each test answers a mutant that survived the guard's tests:

* a card reader keeps its last 32 key events for the fault report, as a foot switch and a
  serial link do, the oldest dropped (``drivers/devices/cardreader.py``, ``history``);
* a card reader's self-test has no result code of its own: a reader with the digits and Enter
  passes with the code 0 and no problems (``cardreader.py``, ``self_test``);
* a foot switch is opened by an evdev locator only: the configuration naming it by anything
  else (a USB pedal's locator) is a TypeError saying so, never a driver built on the wrong
  endpoint (``drivers/devices/footswitch.py``, ``from_config``);
* a foot switch whose held keys cannot be read (the node fails) is ``DeviceUnavailable`` from
  ``status`` and ``self_test``, saying so, never a crash of the driver's own making
  (``footswitch.py``, ``status``);
* a foot switch another program holds (grabbed) is one ``DeviceFault`` ``busy`` whose reason
  names the node and says another program holds it (``footswitch.py``, ``_grab``).
"""

from __future__ import annotations

import errno
from typing import Any

import pytest

from drivers.devices import Backoff, DeviceUnavailable, FootSwitchDriver
from drivers.devices.cardreader import CardReaderDriver
from drivers.devices.contract import SelfTestReport
from drivers.simulators.cardreader import StandInCardReader
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch, StandInHandle
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.usb.locator import simulated_locator
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

from ..waiting import wait_until
from .helpers import WAIT

BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)


# --- the card reader: its recent key events and its self-test ------------------------------------


def test_a_card_reader_keeps_its_last_32_key_events_for_the_fault_report(
        events: EventLog, drivers: list[Any]) -> None:
    """As the foot switch's ring: the last 32 key events (each a character or the Enter, never
    which character), the oldest dropped."""
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=BACKOFF)
    drivers.append(driver)
    assert driver.start(WAIT)
    reader.type("12345678901234567")  # 17 characters and Enter: 36 key events
    wait_until(lambda: driver.stats.frames_in == 36, WAIT, "the 36 key events read")
    kept = [what for _, _, _, what in driver.recent_frames()]
    assert kept == ["character down", "character up"] * 15 + ["enter down", "enter up"]


def test_a_card_reader_with_the_digits_and_enter_passes_its_self_test_with_no_code_of_its_own(
        events: EventLog, drivers: list[Any]) -> None:
    """A keyboard has no result code: the report's code is 0 (the contract's "none"), and no
    problem is listed."""
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=BACKOFF)
    drivers.append(driver)
    assert driver.start(WAIT)
    assert driver.self_test() == SelfTestReport(True, "digits and Enter present", 0, ())


# --- the foot switch: its configuration ----------------------------------------------------------


def test_a_foot_switch_configured_with_a_usb_pedal_locator_is_a_type_error_saying_so(events: EventLog) -> None:
    """Only an evdev: locator (or its text) opens a foot switch; a USB pedal's locator is refused
    when the configuration is read, naming what it was given."""
    locator = simulated_locator(SimulatedBackend([]), "PED-SIM-0001")
    with pytest.raises(TypeError, match="a foot switch is opened by an evdev: locator"):
        FootSwitchDriver.from_config("pedals", locator, events, baudrate=0)


# --- the foot switch: held keys that cannot be read ----------------------------------------------


class _KeysFailHandle(StandInHandle):
    """An open node whose held keys, once ``failing`` is set on its backend, cannot be read."""

    def __init__(self, device: Any, backend: _KeysFailBackend) -> None:
        super().__init__(device)
        self._backend = backend

    def active_keys(self) -> list[int]:
        if self._backend.failing:
            raise OSError(errno.EIO, "Input/output error")
        return super().active_keys()


class _KeysFailBackend(StandInBackend):
    """The stand-in's nodes, each open a :class:`_KeysFailHandle`."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False

    def open(self, path: str) -> StandInHandle:
        for device in self.devices:
            if device.path == path and device.plugged:
                handle = _KeysFailHandle(device, self)
                with device.lock:
                    device.handles.append(handle)
                return handle
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)


def test_a_foot_switch_whose_held_keys_cannot_be_read_is_unavailable_to_status_and_self_test(
        events: EventLog, drivers: list[Any]) -> None:
    """The node fails when asked which keys are down: status and self-test say the keys cannot
    be read (DeviceUnavailable with the node's error), never another error."""
    backend = _KeysFailBackend()
    switch = StandInFootSwitch(backend=backend)
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=BACKOFF)
    drivers.append(driver)
    assert driver.start(WAIT)
    backend.failing = True
    with pytest.raises(DeviceUnavailable, match=r"pedals: cannot read its keys: .*Input/output error"):
        driver.status()
    with pytest.raises(DeviceUnavailable, match="cannot read its keys"):
        driver.self_test()
    backend.failing = False
    assert driver.status().ok


# --- the foot switch: held by another program ----------------------------------------------------


def test_a_foot_switch_another_program_holds_is_a_busy_fault_naming_the_node_and_the_holder(
        events: EventLog, drivers: list[Any]) -> None:
    """Another program has grabbed the node: one DeviceFault ``busy`` whose reason names the
    node and says it is held by another program; once let go, the switch is the station's."""
    switch = StandInFootSwitch()
    other = switch.other_reader()
    other.grab()
    try:
        driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=BACKOFF)
        drivers.append(driver)
        driver.start(WAIT)
        fault = events.wait_kind(DeviceFault)[0]
        assert fault.code == "busy"
        assert fault.reason == f"{switch.device.path} is held by another program (grabbed)"
    finally:
        other.close()
    events.wait_kind(DeviceRecovered)
    assert events.kinds() == ["DeviceFault", "DeviceRecovered"]
