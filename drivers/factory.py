"""The driver table as a factory: a device's kind and where it is opened give its driver.

``create_driver("shoe", "shoe", "/dev/serial/by-id/usb-ACME_Shoe-if00", emit)`` builds the
shoe's driver, ``create_driver("pedals", "pedals", "usb://1209:0001?serial=PED-0001", emit)``
the pedals' one: every device through the same call, each a
:class:`~drivers.devices.contract.Device`. A simulator is opened the same way, by the
endpoint its starter got from ``drivers.simulators.start_simulator``: no driver knows whether
it talks to hardware, and none owns or stops a simulator.
"""

from __future__ import annotations

from typing import Any

from drivers.devices import DRIVERS
from drivers.devices.contract import Device, DeviceClass, DeviceEndpoint, Emit


def driver_class(kind: str) -> DeviceClass:
    """The driver of ``kind``: ``shoe``, ``shuffler``, ``display``, ``buttonbox`` or ``pedals``."""
    try:
        return DRIVERS[kind]
    except KeyError:
        raise ValueError(f"unknown device kind {kind!r}; choose from {sorted(DRIVERS)}") from None


def create_driver(kind: str, name: str, endpoint: DeviceEndpoint, emit: Emit, **options: Any) -> Device:
    """The driver for ``kind`` on ``endpoint``, with the options of that driver class
    (``settings=``/``baudrate=`` for serial devices, ``buttons=``, ``backoff=``... for the pedals)."""
    cls: Any = driver_class(kind)
    device: Device = cls(name, endpoint, emit, **options)
    return device


def configured_driver(kind: str, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int) -> Device:
    """The driver as the station's configuration describes the device (endpoint and line speed)."""
    return driver_class(kind).from_config(name, endpoint, emit, baudrate=baudrate)
