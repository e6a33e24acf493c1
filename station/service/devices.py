"""The table's devices as the configuration names them: one driver each, behind one contract.

Every configured device gets its driver from the driver table
(:func:`drivers.factory.configured_driver`) and is held as a
:class:`~drivers.devices.contract.Device`: the set starts them, tests them and stops them
without asking which device or transport any of them is.

The transport is the seam (ARCHITECTURE.md): a device is opened where its configuration says,
unless ``endpoints`` says otherwise. That is how simulation plugs in: whoever starts the
simulators (the simulation plug-in for ``station run``/``demo``, the diagnostics) hands their
endpoints here, and the very driver a real device gets opens them. This module starts no
simulator and imports none; a ``sim:`` device with no endpoint given is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import structlog

from drivers.devices import DeviceError
from drivers.devices.contract import Device, DeviceEndpoint
from drivers.factory import configured_driver
from station.config.devices import DeviceSection, DevicesSection
from station.events import Event

log = structlog.get_logger(__name__)

SIM = "sim:"


class DeviceSetupError(ValueError):
    """A configured device that cannot be set up; the message names it (``devices.shoe: ...``)."""


def device_state(device: Device) -> str:
    """A device's state as ``station ctl status`` shows it: ``connected``, ``not connected``, or
    ``refused: <why>`` for a device that answers but is not used (a protocol version the
    station does not speak), the line naming both versions."""
    refused = device.refused
    if refused is not None:
        return f"refused: {refused}"
    return "connected" if device.connected else "not connected"


@dataclass
class SelfTestOutcome:
    device: str
    passed: bool
    detail: str


@dataclass
class DeviceSet:
    """Every configured device's driver, and where each is opened."""

    drivers: dict[str, Device] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)  # where each device is opened, as people read it

    def __iter__(self) -> Iterator[tuple[str, Device]]:
        return iter(self.drivers.items())

    def get(self, name: str) -> Device | None:
        return self.drivers.get(name)

    def start(self, wait_s: float = 5.0) -> None:
        """Start every device, each given at most ``wait_s`` to connect (an absent one keeps
        trying in the background, and says so: it is never logged as connected)."""
        for name, driver in self.drivers.items():
            if driver.start(wait_s):
                log.info("device_connected", device=name, url=self.urls[name])
            else:
                log.warning("device_not_connected", device=name, url=self.urls[name],
                            detail=f"no answer within {wait_s:g} s; the station keeps trying")

    def self_tests(self) -> list[SelfTestOutcome]:
        """Ask every device to test itself; a device that cannot answer fails its test."""
        outcomes = []
        for name, driver in self.drivers.items():
            try:
                report = driver.self_test()
            except DeviceError as exc:
                outcomes.append(SelfTestOutcome(name, False, str(exc)))
                continue
            detail = report.detail or ("ok" if report.passed else "failed")
            outcomes.append(SelfTestOutcome(name, report.passed, detail))
        return outcomes

    def stop(self) -> None:
        for name, driver in self.drivers.items():
            try:
                driver.stop()
            except Exception:  # stopping must go on for the others
                log.exception("device_stop_failed", device=name)


def build_devices(
    devices: DevicesSection,
    emit: Callable[[Event], None],
    *,
    endpoints: Mapping[str, DeviceEndpoint] | None = None,
) -> DeviceSet:
    """Create (not start) a driver for every configured device.

    ``endpoints`` overrides where a device is opened: a port path or pyserial URL for a
    serial device, a locator (URL or :class:`~drivers.usb.locator.PedalLocator`) for the
    pedals; a simulator's starter passes its ``RunningSimulator.endpoint``. A device
    configured ``sim:`` must be given one.
    """
    built = DeviceSet()
    for name, section in devices.configured():
        endpoint = _endpoint(name, section, endpoints or {})
        built.drivers[name] = configured_driver(name, name, endpoint, emit, baudrate=section.baudrate,
                                                keys=section.keys or None)
        built.urls[name] = str(endpoint)
    return built


def _endpoint(name: str, section: DeviceSection, endpoints: Mapping[str, DeviceEndpoint]) -> DeviceEndpoint:
    endpoint = endpoints.get(name, section.url)
    if isinstance(endpoint, str) and endpoint.startswith(SIM):
        raise DeviceSetupError(
            f"devices.{name}: '{SIM}' needs the simulation plug-in (station run/demo start it); "
            "no simulator is running for it"
        )
    return endpoint
