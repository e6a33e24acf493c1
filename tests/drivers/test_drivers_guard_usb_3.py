"""Guard tests of the USB pedals' port, error vocabulary and firmware version codec, third set
(the ``drivers`` mutation guard, docs/testing.md), against the simulated unit on the simulated
pyusb bus and units made to fail on purpose.

Each test answers a mutant that survived the guard's tests:

* the port says it took the unit from the operating system's driver only when it did: a unit
  the OS had bound is taken (and says so while open), one it had not bound, or a platform with
  no kernel drivers to detach, is not; a port not open has taken nothing
  (``drivers/transport/usb_port.py``, ``detached_kernel_driver`` and ``_claim``);
* a stall whose clearing fails ends the link at once with the clearing's own fault (an I/O error
  is ``io-error``, "clearing the stall failed"), never read on as if cleared until the stall
  limit (``clear_halt``);
* a unit that does not answer the greeting within the control timeout is the fault
  ``no-response``, not a generic USB error (``drivers/usb/errors.py``, ``fault_code``);
* a firmware version is MAJOR.MINOR with one or two digits each, a single minor digit being
  tenths ("1.2" is bcdDevice 0x0120, read back "1.20"); a three-digit minor is refused
  (``drivers/usb/protocol.py``, ``bcd_from_version``).
"""

from __future__ import annotations

import errno
import re

import pytest

from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimHandle, SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.usb_port import UsbPort
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, fault_code, usb_error
from drivers.usb.locator import simulated_locator
from station.events import DeviceFault
from tests.devices.rigs import EventLog

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0


# --- the OS driver: taken only when it held the unit ---------------------------------------------


class _NoKernelDrivers(SimulatedBackend):
    """A bus on a platform without kernel drivers to detach (as pyusb's backend is on Windows
    and macOS: the call is not implemented)."""

    def is_kernel_driver_active(self, dev_handle: SimHandle, intf: int) -> bool:
        raise usb_error(LibusbError.NOT_SUPPORTED)


def test_a_port_has_taken_the_unit_from_the_os_driver_only_while_it_holds_a_unit_the_os_had_bound() -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    port = UsbPort(simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"))
    assert not port.detached_kernel_driver  # not open: nothing taken
    port.open()
    try:
        assert port.detached_kernel_driver and not unit.kernel_driver_bound and unit.claimed
    finally:
        port.close(give_back=True)
    assert not port.detached_kernel_driver  # closed: nothing held any more
    assert unit.kernel_driver_bound and not unit.claimed  # and the OS has it back


@pytest.mark.parametrize("bus", [SimulatedBackend, _NoKernelDrivers], ids=["not-bound", "no-kernel-drivers"])
def test_a_unit_no_os_driver_held_is_not_said_to_be_taken_from_it(bus: type[SimulatedBackend]) -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False, kernel_driver=False)
    port = UsbPort(simulated_locator(bus([unit]), "PED-SIM-0001"))
    port.open()
    try:
        assert port.is_open and unit.claimed
        assert not port.detached_kernel_driver
        assert unit.counters.kernel_detaches == 0
    finally:
        port.close(give_back=True)
    assert not unit.claimed and unit.counters.kernel_attaches == 0  # nothing to give back


# --- a stall that cannot be cleared ------------------------------------------------------------


class _ClearHaltFails(SimulatedPedal):
    """A unit whose endpoint halt cannot be cleared: the request fails with an I/O error."""

    def clear_halt(self, generation: int, ep: int) -> None:
        raise usb_error(LibusbError.IO)


def test_a_stall_whose_clearing_fails_ends_the_link_with_the_clearing_s_fault(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _ClearHaltFails("PED-SIM-0001", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50, stall_limit=3)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    unit.stall()  # an ordinary stall, that a working CLEAR_FEATURE would end
    fault = events.wait_kind(DeviceFault, 1, WAIT)[0]
    assert (fault.code, fault.reason) == ("io-error",
                                          f"clearing the stall failed: [Errno {errno.EIO}] Input/output error")
    assert driver.stats.errors_by_kind.get("stalled") == 1  # the first stall, not three


# --- a unit that does not answer ---------------------------------------------------------------


def test_a_timed_out_transfer_is_the_fault_no_response() -> None:
    assert fault_code(usb_error(LibusbError.TIMEOUT)) == "no-response"


def test_a_unit_that_does_not_answer_the_greeting_is_the_fault_no_response(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    unit.hang()  # enumerated, but its firmware answers no control request
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit])), events, backoff=FAST,
                         read_timeout_ms=50, control_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    fault = events.wait_kind(DeviceFault, 1, WAIT)[0]
    assert fault.code == "no-response"
    assert fault.reason == f"cannot open 1209:0001: [Errno {errno.ETIMEDOUT}] Operation timed out"
    assert not driver.connected


# --- the firmware version in bcdDevice ---------------------------------------------------------


@pytest.mark.parametrize(("version", "bcd", "read_back"), [
    ("1.02", 0x0102, "1.02"), ("1.2", 0x0120, "1.20"), ("12.34", 0x1234, "12.34"), ("0.9", 0x0090, "0.90"),
])
def test_a_firmware_version_has_one_or_two_digits_each_side_a_single_minor_digit_being_tenths(
        version: str, bcd: int, read_back: str) -> None:
    assert p.bcd_from_version(version) == bcd
    assert p.firmware_version(bcd) == read_back


@pytest.mark.parametrize("version", ["1.234", "123.4", "1", "1.", ".2", "1.x2", "v1.02"])
def test_a_firmware_version_not_major_minor_with_up_to_two_digits_each_is_refused(version: str) -> None:
    with pytest.raises(ValueError, match=rf"^firmware version {re.escape(repr(version))} is not MAJOR\.MINOR with up "
                                         r"to two digits each$"):
        p.bcd_from_version(version)


def test_a_unit_with_a_one_digit_minor_version_identifies_with_it_in_tenths(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = SimulatedPedal("PED-SIM-0001", firmware="2.1", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    assert driver.identify().firmware == "2.10"

