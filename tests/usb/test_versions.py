"""The pedals in both versions of their protocol, through the real pyusb path: the driver asks
each unit its version on every connection and reads it in that version; a unit of a version
the station does not speak is refused in one line and given back to the operating system."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import structlog

from drivers.devices import PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.locator import simulated_locator
from station.events import DeviceFault, DeviceRecovered

from ..devices.rigs import EventLog


@pytest.mark.parametrize("version", list(p.PROTOCOL_VERSIONS))
def test_a_unit_is_read_in_the_version_it_speaks(version: int, make_driver: Callable[..., PedalDriver],
                                                 events: EventLog) -> None:
    pedal = SimulatedPedal("PED-V", timed_long_press=False, protocol_version=version)
    bus = SimulatedBackend([pedal])
    driver = make_driver(simulated_locator(bus, "PED-V"))
    assert driver.connected and driver.refused is None
    assert driver.identify().protocol_version == version == driver.protocol_version
    pedal.click("left")
    pedal.long_press("right")
    assert events.wait_presses(2) == [("left", False), ("right", True)]
    assert driver.self_test().passed
    # replugged, it is asked again (a unit's firmware may have been updated meanwhile)
    pedal.unplug()
    events.wait_kind(DeviceFault)
    pedal.replug()
    events.wait_kind(DeviceRecovered)
    pedal.click("centre")
    assert events.wait_presses(3)[-1] == ("centre", False)
    assert driver.stats.bad_frames == 0


@pytest.mark.parametrize(("announced", "which"), [(p.PROTOCOL_VERSION + 1, "newer"), (0, "older")])
def test_a_unit_of_a_version_the_station_does_not_speak_is_one_fault_line(
    announced: int, which: str, make_driver: Callable[..., PedalDriver], events: EventLog
) -> None:
    pedal = SimulatedPedal("PED-X", timed_long_press=False, announced_version=announced)
    bus = SimulatedBackend([pedal])
    with structlog.testing.capture_logs() as logs:
        driver = make_driver(simulated_locator(bus, "PED-X"))
        events.wait_kind(DeviceFault)
        events.wait_for(lambda _: driver.stats.connect_attempts >= 3, what="3 attempts")  # it keeps asking, quietly
    expected = (f"pedals (Dealer Pedals PED-X) speaks pedal protocol version {announced}, {which} than the "
                f"versions this station speaks (1-{p.PROTOCOL_VERSION})")
    faults = [e for e in events.events if isinstance(e, DeviceFault)]
    assert len(faults) == len(events.events) == 1
    assert (faults[0].code, faults[0].reason) == ("unsupported_version", expected)
    assert driver.refused == expected and not driver.connected
    assert [entry["reason"] for entry in logs if entry["event"] == "device_link_fault"] == [expected]
    assert pedal.kernel_driver_bound and not pedal.claimed  # not held: the OS has it back
