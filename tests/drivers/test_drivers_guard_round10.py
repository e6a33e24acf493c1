"""Guard tests of the foot switch and the USB pedals, round 10 (the ``drivers`` mutation guard,
docs/testing.md), through evdev's stand-in (drivers/simulators/footswitch.py) and the simulated
unit on the simulated pyusb bus (one made to answer wrongly on purpose).

Each test answers a mutant that survived the guard's tests:

* a foot switch named by its serial number (``?serial=``) is the one whose node says that
  serial (``uniq``), and only it: beside another of its kind with another serial, the named one
  is connected and read (``drivers/devices/footswitch.py``, ``_find``);
* every key event of a mapped key (down, up, each autorepeat) is one frame in, and a key event
  of a key the station does not map is none: ``stats.frames_in`` counts them one each
  (``_read``);
* a unit that answers the protocol version request with an empty reply is the outage
  ``wrong-device`` saying so, one ``DeviceFault``, never connected; not a driver error
  (``drivers/devices/pedals.py``, ``_ask_version``).
"""

from __future__ import annotations

from drivers.devices import Backoff, FootSwitchDriver, PedalDriver
from drivers.input.keys import key_code
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.locator import simulated_locator
from station.events import DeviceFault
from tests.devices.rigs import EventLog

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0
SERIAL = "PED-SIM-0001"


# --- the foot switch named by its serial number ------------------------------------------------------


def test_a_foot_switch_named_by_its_serial_is_the_one_with_that_serial_beside_another_of_its_kind(
        events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    backend = StandInBackend()
    StandInFootSwitch(backend=backend, path="/dev/input/event5", uniq="FS-0001")
    named = StandInFootSwitch(backend=backend, path="/dev/input/event9", uniq="FS-0002")
    locator = StandInFootSwitch.locator_for(backend, 0x0C45, 0x7403, serial="FS-0002")
    driver = FootSwitchDriver("pedals", locator, events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)  # found by its serial: neither "not-found" nor "ambiguous"
    who = driver.identify()
    assert (who.serial, who.path) == ("FS-0002", "/dev/input/event9")
    named.click("right")
    assert events.wait_presses(1) == [("right", False)]
    assert events.kinds() == ["ButtonPressed"]


# --- the foot switch's frames in ----------------------------------------------------------------------


def test_each_key_event_of_a_mapped_key_is_one_frame_in_and_other_keys_none(
        events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    other_key = key_code("KEY_A")  # not a pedal: the station maps F13-F15 only
    switch.send(other_key, 1)
    switch.send(other_key, 0)
    switch.press("left")
    switch.repeat("left", 3)
    switch.release("left")
    assert events.wait_presses(1) == [("left", False)]
    # The press is delivered after its up was read, and the other key's events came before it.
    assert driver.stats.frames_in == 5  # down, three repeats, up
    assert driver.stats.duplicates == 3  # the repeats, ignored
    assert len(driver.recent_frames()) == 5


# --- the pedals: an empty answer to the protocol version request --------------------------------------


class _EmptyVersionReply(SimulatedPedal):
    """A unit of the pedals' VID:PID that answers GET_PROTOCOL_VERSION with no byte at all."""

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        if (request_type, request) == (p.VENDOR_IN_INTERFACE, p.REQUEST_PROTOCOL_VERSION):
            return b""
        return super().control(generation, request_type, request, value, index, length, timeout_ms)


def test_a_unit_giving_an_empty_protocol_version_is_the_wrong_device_not_a_driver_error(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _EmptyVersionReply(SERIAL, timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert not driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("wrong-device", "empty answer to the protocol version request")
    assert not driver.connected and driver.refused is None
    assert events.kinds() == ["DeviceFault"]  # one fault for the outage, however often it is tried again
