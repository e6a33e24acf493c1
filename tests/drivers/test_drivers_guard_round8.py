"""Guard tests of the foot switch, the USB pedals, their locators and the remote USB backend,
round 8 (the ``drivers`` mutation guard, docs/testing.md), through evdev's stand-in
(drivers/simulators/footswitch.py), the simulated unit on the simulated pyusb bus (and buses and
units made to differ on purpose), a socket that hangs up, and the locators' parsers.

Each test answers a mutant that survived the guard's tests:

* a foot switch named by its node path is that node and only it: another foot switch of the same
  kind plugged in beside it neither makes the name ambiguous nor is opened, and the named node is
  opened once (``drivers/devices/footswitch.py``, ``_find``);
* a released key's press is due the moment it has stayed up for the debounce time, not only
  after: at the time ``next_due`` names, ``due`` gives the press
  (``drivers/input/presses.py``, ``due``);
* a foot switch's locator of another scheme (``usb://``, a pedal unit's) is refused naming the
  two forms it takes, never read as if it were ``evdev://`` (``drivers/input/locator.py``);
* a pedal locator whose VID:PID is not four hex digits each is refused naming it
  (``drivers/usb/locator.py``, ``_ids``);
* a report the pedals send twice is one device event: ``events_delivered`` and the delivery
  observer count it once (``drivers/devices/pedals.py``, ``_handle_report``);
* a unit of the pedals' VID:PID whose serial number cannot be read, and no other, is the fault of
  that error (an I/O error: ``io-error``), not ``not-found``; beside the unit named, readable,
  it does not keep the station from that one (``drivers/transport/usb_port.py``, ``open``);
* a unit whose pedal interface has no interrupt IN endpoint is the outage ``wrong-device`` and is
  never claimed (``_claim``);
* a simulator that closes the connection without answering is a lost device (``ENODEV``) whose
  message says so, not a JSON error about an empty line (``drivers/usb/remote.py``, ``_call``).
"""

from __future__ import annotations

import errno
import socket
import threading
from pathlib import Path

import pytest
import usb.core

from drivers.devices import Backoff, FootSwitchDriver, PedalDriver
from drivers.input.keys import key_code
from drivers.input.locator import EvdevLocatorError, parse_evdev_locator
from drivers.input.presses import DOWN, UP, KeyPress, KeyPresses
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import LocatorError, parse_locator, simulated_locator
from drivers.usb.remote import RemoteBackend
from station.events import DeviceFault
from tests.devices.rigs import EventLog

from ..waiting import Sink

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0
SERIAL = "PED-SIM-0001"
F13 = key_code("KEY_F13")
GET_DESCRIPTOR, STRING = 0x06, 0x03  # USB 2.0, tables 9-4 and 9-5


# --- the foot switch named by its node path --------------------------------------------------------


def test_a_foot_switch_named_by_its_node_path_is_that_node_even_beside_another_of_its_kind(
        events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    backend = StandInBackend()
    other = StandInFootSwitch(backend=backend, path="/dev/input/event7")
    named = StandInFootSwitch(backend=backend, path="/dev/input/event8")
    driver = FootSwitchDriver("pedals", named.locator(path="/dev/input/event8"), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)  # not refused as ambiguous: the path names one node
    assert driver.identify().path == "/dev/input/event8" and driver.refused is None
    assert len(named.device.handles) == 1  # the named node, opened once
    assert other.device.handles == []  # the other foot switch is never opened
    named.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert events.kinds() == ["ButtonPressed"]


# --- key presses -------------------------------------------------------------------------------------


def test_a_released_key_is_a_press_the_moment_it_has_stayed_up_for_the_debounce_time() -> None:
    # Binary fractions, so "exactly the debounce time later" is exact in floating point.
    keys = KeyPresses(frozenset({F13}), debounce_s=0.25, long_press_s=2.0)
    assert keys.feed(F13, DOWN, 1.0) == []
    assert keys.feed(F13, UP, 1.5) == []
    wait = keys.next_due(1.5)
    assert wait == 0.25
    assert keys.due(1.5 + wait) == [KeyPress(F13)]  # when next_due said: not one tick later
    assert keys.next_due(1.75) is None and keys.counts.presses == 1


# --- locators ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["usb://0c45:7403", "usb-sim:///run/station/pedals.sock", "/dev/input/event7"])
def test_a_foot_switch_locator_of_another_scheme_is_refused_naming_the_forms_it_takes(url: str) -> None:
    with pytest.raises(EvdevLocatorError, match=r"a foot switch is evdev:///dev/input/\.\.\. or evdev://VID:PID"):
        parse_evdev_locator(url)


@pytest.mark.parametrize("ids", ["12:34", "1209:01", "1209-0001", "120g:0001"])
def test_a_pedal_locator_whose_vid_pid_is_not_four_hex_digits_each_is_refused_naming_it(ids: str) -> None:
    url = f"usb://{ids}?serial=PED-0001"
    with pytest.raises(LocatorError) as refused:
        parse_locator(url)
    assert str(refused.value) == f"{url}: {ids!r} is not VID:PID in hex (e.g. 1209:0001)"


# --- the pedals: a report sent twice is one event ------------------------------------------------------


def test_a_report_sent_twice_is_one_device_event_counted_and_observed_once(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = SimulatedPedal(SERIAL, timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    delivered: Sink[int] = Sink()
    driver.observe_deliveries(delivered)
    assert driver.start() and driver.wait_connected(WAIT)
    unit.duplicate_next(2)  # the left pedal's DOWN and UP each arrive twice
    unit.click("left")
    unit.click("right")
    assert events.wait_presses(2) == [("left", False), ("right", False)]
    # Four reports (two DOWNs, two UPs) reached the station, each once; the right pedal's UP is
    # the last, so once its count is told every count has been.
    assert delivered.wait_for(lambda seen: 4 in seen, what="the fourth report's delivery") == [1, 2, 3, 4]
    assert (driver.stats.events_delivered, driver.stats.duplicates) == (4, 2)


# --- the pedals' port: a serial number that cannot be read -------------------------------------------


class _SerialUnreadable(SimulatedPedal):
    """A unit whose firmware fails every request for a string but the language table (index 0)
    with an I/O error: it cannot say its serial number."""

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        if (request_type, request, value >> 8) == (0x80, GET_DESCRIPTOR, STRING) and value & 0xFF:
            raise usb_error(LibusbError.IO)
        return super().control(generation, request_type, request, value, index, length, timeout_ms)


def test_a_unit_whose_serial_cannot_be_read_is_the_fault_of_that_error_not_not_found(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _SerialUnreadable(SERIAL, timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start(0)
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("io-error", "cannot read the serial number of a 1209:0001 device: "
                                                      f"{usb_error(LibusbError.IO)}")
    assert not driver.connected and unit.counters.claims == 0


def test_a_unit_whose_serial_cannot_be_read_does_not_keep_the_station_from_the_one_named(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    stranger = _SerialUnreadable("PED-SIM-0009", timed_long_press=False)  # listed first
    unit = SimulatedPedal(SERIAL, timed_long_press=False)
    bus = SimulatedBackend([stranger, unit])
    driver = PedalDriver("pedals", simulated_locator(bus, SERIAL), events, backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    assert driver.identify().serial == SERIAL and unit.claimed and stranger.counters.claims == 0
    unit.click("centre")
    assert events.wait_presses(1) == [("centre", False)]
    assert events.kinds() == ["ButtonPressed"]  # never a fault


# --- the pedals' port: an interface without an interrupt IN endpoint ---------------------------------


class _OtherEndpoint(SimulatedPedal):
    """A unit with the pedals' interface whose one endpoint descriptor says ``changes``."""

    def __init__(self, **changes: int) -> None:
        super().__init__(SERIAL, timed_long_press=False)
        self.changes = changes

    def endpoint_descriptor(self, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        return Descriptor(**{**super().endpoint_descriptor(ep, intf, alt, config).fields(), **self.changes})


@pytest.mark.parametrize("changes", [{"bEndpointAddress": 0x01}, {"bmAttributes": 0x02}],
                         ids=["interrupt-out", "bulk-in"])
def test_a_unit_without_an_interrupt_in_endpoint_is_the_wrong_device_and_never_claimed(
        events: EventLog, drivers: list[PedalDriver], changes: dict[str, int]) -> None:
    unit = _OtherEndpoint(**changes)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), SERIAL), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start(0)
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("wrong-device", "1209:0001 serial PED-SIM-0001 has no interrupt IN endpoint")
    assert not driver.connected and unit.counters.claims == 0


# --- the remote backend: a simulator that hangs up ----------------------------------------------------


def test_a_simulator_that_closes_the_connection_unanswered_is_a_lost_device_saying_so(tmp_path: Path) -> None:
    path = str(tmp_path / "p.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    requests: list[bytes] = []

    def hang_up() -> None:  # a simulator stopped in the middle of a call: it reads, then closes
        conn, _ = listener.accept()
        with conn, conn.makefile("rb") as reader:
            requests.append(reader.readline())

    server = threading.Thread(target=hang_up, name="hang-up", daemon=True)
    server.start()
    backend = RemoteBackend(path)
    try:
        with pytest.raises(usb.core.USBError) as lost:
            list(backend.enumerate_devices())
        assert lost.value.errno == errno.ENODEV and lost.value.backend_error_code == int(LibusbError.NO_DEVICE)
        assert str(lost.value).endswith(f"pedal simulator at {path} not reachable: the simulator closed the connection")
        assert b'"op": "enumerate_devices"' in requests[0]  # the request did reach it
    finally:
        backend.close()
        listener.close()
        server.join(WAIT)
