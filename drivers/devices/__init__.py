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
from drivers.devices.shoe import ShoeDriver, ShoeState

__all__ = [
    "DeviceError", "DeviceProtocolError", "DeviceRefused", "DeviceTimeout", "DeviceUnavailable",
    "Identity", "LinkSettings", "SelfTestReport", "SerialDeviceDriver", "ShoeDriver", "ShoeState",
]
