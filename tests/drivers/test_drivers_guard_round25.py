"""Guard tests of the chip reader, the foot switch, the serial link, the shoe, the key wedge and
the USB pedals' port, round 25 (the ``drivers`` mutation guard, docs/testing.md), each through
the driver against its simulator, evdev's stand-in, the simulated pyusb bus, or the wedge's
public ``feed``.

Each test answers a mutant that survived the guard's tests:

* starting a chip reader that is already running changes nothing: no second re-sync of mode,
  power and antenna list is sent to the reader (``drivers/devices/chipreader.py``, ``start``);
* a foot switch looked for by VID:PID that no input device matches is the fault ``not-found``
  naming what was looked for, never a driver error (``drivers/devices/footswitch.py``,
  ``_find``);
* an input device with none of the foot switch's keys is refused as the wrong device, its
  message listing at most 8 of the keys it sends, then ``...`` (``footswitch.py``,
  ``_check_keys``);
* the recent frames of a serial link describe each message by its name and fields, as the
  protocol documents write it (``drivers/devices/link.py``, ``_describe``);
* a shoe's card reader error is reported in the shoe's own words when it gives them, else as
  ``card reader error: <code>`` (``drivers/devices/shoe.py``, ``on_message``);
* a card reader's key typed exactly ``idle_s`` after the one before is still the same line: only
  a longer pause drops the half-typed line (``drivers/input/wedge.py``, ``feed``);
* the port gives the interface back to the OS driver only for the opening in which it took it
  away: once given back, a later opening of a unit already without its OS driver leaves it so
  (``drivers/transport/usb_port.py``, ``close``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.codec import shoe as shoe_wire
from drivers.devices import Backoff, ChipReaderDriver, FootSwitchDriver, ShoeDriver
from drivers.input.keys import key_code, key_name
from drivers.input.wedge import KeyboardWedge
from drivers.simulators import ChipReaderSimulator, ShoeSimulator, start_simulator
from drivers.simulators.footswitch import StandInBackend, StandInDevice, StandInFootSwitch
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.usb_port import UsbPort
from drivers.usb import protocol as p
from drivers.usb.locator import simulated_locator
from station import events as ev
from station.events import DeviceFault
from tests.devices.rigs import EventLog

from .helpers import FAST, WAIT, Recorder

BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
SERIAL = "PED-SIM-0001"


# --- the chip reader: a second start is no re-sync ---------------------------------------------------


def test_starting_a_running_chip_reader_sends_it_no_second_re_sync(
        reader: tuple[ChipReaderSimulator, ChipReaderDriver]) -> None:
    """The reader was re-synced once it connected; start() called again while it runs sends the
    reader nothing more: no mode, power or antenna list asked for again."""
    sim, driver = reader
    before = [m.describe() for m in sim.commands()]
    assert before  # the start-up re-sync was sent
    assert driver.start(WAIT)
    assert driver.wait_synced(WAIT)  # a re-sync wanted by this start would be done by now
    assert [m.describe() for m in sim.commands()] == before


# --- the foot switch: why a device is not used -------------------------------------------------------


def test_a_foot_switch_no_input_device_matches_is_the_fault_not_found_naming_it(
        events: EventLog, drivers: list[Any]) -> None:
    """No input device has the foot switch's VID:PID: the fault is ``not-found``, naming the
    VID:PID looked for, not a driver error."""
    locator = StandInFootSwitch.locator_for(StandInBackend(), 0x0C45, 0x7403)
    driver = FootSwitchDriver("footswitch", locator, events, backoff=BACKOFF)
    drivers.append(driver)
    assert not driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "not-found"
    assert fault.reason == f"no input device {locator.describe()}"


def test_a_device_with_none_of_the_keys_is_refused_listing_at_most_8_of_the_keys_it_sends(
        events: EventLog, drivers: list[Any]) -> None:
    """A keyboard of the foot switch's VID:PID that sends nine keys, none a pedal's: refused as
    the wrong device; the message names the first eight keys it sends and then ``...``, never
    the ninth."""
    names = [f"KEY_{c}" for c in "QWERTYUIO"]
    codes = sorted(key_code(n) for n in names)
    keyboard = StandInDevice("/dev/input/event5", frozenset(codes), name="Some Keyboard")
    backend = StandInBackend([keyboard])
    locator = StandInFootSwitch.locator_for(backend, keyboard.info.vendor, keyboard.info.product)
    driver = FootSwitchDriver("footswitch", locator, events, backoff=BACKOFF)
    drivers.append(driver)
    assert not driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "wrong-device"
    sends = ", ".join(key_name(c) for c in codes[:8])
    assert f"it sends {sends}...: the wrong device" in fault.reason
    assert key_name(codes[8]) not in fault.reason


# --- the serial link: what the recent frames say -----------------------------------------------------


@pytest.fixture
def shoe(rec: Recorder) -> Iterator[tuple[ShoeSimulator, ShoeDriver]]:
    """A shoe's simulator and its started driver."""
    running = start_simulator("shoe", ack_timeout=0.05)
    sim: ShoeSimulator = running.simulator
    driver = ShoeDriver("shoe", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)
        yield sim, driver
    finally:
        driver.stop()
        running.stop()


def test_the_recent_frames_describe_each_message_by_its_name_and_fields(
        shoe: tuple[ShoeSimulator, ShoeDriver]) -> None:
    """Every frame the shoe's link sent or took in during its handshake is a message: each is
    described in the recent frames as ``Name(field=value, ...)``, never left blank."""
    _, driver = shoe
    frames = driver.recent_frames()
    assert frames
    for _, _, raw, what in frames:
        assert raw and what.endswith(")") and "(" in what, (raw, what)


# --- the shoe: a card reader error in the shoe's words or by its code -------------------------------


def test_a_shoe_reader_error_is_reported_in_the_shoe_s_words_or_by_its_code(
        shoe: tuple[ShoeSimulator, ShoeDriver], rec: Recorder) -> None:
    """The shoe reports a double feed with its own words, then one with only its code: the
    first fault carries the shoe's words, the second ``card reader error: <code>``."""
    sim, _ = shoe
    sim.report_error(shoe_wire.ReaderErrorCode.UNREADABLE_CARD, "two cards under the reader")
    sim.report_error(shoe_wire.ReaderErrorCode.UNREADABLE_CARD)
    faults = rec.wait_kind(ev.DeviceFault, count=2)
    assert [(f.reason, f.code) for f in faults] == [
        ("two cards under the reader", "unreadable_card"),
        ("card reader error: unreadable_card", "unreadable_card"),
    ]


# --- the wedge: a pause of exactly idle_s keeps the line --------------------------------------------


def test_a_key_typed_exactly_idle_s_after_the_last_keeps_the_half_typed_line() -> None:
    """A reader types ``1``, then ``2`` exactly 0.5 s later (the wedge's idle time), then Enter:
    the line is ``12``; nothing is dropped for the pause. A longer pause does drop it."""
    wedge = KeyboardWedge(idle_s=0.5)
    one, two, enter = key_code("KEY_1"), key_code("KEY_2"), key_code("KEY_ENTER")
    assert wedge.feed(one, 1, 10.0) is None
    assert wedge.feed(two, 1, 10.5) is None
    assert wedge.feed(enter, 1, 10.5) == "12"
    assert wedge.counts.dropped_idle == 0
    assert wedge.feed(one, 1, 20.0) is None
    assert wedge.feed(two, 1, 20.75) is None
    assert wedge.feed(enter, 1, 20.75) == "2"
    assert wedge.counts.dropped_idle == 1


# --- the USB port: the OS driver given back once -----------------------------------------------------


def test_the_os_driver_is_given_back_only_after_the_opening_that_took_it() -> None:
    """The port takes the unit from its OS driver and gives it back on close. Later another
    program lets go of the OS driver; the port opens and closes the unit again: this time it did
    not take the OS driver away, so it leaves the unit as it found it, without one."""
    unit = SimulatedPedal(SERIAL, timed_long_press=False)  # the OS has a driver for it
    bus = SimulatedBackend([unit])
    port = UsbPort(simulated_locator(bus, SERIAL))
    port.open()
    try:
        assert port.detached_kernel_driver and not unit.kernel_driver_bound
    finally:
        port.close(give_back=True)
    assert unit.kernel_driver_bound and unit.counters.kernel_attaches == 1  # given back
    other = usb.core.find(idVendor=p.VENDOR_ID, idProduct=p.PRODUCT_ID, backend=bus)
    other.detach_kernel_driver(p.INTERFACE_NUMBER)  # another program lets go of the OS driver ...
    usb.util.dispose_resources(other)  # ... and exits, leaving the unit unbound
    port.open()
    try:
        assert port.is_open and not port.detached_kernel_driver
    finally:
        port.close(give_back=True)
    assert not unit.kernel_driver_bound and unit.counters.kernel_attaches == 1  # left as found
