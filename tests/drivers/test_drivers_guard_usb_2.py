"""Guard tests of the USB pedals' port, driver and remote backend, second set (the ``drivers``
mutation guard, docs/testing.md), against the simulated unit on the simulated pyusb bus, units
that differ from it on purpose, and the simulator served on a Unix socket.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* a unit whose interface 0 is not the pedals' class (or that has no interface 0) is the
  outage ``wrong-device``, and it is not read (``drivers/transport/usb_port.py``, ``_claim``);
* the ``GET_STATUS`` that greets the unit and the heartbeats are the standard request as USB 2.0
  (9.4.5) has it: ``wValue`` 0, ``wIndex`` 0, two bytes; a unit that stalls any other form (the
  standard leaves it undefined) still connects (``_get_status``);
* a self-test asked of pedals not connected is ``DeviceUnavailable`` (``control_in``), and a
  port not open refuses a read, a heartbeat and a stall's clearing as ``not-connected``
  (``_require``: the driver never asks, the port's own promise);
* the driver's ``frames_out`` counts the greeting, the version request and each heartbeat
  (``drivers/devices/pedals.py``, ``_idle``), and by default three stalls in a row end the link
  (``stall_limit``, 3 in docs/drivers.md);
* a host-to-device request crosses the remote wire as one (its data sent, not a length asked
  for): the unit stalls it there as in process (``drivers/usb/remote.py``, ``ctrl_transfer``).
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import usb.core

from drivers.devices import Backoff, DeviceUnavailable, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.transport.usb_port import UsbLinkLost, UsbPort
from drivers.usb import protocol as p
from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import simulated_locator
from drivers.usb.remote import RemoteBackend
from station.events import DeviceFault
from tests.devices.rigs import EventLog

from ..waiting import wait_until

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
WAIT = 10.0




class _OtherInterface(SimulatedPedal):
    """A unit with the pedals' VID:PID whose interface descriptor says ``changes``."""

    def __init__(self, **changes: int) -> None:
        super().__init__("PED-SIM-0001", timed_long_press=False)
        self.changes = changes

    def interface_descriptor(self, intf: int, alt: int, config: int) -> Descriptor:
        return Descriptor(**{**super().interface_descriptor(intf, alt, config).fields(), **self.changes})


@pytest.mark.parametrize("changes", [{"bInterfaceClass": 0xFF}, {"bInterfaceNumber": 1}],
                         ids=["vendor-class", "no-interface-0"])
def test_a_unit_without_the_pedal_interface_is_the_wrong_device(events: EventLog, drivers: list[PedalDriver],
                                                               changes: dict[str, int]) -> None:
    unit = _OtherInterface(**changes)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("wrong-device", "1209:0001 serial PED-SIM-0001 has no pedal interface 0")
    assert not driver.connected and unit.counters.claims == 0  # never taken for pedals


class _StrictGetStatus(SimulatedPedal):
    """A unit that stalls a ``GET_STATUS`` not in the standard's form (USB 2.0, 9.4.5)."""

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int,
                timeout_ms: int) -> bytes:
        if (request_type, request) == (p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS) and (value, index, length) != (
                0, 0, 2):
            raise usb_error(LibusbError.PIPE)
        return super().control(generation, request_type, request, value, index, length, timeout_ms)


def test_the_greeting_and_heartbeats_are_standard_get_status_requests_each_counted(
        events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = _StrictGetStatus("PED-SIM-0001", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=20, heartbeat_s=0.05)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    wait_until(lambda: driver.stats.heartbeats >= 3, WAIT, "three heartbeats answered", detail=lambda: events.events)
    driver.stop()
    assert events.kinds() == []  # never a fault: every GET_STATUS was answered
    assert driver.stats.frames_out == 2 + driver.stats.heartbeats  # greeting, version request, heartbeats


def test_a_self_test_of_pedals_not_connected_is_device_unavailable(events: EventLog) -> None:
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([SimulatedPedal()]), "PED-SIM-0001"), events,
                         backoff=FAST)
    with pytest.raises(DeviceUnavailable, match="pedals 'pedals' are not connected"):
        driver.self_test()


def test_a_port_not_open_refuses_every_transfer_as_not_connected() -> None:
    port = UsbPort(simulated_locator(SimulatedBackend([SimulatedPedal()]), "PED-SIM-0001"))
    for transfer in (lambda: port.read(10), port.heartbeat, port.clear_halt,
                     lambda: port.control_in(p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS, 0, 0, 2)):
        with pytest.raises(UsbLinkLost) as lost:
            transfer()
        assert (lost.value.code, lost.value.reason) == ("not-connected",
                                                        "not connected (1209:0001 serial PED-SIM-0001)")


def test_by_default_three_stalls_in_a_row_end_the_link(events: EventLog, drivers: list[PedalDriver]) -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    assert driver.start() and driver.wait_connected(WAIT)
    unit.stall(persistent=True)
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("stalled", "the pedals' endpoint stalled 3 times in a row")


def test_a_host_to_device_request_crosses_the_remote_wire_as_one(tmp_path: Path) -> None:
    """The pedals define no host-to-device request: the unit stalls one (docs/protocols/pedals.md),
    here the self-test request sent the wrong way, with data."""
    bus = SimulatedBackend([SimulatedPedal("PED-R-1", timed_long_press=False)])
    server = PedalSimServer(str(tmp_path / "p.sock"), bus).start()
    backend = RemoteBackend(str(tmp_path / "p.sock"))
    try:
        results = []
        for through in (bus, backend):
            device = usb.core.find(idVendor=p.VENDOR_ID, idProduct=p.PRODUCT_ID, backend=through)
            assert device is not None
            with pytest.raises(usb.core.USBError) as stalled:
                device.ctrl_transfer(0x41, p.REQUEST_SELF_TEST, 0, p.INTERFACE_NUMBER, b"\x01\x02")
            status = bytes(device.ctrl_transfer(p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS, 0, 0, 2))
            results.append((type(stalled.value), stalled.value.errno, status))
            usb.util.dispose_resources(device)
        assert results == [(usb.core.USBError, errno.EPIPE, b"\x00\x00")] * 2
    finally:
        backend.close()
        server.stop()
