"""The service's device code builds every device without the simulation: it imports no
simulator, and a ``sim:`` device nobody started a simulator for is refused, naming the device.

Checked in a fresh interpreter, since this test process has imported the simulators already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from station.config.devices import DeviceSection, DevicesSection
from station.service.devices import DeviceSetupError, build_devices

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

FRESH = textwrap.dedent(
    """
    import sys
    from station.config.devices import DeviceSection, DevicesSection
    from station.service.devices import build_devices
    devices = DevicesSection(
        shoe=DeviceSection(url="sim:"), display=DeviceSection(url="/dev/serial/by-id/board"),
        pedals=DeviceSection(url="sim:"),
    )
    built = build_devices(devices, lambda event: None, endpoints={"shoe": "/tmp/shoe", "pedals": "usb://1209:0001"})
    assert sorted(built.drivers) == ["display", "pedals", "shoe"], built.drivers
    loaded = sorted(m for m in sys.modules if m.startswith("drivers.simulators") or m.startswith("drivers.usb.sim"))
    print(loaded)
    """
)


def test_building_devices_imports_no_simulator() -> None:
    result = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_sim_device_without_a_simulator_is_refused_by_name() -> None:
    devices = DevicesSection(shoe=DeviceSection(url="/dev/serial/by-id/shoe"), display=DeviceSection(url="sim:?seed=3"))
    with pytest.raises(DeviceSetupError) as refused:
        build_devices(devices, lambda event: None)
    assert str(refused.value) == (
        "devices.display: 'sim:' needs the simulation plug-in (station run/demo start it); "
        "no simulator is running for it"
    )


def test_an_endpoint_overrides_where_a_configured_device_is_opened() -> None:
    devices = DevicesSection(shoe=DeviceSection(url="sim:", baudrate=9600))
    built = build_devices(devices, lambda event: None, endpoints={"shoe": "socket://127.0.0.1:9"})
    assert built.urls == {"shoe": "socket://127.0.0.1:9"}
    shoe = built.drivers["shoe"]
    assert shoe.link.transport.baudrate == 9600  # type: ignore[attr-defined]  # a serial driver's link; not in Device
