"""The driver table as a factory: a device's kind and where it is opened give its driver.

``create_driver("shoe", "shoe", "/dev/serial/by-id/usb-ACME_Shoe-if00", emit)`` builds the
shoe's driver, ``create_driver("pedals", "pedals", "usb://1209:0001?serial=PED-0001", emit)``
the pedals' one, and ``evdev://0c45:7403`` as the pedals' endpoint a commodity foot switch's
(:class:`~drivers.devices.footswitch.FootSwitchDriver`): every device through the same call, each a
:class:`~drivers.devices.contract.Device`. A simulator is opened the same way, by the
endpoint its starter got from ``drivers.simulators.start_simulator``: no driver knows whether
it talks to hardware, and none owns or stops a simulator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivers.devices import DRIVERS
from drivers.devices.cardreader import CardReaderDriver
from drivers.devices.contract import Device, DeviceClass, DeviceEndpoint, Emit
from drivers.devices.footswitch import FootSwitchDriver
from drivers.input.locator import EvdevLocator, is_evdev_url


def is_foot_switch(kind: str, endpoint: DeviceEndpoint) -> bool:
    """Pedals opened through evdev: a commodity foot switch or keypad, not the USB pedal protocol."""
    return kind == "pedals" and (isinstance(endpoint, EvdevLocator)
                                 or (isinstance(endpoint, str) and is_evdev_url(endpoint)))


def driver_class(kind: str, endpoint: DeviceEndpoint | None = None) -> DeviceClass:
    """The driver of ``kind``: ``shoe``, ``shuffler``, ``display``, ``buttonbox``, ``pedals`` (the
    foot switch's when the pedals' ``endpoint`` is an evdev one), ``sign`` (the progressive sign),
    ``chipreader`` (the RFID chip reader) or ``cardreader``."""
    if endpoint is not None and is_foot_switch(kind, endpoint):
        return FootSwitchDriver
    if kind == "cardreader":
        return CardReaderDriver
    try:
        return DRIVERS[kind]
    except KeyError:
        raise ValueError(f"unknown device kind {kind!r}; choose from {sorted(DRIVERS)}") from None


def create_driver(kind: str, name: str, endpoint: DeviceEndpoint, emit: Emit, **options: Any) -> Device:
    """The driver for ``kind`` on ``endpoint``, with the options of that driver class
    (``settings=``/``baudrate=`` for serial devices, ``buttons=``, ``backoff=``... for the pedals,
    ``keys=`` for a foot switch)."""
    cls: Any = driver_class(kind, endpoint)
    device: Device = cls(name, endpoint, emit, **options)
    return device


def configured_driver(kind: str, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int,
                      keys: Mapping[str, str] | None = None) -> Device:
    """The driver as the station's configuration describes the device (endpoint and line speed;
    a foot switch's key map)."""
    if is_foot_switch(kind, endpoint):
        return FootSwitchDriver.from_config(name, endpoint, emit, baudrate=baudrate, keys=keys or None)
    return driver_class(kind).from_config(name, endpoint, emit, baudrate=baudrate)
