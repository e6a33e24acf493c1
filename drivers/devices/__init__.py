"""Device drivers: one class per device, each emitting typed station events."""

from drivers.devices.base import Identity, SelfTestReport, SerialDeviceDriver
from drivers.devices.link import (
    DeviceError,
    DeviceProtocolError,
    DeviceRefused,
    DeviceTimeout,
    DeviceUnavailable,
    LinkSettings,
)
from drivers.devices.buttonbox import ButtonBoxDriver
from drivers.devices.display import DisplayDriver
from drivers.devices.shoe import ShoeDriver, ShoeState
from drivers.devices.shuffler import ShufflerDriver, ShufflerInfo

DRIVERS: dict[str, type[SerialDeviceDriver]] = {
    "shoe": ShoeDriver,
    "shuffler": ShufflerDriver,
    "display": DisplayDriver,
    "buttonbox": ButtonBoxDriver,
}

__all__ = [
    "ButtonBoxDriver", "DRIVERS", "DeviceError", "DisplayDriver", "ShufflerDriver", "ShufflerInfo", "DeviceProtocolError", "DeviceRefused", "DeviceTimeout", "DeviceUnavailable",
    "Identity", "LinkSettings", "SelfTestReport", "SerialDeviceDriver", "ShoeDriver", "ShoeState",
]
