"""Guard tests of the USB pedals' driver (the ``drivers`` mutation guard, docs/testing.md),
against the simulated unit on the simulated pyusb bus, and a bus that fails one request on
purpose.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* only stalls *in a row* end the link: the count starts at 0 on every connection and again
  after every report read, so with a limit of 2 a stall now and then is cleared, never a
  fault (``drivers/devices/pedals.py``, ``_stalls_in_a_row``);
* a unit that does not answer the protocol version request in time is the outage
  ``no-response`` that says so, and is tried again (``_ask_version``);
* a self-test request the bus fails (not a timeout) is ``DeviceUnavailable`` saying so, and the
  pedals are read on as before (``_self_test``).
"""

from __future__ import annotations

import array

import pytest

from drivers.devices import Backoff, DeviceUnavailable, PedalDriver
from drivers.simulators.pedals.backend import SimHandle, SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import simulated_locator
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

from ..waiting import wait_until

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0



@pytest.fixture
def pedal() -> SimulatedPedal:
    return SimulatedPedal("PED-SIM-0001", timed_long_press=False)



class _FailingRequest(SimulatedBackend):
    """A bus that fails the next vendor request ``failing`` (a ``bRequest``) with ``error``."""

    def __init__(self, pedal: SimulatedPedal) -> None:
        super().__init__([pedal])
        self.failing: int | None = None
        self.error = LibusbError.TIMEOUT

    def ctrl_transfer(self, dev_handle: SimHandle, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> int:
        if bmRequestType == p.VENDOR_IN_INTERFACE and bRequest == self.failing:
            self.failing = None
            raise usb_error(self.error)
        return int(super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout))


def stalled(driver: PedalDriver) -> int:
    return driver.stats.errors_by_kind.get("stalled", 0)


def no_fault(events: EventLog) -> bool:
    """True while the driver has reported no fault (asserts otherwise: waiting on is pointless)."""
    assert not [e for e in events.events if isinstance(e, DeviceFault)], events.events
    return True


def test_a_stall_now_and_then_is_cleared_never_a_fault(pedal: SimulatedPedal, events: EventLog,
                                                        drivers: list[PedalDriver]) -> None:
    """With a limit of 2, one stall right after connecting, one after a report, one after the
    next: never two in a row, so never a fault."""
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50, stall_limit=2)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    for n in (1, 2, 3):
        pedal.stall()
        wait_until(lambda n=n: no_fault(events) and stalled(driver) >= n and pedal.counters.clear_halts >= n,  # type: ignore[misc]
                   WAIT, f"stall {n} met and cleared", detail=lambda: events.events)
        pedal.click("left")
        assert len(events.wait_presses(n)) == n
    assert events.kinds() == ["ButtonPressed"] * 3
    assert stalled(driver) == 3 and driver.connected


def test_a_protocol_version_request_not_answered_is_the_outage_no_response(pedal: SimulatedPedal, events: EventLog,
                                                                           drivers: list[PedalDriver]) -> None:
    bus = _FailingRequest(pedal)
    bus.failing = p.REQUEST_PROTOCOL_VERSION
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), events, backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "no-response" and "no answer to the protocol version request" in fault.reason
    events.wait_kind(DeviceRecovered)  # asked again, answered
    assert driver.protocol_version == p.PROTOCOL_VERSION
    pedal.click("right")
    assert events.wait_presses(1) == [("right", False)]


def test_a_self_test_request_the_bus_fails_is_device_unavailable(pedal: SimulatedPedal, events: EventLog,
                                                                 drivers: list[PedalDriver]) -> None:
    bus = _FailingRequest(pedal)
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), events, backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    bus.failing, bus.error = p.REQUEST_SELF_TEST, LibusbError.OVERFLOW
    with pytest.raises(DeviceUnavailable, match=r"self-test request failed: .*Overflow"):
        driver.self_test()
    assert driver.self_test().passed  # the next one is answered
    pedal.click("centre")
    assert events.wait_presses(1) == [("centre", False)]
    assert events.kinds() == ["ButtonPressed"]
