"""The table's devices as the configuration names them: drivers, and simulators behind ``sim:``.

The transport is the seam (ARCHITECTURE.md): a device whose URL is ``sim:`` gets a simulator
started here, in-process, on a pseudo-terminal (or, for the USB pedals, behind a simulated
pyusb backend), and then exactly the same driver a real device gets, pointed at the
simulator. No driver has an ``if simulated`` in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog

from drivers.devices import DeviceError, SerialDeviceDriver
from drivers.factory import create_driver, parse_sim_url
from drivers.usb.driver import PedalDriver
from drivers.usb.locator import simulated_locator
from drivers.usb.simbackend import SimulatedBackend
from drivers.usb.simdevice import SimulatedPedal
from station.events import Event
from station.service.config import DevicesSection

log = structlog.get_logger(__name__)

SIM = "sim:"
Driver = SerialDeviceDriver | PedalDriver


@dataclass
class SelfTestOutcome:
    device: str
    passed: bool
    detail: str


@dataclass
class DeviceSet:
    """Every configured device: its driver, and its simulator when it is simulated."""

    drivers: dict[str, Driver] = field(default_factory=dict)
    simulators: dict[str, Any] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[tuple[str, Driver]]:
        return iter(self.drivers.items())

    def get(self, name: str) -> Driver | None:
        return self.drivers.get(name)

    def start(self, wait: float = 5.0) -> None:
        for name, driver in self.drivers.items():
            if isinstance(driver, PedalDriver):
                driver.start(wait_s=wait)
            else:
                driver.start(wait)
            log.info("device_started", device=name, url=self.urls[name])

    def self_tests(self) -> list[SelfTestOutcome]:
        """Ask every device to test itself; a device that cannot answer fails its test."""
        outcomes = []
        for name, driver in self.drivers.items():
            try:
                report = driver.self_test()
            except (DeviceError, OSError, RuntimeError) as exc:
                outcomes.append(SelfTestOutcome(name, False, str(exc)))
                continue
            # Serial devices answer (passed, code, detail); the USB pedals (ok, problems).
            passed = bool(getattr(report, "passed", getattr(report, "ok", False)))
            detail = str(getattr(report, "detail", "") or "; ".join(getattr(report, "problems", ())))
            detail = detail or ("ok" if passed else "failed")
            outcomes.append(SelfTestOutcome(name, passed, detail))
        return outcomes

    def stop(self) -> None:
        for name, driver in self.drivers.items():
            try:
                driver.stop()
            except Exception:  # stopping must go on for the others
                log.exception("device_stop_failed", device=name)
        # Serial simulators stop with their drivers; the pedals' simulation owns no thread.


class _PedalSimulation:
    """An in-process simulated pedal unit on its own simulated USB bus (no threads to stop)."""

    def __init__(self) -> None:
        self.device = SimulatedPedal(serial="PED-SIM-0001")
        self.backend = SimulatedBackend([self.device])


def simulator_options(name: str, section: Any, sim_defaults: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """What the simulator behind a ``sim:`` device is started with: the table's facts, then
    the device's ``options`` in the configuration, then the options in its URL."""
    return {"name": name, **(sim_defaults or {}).get(name, {}), **section.options, **parse_sim_url(section.url)}


def build_devices(
    devices: DevicesSection,
    emit: Callable[[Event], None],
    endpoints: Mapping[str, Any] | None = None,
    sim_defaults: dict[str, dict[str, Any]] | None = None,
) -> DeviceSet:
    """Create (not start) a driver for every configured device, simulators included.

    ``sim_defaults`` gives a simulator the table's facts (a continuous shuffler, 6 decks);
    a device's own ``options`` in the configuration override them. ``endpoints`` says where a
    device is opened instead of its configured URL (a port for a serial device, a locator for
    the pedals): a simulator another part of the station started; the driver is built as for
    a real device."""
    built = DeviceSet()
    for name, section in devices.configured():
        if name == "pedals":
            locator: Any
            if name in (endpoints or {}):
                locator = (endpoints or {})[name]
                built.urls[name] = str(locator)
            elif section.url == SIM:
                sim = _PedalSimulation()
                built.simulators[name] = sim
                locator = simulated_locator(sim.backend, serial=sim.device.serial)
                built.urls[name] = str(locator)
            else:
                locator = section.url
                built.urls[name] = section.url
            built.drivers[name] = PedalDriver(name, locator, emit)
            continue
        url = (endpoints or {}).get(name, section.url)
        sim_options = simulator_options(name, section, sim_defaults) if url.startswith(SIM) else None
        driver = create_driver(name, name, url, emit, sim_options=sim_options, baudrate=section.baudrate)
        if driver.simulator is not None:
            built.simulators[name] = driver.simulator  # stopped by the driver's stop()
        built.urls[name] = driver.url if driver.simulator is None else driver.simulator.url
        built.drivers[name] = driver
    return built
