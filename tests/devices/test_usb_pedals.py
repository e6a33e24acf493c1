"""What the USB pedals' end does beyond the device contract: their descriptors, their interface
given back to the system, every kind of damaged report, and a stalled endpoint.

Run on every rig of the pedals: the simulated unit behind the simulated pyusb backend, the
same unit served on a Unix socket (``usb-sim://``), and a real unit when the environment
names one (see conftest.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import usb.core
import usb.util

from drivers.devices import PedalDriver, PedalStatus, UsbIdentity
from drivers.devices.contract import Device
from drivers.simulators.pedals.faults import CORRUPTIONS
from drivers.usb import protocol as p
from drivers.usb.locator import PedalLocator, parse_locator
from station.events import ButtonPressed, DeviceFault, DeviceRecovered

from .rigs import PROFILES, RIGS, EventLog, Rig, rig_id, started_rig

USB_RIGS = [param for param in RIGS if PROFILES[param[0]].transport == "usb"]


@pytest.fixture(params=USB_RIGS, ids=rig_id)
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    yield from started_rig(*request.param)


def _locator(rig: Rig) -> PedalLocator:
    assert isinstance(rig.endpoint, (str, PedalLocator))
    return rig.endpoint if isinstance(rig.endpoint, PedalLocator) else parse_locator(rig.endpoint)


def test_identity_comes_from_the_descriptors(rig: Rig, device: Device) -> None:
    identity = device.identify()
    locator = _locator(rig)
    assert isinstance(identity, UsbIdentity)
    assert (identity.vendor_id, identity.product_id) == (locator.vendor_id, locator.product_id)
    assert re.fullmatch(r"\d{1,2}\.\d{2}", identity.firmware)
    if locator.serial:
        assert identity.serial == locator.serial
    assert identity.manufacturer and identity.model


def test_status_is_the_self_test_reading_of_an_idle_healthy_unit(device: Device) -> None:
    status = device.status()
    assert isinstance(status, PedalStatus)
    assert status.ok, status.problems
    assert status.long_press_ms > 0 and status.installed


def test_stop_releases_the_interface_for_other_programs(rig: Rig, device: Device) -> None:
    device.stop()
    locator = _locator(rig)
    backend = locator.backend_factory()
    found = usb.core.find(idVendor=locator.vendor_id, idProduct=locator.product_id, backend=backend)
    assert found is not None
    try:
        if found.is_kernel_driver_active(p.INTERFACE_NUMBER):
            found.detach_kernel_driver(p.INTERFACE_NUMBER)
            reattach = True
        else:
            reattach = False
        usb.util.claim_interface(found, p.INTERFACE_NUMBER)  # would be EBUSY if still held
        usb.util.release_interface(found, p.INTERFACE_NUMBER)
        if reattach:
            found.attach_kernel_driver(p.INTERFACE_NUMBER)
    finally:
        usb.util.dispose_resources(found)
        close = getattr(backend, "close", None)
        if callable(close):
            close()


def test_damaged_reports_of_every_kind_are_never_presses(rig: Rig, device: Device, events: EventLog) -> None:
    pedal = rig.simulated()
    for how in CORRUPTIONS:
        pedal.corrupt_next(2, how)
        pedal.click("left")
    pedal.click("right")
    assert events.wait_presses(1) == [("right", False)]
    assert device.stats.bad_frames == 2 * len(CORRUPTIONS)
    assert [type(e).__name__ for e in events.events] == ["ButtonPressed"]


def test_persistent_stall_is_a_fault_until_it_clears(rig: Rig, device: Device, events: EventLog) -> None:
    pedal = rig.simulated()
    assert isinstance(device, PedalDriver)
    pedal.stall(persistent=True)
    assert events.wait_kind(DeviceFault)[-1].code == "stalled"
    pedal.unstall()
    events.wait_kind(DeviceRecovered)
    pedal.click("centre")
    events.wait_kind(ButtonPressed)
    assert events.presses() == [("centre", False)]
