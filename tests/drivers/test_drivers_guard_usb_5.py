"""Guard tests of the USB pedals' port, locator and remote backend, fifth set (the ``drivers``
mutation guard, docs/testing.md), against the simulated unit on the simulated pyusb bus, the
simulator served on a Unix socket, and ``parse_locator``.

Each test answers a mutant that survived the guard's tests:

* closing the port hands the interface back to the operating system's driver only if the port
  took it from that driver: a unit whose OS driver was already let go of before the station
  opened it (by another program, or a udev rule) is left as it was found, without one
  (``drivers/transport/usb_port.py``, ``_kernel_driver_taken``);
* a pedal locator with an option it does not know (``?serail=`` for ``?serial=``) is refused
  with a message naming the option and the known ones, never read as if the option were not
  there, which would take any unit of that VID:PID for the one meant
  (``drivers/usb/locator.py``, ``_query``);
* a ``usb-sim:`` locator names the socket by an absolute path after three slashes: one with a
  host part (``usb-sim://tmp/pedals.sock``, a slash forgotten, would reach ``/pedals.sock``)
  or no path at all is refused (``parse_locator``);
* pyusb walking a remote unit's configuration finds its one interface and stops at the last
  alternate setting, as with the bus in process: asking the remote backend for a descriptor the
  unit lacks raises ``IndexError`` as libusb's backend does, the first time and again from the
  backend's cache of descriptors (``drivers/usb/remote.py``, ``_descriptor``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.transport.usb_port import UsbPort
from drivers.usb import protocol as p
from drivers.usb.locator import LocatorError, parse_locator, simulated_locator
from drivers.usb.remote import RemoteBackend

SERIAL = "PED-SIM-0001"


class _LogLines:
    """The port's logger: keeps each event's name."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def info(self, event: str, **fields: Any) -> None:
        self.events.append(event)

    def warning(self, event: str, **fields: Any) -> None:
        self.events.append(event)


# --- the OS driver: given back only when the port took it -----------------------------------------


def test_closing_leaves_a_unit_without_its_os_driver_when_the_port_did_not_take_it_away() -> None:
    unit = SimulatedPedal(SERIAL, timed_long_press=False)  # the OS has a driver for it
    bus = SimulatedBackend([unit])
    other = usb.core.find(idVendor=p.VENDOR_ID, idProduct=p.PRODUCT_ID, backend=bus)
    other.detach_kernel_driver(p.INTERFACE_NUMBER)  # another program lets go of the OS driver ...
    usb.util.dispose_resources(other)  # ... and exits, leaving the unit unbound
    assert not unit.kernel_driver_bound
    lines = _LogLines()
    port = UsbPort(simulated_locator(bus, SERIAL), log=lines)
    port.open()
    try:
        assert port.is_open and unit.claimed and not port.detached_kernel_driver
    finally:
        port.close(give_back=True)
    assert not unit.claimed  # the interface is released ...
    assert not unit.kernel_driver_bound and unit.counters.kernel_attaches == 0  # ... and left as found
    assert "pedals.release_failed" not in lines.events


# --- locators ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "usb://1209:0001?serail=PED-0001",
    "usb://1209:0001?serial=PED-0001&port=2",
    "usb-sim:///run/station/pedals.sock?serail=PED-SIM-0001",
])
def test_a_pedal_locator_with_an_unknown_option_is_refused_naming_it(url: str) -> None:
    unknown = "port" if "port=" in url else "serail"
    with pytest.raises(LocatorError, match=rf"unknown option\(s\) {unknown}; known: serial, id"):
        parse_locator(url)


def test_a_pedal_locator_lists_every_unknown_option_in_order() -> None:
    with pytest.raises(LocatorError, match=r"unknown option\(s\) bus, port; known: serial, id"):
        parse_locator("usb://1209:0001?port=2&serial=PED-0001&bus=1")


@pytest.mark.parametrize("url", [
    "usb-sim://run/station/pedals.sock?serial=PED-SIM-0001",  # a slash forgotten: "run" is a host
    "usb-sim:?serial=PED-SIM-0001",  # no socket at all
])
def test_a_simulator_locator_without_an_absolute_socket_path_is_refused(url: str) -> None:
    with pytest.raises(LocatorError, match="expected usb-sim:///absolute/path/to/socket"):
        parse_locator(url)


def test_a_simulator_locator_with_an_absolute_socket_path_is_accepted() -> None:
    locator = parse_locator("usb-sim:///run/station/pedals.sock?serial=PED-SIM-0001")
    assert (locator.vendor_id, locator.product_id, locator.serial) == (p.VENDOR_ID, p.PRODUCT_ID, "PED-SIM-0001")


# --- the remote backend: a descriptor the unit lacks ---------------------------------------------------


def _interfaces(backend: Any) -> tuple[list[tuple[int, int]], list[str]]:
    """The (interface, alternate setting) pairs pyusb finds walking the unit's configuration, and
    what asking twice for alternate setting 1, which the unit lacks, raises."""
    device = usb.core.find(idVendor=p.VENDOR_ID, idProduct=p.PRODUCT_ID, backend=backend)
    assert device is not None
    try:
        configuration = device[0]
        found = [(intf.bInterfaceNumber, intf.bAlternateSetting) for intf in configuration]
        raised = []
        for _ in range(2):  # the second answer comes from the remote backend's cache
            with pytest.raises(IndexError) as missing:
                configuration[(p.INTERFACE_NUMBER, 1)]
            raised.append(str(missing.value))
        return found, raised
    finally:
        usb.util.dispose_resources(device)


def test_a_remote_unit_s_configuration_lists_its_interface_and_a_missing_one_is_an_index_error(
        tmp_path: Path) -> None:
    bus = SimulatedBackend([SimulatedPedal("PED-R-1", timed_long_press=False)])
    server = PedalSimServer(str(tmp_path / "p.sock"), bus).start()
    remote = RemoteBackend(str(tmp_path / "p.sock"))
    try:
        in_process = _interfaces(bus)
        assert in_process == ([(p.INTERFACE_NUMBER, 0)], ["Invalid alternate setting index 1"] * 2)
        assert _interfaces(remote) == in_process  # the remote unit is walked as the one in process
    finally:
        remote.close()
        server.stop()
