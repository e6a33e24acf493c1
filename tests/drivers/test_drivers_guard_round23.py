"""Guard tests of the USB pedals, round 23 (the ``drivers`` mutation guard, docs/testing.md):
the driver against the simulated unit on the simulated pyusb bus, the codec and the locator
through their public functions, the press tracker, and the simulator served on a Unix socket.

Each test answers a mutant that survived the guard's tests:

* the pedals are configured only by a ``usb://`` locator (a URL or a ``PedalLocator``): the
  driver table handing them a foot switch's evdev locator is a ``TypeError`` naming the device
  (``drivers/devices/pedals.py``, ``from_config``);
* a unit lost while being greeted (its protocol version request not answered) is only let go:
  its interface is not handed back to the operating system's driver between attempts; only
  the station stopping gives it back, once (``drivers/devices/pedals.py``, ``open``);
* a report's held bitmap is one byte: a report holding 256 is refused when it is built,
  naming the field and its bounds (``drivers/usb/codec.py``, ``PedalReport``);
* a locator's VID and PID are hexadecimal, the product ID as the vendor ID
  (``usb://1209:beef`` is product 0xBEEF) (``drivers/usb/locator.py``, ``_ids``);
* a locator's options are read leniently and judged by the locator itself: a ``serial`` with
  no ``=`` is the ``LocatorError`` saying it needs a value, and a trailing ``&`` is nothing
  (``drivers/usb/locator.py``, ``_query``);
* the press tracker counts every report it accepts, once each, and not a duplicate
  (``drivers/usb/presses.py``, ``feed``);
* an interrupt read through the remote backend asks for as many bytes as the caller's buffer
  holds, whatever the size of its items (an array of eight 16-bit words holds a 9-byte report),
  and gets what the unit in process gives; pyusb 1.2 hands the backend the caller's own array
  (``drivers/usb/remote.py``, ``intr_read``).
"""

from __future__ import annotations

import array
from pathlib import Path
from typing import Any

import pytest

from drivers.devices import Backoff, PedalDriver
from drivers.input.locator import EvdevLocator
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.usb import protocol as p
from drivers.usb.codec import PedalReport, decode_report
from drivers.usb.locator import LocatorError, parse_locator, simulated_locator
from drivers.usb.presses import PressTracker
from drivers.usb.remote import RemoteBackend
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

from .test_drivers_guard_pedals import _FailingRequest

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0
READ_MS = 2000


# -- the driver ----------------------------------------------------------------------------------


def test_the_pedals_are_configured_only_by_a_usb_locator() -> None:
    with pytest.raises(TypeError, match="pedals: USB pedals are opened by a usb:// locator, not EvdevLocator"):
        PedalDriver.from_config("pedals", EvdevLocator("/dev/input/event3"), lambda event: None, baudrate=0)


def test_a_unit_lost_while_greeted_is_not_given_back_to_the_os_between_attempts(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    """The version request times out: the outage is reported and the unit asked again, and in
    between the OS driver is never bound to it again; stopping the station gives it back once."""
    pedal = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    bus = _FailingRequest(pedal)
    bus.failing = p.REQUEST_PROTOCOL_VERSION
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), events, backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    assert events.wait_kind(DeviceFault)[0].code == "no-response"
    events.wait_kind(DeviceRecovered)
    pedal.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert (pedal.counters.kernel_detaches, pedal.counters.kernel_attaches) == (1, 0)  # detached once, kept
    driver.stop()
    assert (pedal.counters.kernel_detaches, pedal.counters.kernel_attaches) == (1, 1)  # given back on the way out


# -- the codec, the locator, the press tracker ----------------------------------------------------


def test_a_report_holding_more_than_eight_buttons_cannot_be_built() -> None:
    assert PedalReport(0, p.EventType.DOWN, 7, 255).held == 255  # every one of the eight held
    with pytest.raises(ValueError, match=r"held 256 outside 0\.\.255"):
        PedalReport(0, p.EventType.DOWN, 0, 256)


def test_a_locators_product_id_is_read_in_hexadecimal() -> None:
    locator = parse_locator("usb://1209:beef?serial=PED-0001")
    assert (locator.vendor_id, locator.product_id, locator.serial) == (0x1209, 0xBEEF, "PED-0001")
    assert parse_locator("1209:00ff").product_id == 0xFF


def test_a_locator_option_without_a_value_is_a_locator_error_and_a_trailing_ampersand_is_nothing() -> None:
    with pytest.raises(LocatorError, match="option 'serial' needs exactly one value"):
        parse_locator("usb://1209:0001?serial")
    assert parse_locator("usb://1209:0001?serial=PED-0001&").serial == "PED-0001"


def test_the_press_tracker_counts_each_report_it_accepts_once_and_no_duplicate() -> None:
    tracker = PressTracker()
    tracker.feed(PedalReport(0, p.EventType.DOWN, 0, 0b1))
    tracker.feed(PedalReport(0, p.EventType.DOWN, 0, 0b1))  # delivered twice: skipped
    tracker.feed(PedalReport(1, p.EventType.UP, 0, 0, hold_cs=12))
    assert (tracker.counts.reports, tracker.counts.duplicates, tracker.counts.presses) == (2, 1, 1)


# -- the remote backend -------------------------------------------------------------------------


def test_a_remote_interrupt_read_into_a_buffer_of_words_asks_for_every_byte_it_holds(tmp_path: Path) -> None:
    """Eight 16-bit words hold sixteen bytes, the endpoint's packet: a 9-byte report fits. The
    remote bus reads the press's UP as the bus in process read its DOWN."""
    pedal = SimulatedPedal("PED-R-1", timed_long_press=False, kernel_driver=False)
    bus = SimulatedBackend([pedal])
    server = PedalSimServer(str(tmp_path / "p.sock"), bus).start()
    remote = RemoteBackend(str(tmp_path / "p.sock"))
    try:
        pedal.click("left")
        read: list[tuple[int, PedalReport]] = []
        backends: tuple[Any, ...] = (bus, remote)  # pyusb's backend interface, untyped
        for backend in backends:
            handle = backend.open_device(next(iter(backend.enumerate_devices())))
            try:
                buffer = array.array("H", [0] * 8)  # filled by the report
                count = backend.intr_read(handle, p.ENDPOINT_IN, p.INTERFACE_NUMBER, buffer, READ_MS)
                read.append((count, decode_report(buffer.tobytes()[:count])))
            finally:
                backend.close_device(handle)
        assert [(count, report.event, report.button) for count, report in read] == [
            (9, p.EventType.DOWN, 0), (9, p.EventType.UP, 0)]
    finally:
        remote.close()
        server.stop()
