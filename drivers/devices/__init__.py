"""Device drivers: one class per device, each meeting the device contract and emitting station events.

``DRIVERS`` is the driver table: the devices of a table by the name the configuration gives them
(``sign`` is the progressive sign over a table that offers a progressive side bet, ``chipreader``
the RFID reader of the chips on the layout's antennas; the pedals may
instead be a commodity foot switch, ``FootSwitchDriver``, chosen by their evdev endpoint:
``drivers.factory``). Every entry builds a :class:`~drivers.devices.contract.Device` the same way
(``from_config``), so the service never asks which device or transport it is building.
"""

from drivers.devices.base import SerialDeviceDriver
from drivers.devices.buttonbox import ButtonBoxDriver
from drivers.devices.chipreader import AntennaInfo, AntennaRead, ChipReaderDriver, ChipReaderInfo, IncompleteRead
from drivers.devices.contract import Device, DeviceClass, DeviceEndpoint, Emit, Identity, SelfTestReport, Tap
from drivers.devices.display import DisplayDriver
from drivers.devices.errors import (
    DeviceError,
    DeviceProtocolError,
    DeviceRefused,
    DeviceTimeout,
    DeviceUnavailable,
)
from drivers.devices.footswitch import FootSwitchDriver, FootSwitchStatus, InputIdentity
from drivers.devices.link import LinkSettings
from drivers.devices.pedals import PedalDriver, PedalStatus, UsbIdentity
from drivers.devices.reconnect import Backoff
from drivers.devices.shoe import ShoeDriver, ShoeState
from drivers.devices.shuffler import ShufflerDriver, ShufflerInfo
from drivers.devices.sign import SignDriver, SignInfo
from drivers.devices.stats import DeviceStats

DRIVERS: dict[str, DeviceClass] = {
    "shoe": ShoeDriver,
    "shuffler": ShufflerDriver,
    "display": DisplayDriver,
    "buttonbox": ButtonBoxDriver,
    "pedals": PedalDriver,
    "sign": SignDriver,
    "chipreader": ChipReaderDriver,
}

__all__ = [
    "DRIVERS",
    "AntennaInfo",
    "AntennaRead",
    "Backoff",
    "ButtonBoxDriver",
    "ChipReaderDriver",
    "ChipReaderInfo",
    "Device",
    "DeviceClass",
    "DeviceEndpoint",
    "DeviceError",
    "DeviceProtocolError",
    "DeviceRefused",
    "DeviceStats",
    "DeviceTimeout",
    "DeviceUnavailable",
    "DisplayDriver",
    "Emit",
    "FootSwitchDriver",
    "FootSwitchStatus",
    "Identity",
    "IncompleteRead",
    "InputIdentity",
    "LinkSettings",
    "PedalDriver",
    "PedalStatus",
    "SelfTestReport",
    "SerialDeviceDriver",
    "ShoeDriver",
    "ShoeState",
    "ShufflerDriver",
    "ShufflerInfo",
    "SignDriver",
    "SignInfo",
    "Tap",
    "UsbIdentity",
]
