"""The one contract every device driver meets: shoe, shuffler, display board, button box, pedals.

The service (``station.service.devices``), the diagnostics and the contract suite
(``tests/devices``) hold devices through :class:`Device` alone, so none of them asks which
device or which transport it has: serial devices and the USB pedals start, stop, identify
themselves, test themselves, show their frames to taps, count what their link went through
(:class:`~drivers.devices.stats.DeviceStats`) and report the events they hand over in the
same words. What a device does beyond that (deal a card, show a result) is its own driver's
business and stays on its class.

A driver never touches game state: it turns what the device says into
:mod:`station.events` and hands them to ``emit``. A request that fails raises a
:class:`~drivers.devices.errors.DeviceError`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from drivers.devices.stats import DeviceStats
from drivers.input.locator import EvdevLocator
from drivers.usb.locator import PedalLocator
from station.events import Event

Emit = Callable[[Event], None]
"""Where a driver hands its events: called from the driver's threads (the core's queue ``put``)."""

Tap = Callable[[str, bytes, Any], None]
"""Frame monitor: ``tap(direction, raw, decoded)``. Serial links say ``"rx"``/``"tx"`` and hand a
``Message`` or a ``CodecError``; the USB pedals say ``"in"`` (interrupt reports: a
``PedalReport`` or a ``ReportError``) and ``"control-in"`` (replies to control requests)."""

FROM_DEVICE_DIRECTIONS = frozenset({"rx", "in", "control-in"})
"""The tap directions of frames the device sent (the others are the station's)."""

DeliveryObserver = Callable[[int], None]
"""Called on the driver's reader thread with the running count of device events handed over."""

DeviceEndpoint: TypeAlias = str | PedalLocator | EvdevLocator
"""Where a device is opened. A serial device: a port path or pyserial URL (``/dev/serial/by-id/...``,
``socket://host:port``, a simulator's pty). The pedals: a locator URL (``usb://VID:PID?serial=...``,
``usb-sim:///socket?serial=...``) or a :class:`~drivers.usb.locator.PedalLocator`, which can carry
an in-process simulated pyusb backend; a commodity foot switch: ``evdev://VID:PID`` or
``evdev:///dev/input/...``, or an :class:`~drivers.input.locator.EvdevLocator` carrying a stand-in."""


@dataclass(frozen=True)
class Identity:
    """Who the device says it is: the same facts from every device (USB adds its own), and the
    version of its protocol it speaks (1 for a device that does not say)."""

    model: str
    serial: str
    firmware: str
    protocol_version: int = field(default=1, kw_only=True)


@dataclass(frozen=True)
class SelfTestReport:
    """The device's verdict on itself.

    ``detail`` is one line for a person; ``code`` the device's own result code (0 when it has
    none); ``problems`` each problem found, for devices that list them.
    """

    passed: bool
    detail: str
    code: int = 0
    problems: tuple[str, ...] = ()


class Device(Protocol):
    """What the station may ask of any device driver."""

    name: str

    def start(self, wait_s: float = 5.0) -> bool:
        """Start connecting; block at most ``wait_s`` and say whether the device is connected.

        An absent device is not an error: the driver emits one ``DeviceFault`` for the outage,
        keeps trying with exponential back-off, and emits ``DeviceRecovered`` when it answers.
        """
        ...

    def stop(self) -> None:
        """Stop the driver's threads and let go of the device (port, USB interface)."""
        ...

    @property
    def connected(self) -> bool: ...

    @property
    def refused(self) -> str | None:
        """Why the station does not use the device that answers, in one line naming what it
        found and what it needs (a protocol version it does not speak, a wrong kind of
        device), or None. A refused device is also a ``DeviceFault`` and not connected."""
        ...

    def wait_connected(self, timeout: float) -> bool: ...

    def identify(self) -> Identity: ...

    def self_test(self) -> SelfTestReport:
        """The device's verdict; raises ``DeviceError`` when there is none (not connected, no answer)."""
        ...

    def status(self) -> Any:
        """What the device reports about its state now (a dataclass of its own kind)."""
        ...

    def add_tap(self, tap: Tap) -> Callable[[], None]:
        """Show every frame to ``tap`` (a broken tap never breaks the link); returns its remover."""
        ...

    def remove_tap(self, tap: Tap) -> None: ...

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        """The last frames from and to the device: (monotonic time, direction, hex, description)."""
        ...

    def observe_deliveries(self, observer: DeliveryObserver | None) -> None:
        """Set the one observer of deliveries (``None`` removes it).

        It is called on the reader thread with the running count of device events handed to
        ``emit``, after each one, each counted once however often the device sent it; on a
        serial link before the event is acknowledged. The simulated table orders the dealer's
        screen actions after the cards the shoe handed over by it.
        """
        ...

    @property
    def stats(self) -> DeviceStats: ...


class DeviceClass(Protocol):
    """How the driver table builds a device from what the station's configuration says."""

    def from_config(self, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int) -> Device: ...
