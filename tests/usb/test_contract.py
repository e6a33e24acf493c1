"""One contract for every way of reaching the pedals, as python-can runs one suite on every bus.

Rigs:

* ``sim`` - a simulated pedal on an in-process simulated pyusb backend;
* ``remote`` - the same simulated pedal served on a Unix socket and reached through
  ``usb-sim:///socket`` (the forwarding backend, real socket I/O);
* ``hardware`` - a real pedal unit through libusb-1.0, when ``STATION_USB_PEDALS`` names it
  (``1209:0001`` or ``usb://1209:0001?serial=PED-0001``). Tests that need someone to press a
  pedal or pull the cable also need ``STATION_USB_PEDALS_INTERACTIVE=1`` and ``pytest -s``:
  they print what to do and wait.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.usb import protocol as p
from drivers.usb.driver import PedalDriver
from drivers.usb.locator import PedalLocator, parse_locator, simulated_locator
from drivers.usb.remote import PedalSimServer
from drivers.usb.simbackend import SimulatedBackend
from drivers.usb.simdevice import CORRUPTIONS, SimulatedPedal
from station.events import DeviceFault, DeviceRecovered

HARDWARE = os.environ.get("STATION_USB_PEDALS", "")
INTERACTIVE = os.environ.get("STATION_USB_PEDALS_INTERACTIVE") == "1"


@dataclass
class Rig:
    name: str
    locator: PedalLocator
    pedal: SimulatedPedal | None  # None on hardware

    def act(self, what: str, instruction: str, do: Callable[[SimulatedPedal], None]) -> None:
        """Make something happen: the simulator does it, on hardware a person is asked to."""
        if self.pedal is not None:
            do(self.pedal)
            return
        if not INTERACTIVE:
            pytest.skip(f"needs a person to {what}: set STATION_USB_PEDALS_INTERACTIVE=1 and run pytest -s")
        print(f"\n>>> {instruction}", file=sys.stderr, flush=True)


@pytest.fixture(params=["sim", "remote", "hardware"])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    if request.param == "hardware":
        if not HARDWARE:
            pytest.skip("no real pedals named in STATION_USB_PEDALS")
        text = HARDWARE if "://" in HARDWARE else f"usb://{HARDWARE}"
        yield Rig("hardware", parse_locator(text), None)
        return
    pedal = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    bus = SimulatedBackend([pedal])
    if request.param == "sim":
        yield Rig("sim", simulated_locator(bus, "PED-SIM-0001"), pedal)
        return
    with tempfile.TemporaryDirectory(prefix="pedals-") as directory:
        server = PedalSimServer(os.path.join(directory, "pedals.sock"), bus).start()
        try:
            yield Rig("remote", parse_locator(f"{server.url}?serial=PED-SIM-0001"), pedal)
        finally:
            server.stop()


@pytest.fixture
def contract_driver(rig: Rig, make_driver: Callable[..., PedalDriver]) -> PedalDriver:
    driver = make_driver(rig.locator, heartbeat_s=0.05)
    assert driver.connected, f"could not connect to {rig.locator}"
    return driver


def test_identify(rig: Rig, contract_driver: PedalDriver) -> None:
    identity = contract_driver.identify()
    assert (identity.vendor_id, identity.product_id) == (rig.locator.vendor_id, rig.locator.product_id)
    assert re.fullmatch(r"\d{1,2}\.\d{2}", identity.firmware)
    if rig.locator.serial:
        assert identity.serial_number == rig.locator.serial
    assert identity.manufacturer and identity.product


def test_self_test_passes_on_an_idle_healthy_unit(contract_driver: PedalDriver) -> None:
    result = contract_driver.self_test()
    assert result.ok, result.problems
    assert result.long_press_ms > 0 and result.installed


def test_idle_unit_gives_no_events_and_answers_heartbeats(contract_driver: PedalDriver, events: Any) -> None:
    deadline_heartbeats = contract_driver.stats.heartbeats + 3
    events.wait_for(lambda _: contract_driver.stats.heartbeats >= deadline_heartbeats)
    assert events.events == []
    assert contract_driver.stats.corrupt == 0


def test_short_press(rig: Rig, contract_driver: PedalDriver, events: Any) -> None:
    rig.act("press a pedal", "Tap the LEFT pedal once, briefly.", lambda pedal: pedal.click("left"))
    assert events.wait_presses(1, timeout=60) == [("left", False)]


def test_long_press(rig: Rig, contract_driver: PedalDriver, events: Any) -> None:
    rig.act("hold a pedal", "Hold the RIGHT pedal down for two seconds, then let go.", lambda pedal: pedal.long_press("right"))
    assert events.wait_presses(1, timeout=60) == [("right", True)]


def test_unplug_and_replug(rig: Rig, contract_driver: PedalDriver, events: Any) -> None:
    rig.act("pull the cable", "Unplug the pedals' USB cable.", lambda pedal: pedal.unplug())
    assert events.wait_kind(DeviceFault, timeout=60)[-1].code in ("disconnected", "io-error")
    rig.act("plug the cable back", "Plug the pedals back in.", lambda pedal: pedal.replug())
    events.wait_kind(DeviceRecovered, timeout=60)
    rig.act("press a pedal", "Tap the CENTRE pedal once.", lambda pedal: pedal.click("centre"))
    assert events.wait_presses(1, timeout=60) == [("centre", False)]
    assert [type(e).__name__ for e in events.events] == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_stop_releases_the_interface_for_other_programs(rig: Rig, contract_driver: PedalDriver) -> None:
    contract_driver.stop()
    backend = rig.locator.backend_factory()
    device = usb.core.find(idVendor=rig.locator.vendor_id, idProduct=rig.locator.product_id, backend=backend)
    assert device is not None
    try:
        if device.is_kernel_driver_active(p.INTERFACE_NUMBER):
            device.detach_kernel_driver(p.INTERFACE_NUMBER)
            reattach = True
        else:
            reattach = False
        usb.util.claim_interface(device, p.INTERFACE_NUMBER)  # would be EBUSY if still held
        usb.util.release_interface(device, p.INTERFACE_NUMBER)
        if reattach:
            device.attach_kernel_driver(p.INTERFACE_NUMBER)
    finally:
        usb.util.dispose_resources(device)
        close = getattr(backend, "close", None)
        if callable(close):
            close()


def _simulated(rig: Rig) -> SimulatedPedal:
    if rig.pedal is None:
        pytest.skip("a real unit cannot be made to misbehave on demand")
    return rig.pedal


def test_damaged_reports_are_never_presses(rig: Rig, contract_driver: PedalDriver, events: Any) -> None:
    pedal = _simulated(rig)
    for how in CORRUPTIONS:
        pedal.corrupt_next(2, how)
        pedal.click("left")
    pedal.click("right")
    assert events.wait_presses(1) == [("right", False)]
    assert contract_driver.stats.corrupt == 2 * len(CORRUPTIONS)
    assert [type(e).__name__ for e in events.events] == ["ButtonPressed"]


def test_hung_unit_is_a_fault_until_it_answers_again(rig: Rig, make_driver: Callable[..., PedalDriver], events: Any) -> None:
    pedal = _simulated(rig)
    make_driver(rig.locator, heartbeat_s=0.05, control_timeout_ms=50)
    pedal.hang()
    assert events.wait_kind(DeviceFault)[-1].code == "no-response"
    pedal.unhang()
    events.wait_kind(DeviceRecovered)
    pedal.long_press("left")
    assert events.wait_presses(1) == [("left", True)]


def test_persistent_stall_is_a_fault_until_it_clears(rig: Rig, contract_driver: PedalDriver, events: Any) -> None:
    pedal = _simulated(rig)
    pedal.stall(persistent=True)
    assert events.wait_kind(DeviceFault)[-1].code == "stalled"
    pedal.unstall()
    events.wait_kind(DeviceRecovered)
    pedal.click("centre")
    assert events.wait_presses(1) == [("centre", False)]
