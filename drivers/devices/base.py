"""What every serial device driver has in common, and how it meets the device contract.

A driver is built from a device name, a port (path or pyserial URL) and an ``emit`` sink.
It turns the device's wire events into typed :mod:`station.events` and nothing else: it
never touches game state. Link loss becomes :class:`~station.events.DeviceFault` (once per
outage) and the reconnection :class:`~station.events.DeviceRecovered`. Everything the
service asks of any device (:class:`~drivers.devices.contract.Device`) is here; each
subclass adds its device's commands and maps its wire events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar, Self

import structlog

from drivers.codec import get_protocol
from drivers.codec.protocol import (
    CodecError,
    Identify,
    IdentityReport,
    Message,
    Ping,
    SelfTest,
    SelfTestResult,
)
from drivers.devices.contract import DeliveryObserver, DeviceEndpoint, Emit, Identity, SelfTestReport, Tap
from drivers.devices.errors import DeviceProtocolError
from drivers.devices.link import DeviceLink, LinkSettings
from drivers.devices.stats import DeviceStats
from drivers.transport.serial_port import SerialTransport, Transport
from station.events import DeviceFault, DeviceRecovered, Event

log = structlog.get_logger(__name__)

__all__ = ["Emit", "Identity", "SelfTestReport", "SerialDeviceDriver"]


class SerialDeviceDriver:
    """Base class: a :class:`DeviceLink` plus the mapping from wire events to station events."""

    PROTOCOL: ClassVar[str] = ""

    def __init__(
        self,
        name: str,
        url: str,
        emit: Emit,
        *,
        baudrate: int = 115200,
        settings: LinkSettings | None = None,
        transport: Transport | None = None,
        clock: Callable[[], float] = time.monotonic,
        **link_options: Any,
    ) -> None:
        self.name = name
        self.url = url
        self._emit = emit
        if settings is None:
            settings = LinkSettings(**link_options)
        elif link_options:
            raise TypeError("give either settings= or individual link options, not both")
        self.link = DeviceLink(
            name,
            transport or SerialTransport(url, baudrate=baudrate),
            get_protocol(self.PROTOCOL),
            on_event=self._on_wire_event,
            on_down=self._on_down,
            on_up=self._on_up,
            on_undecodable=self._on_undecodable,
            settings=settings,
            clock=clock,
        )

    @classmethod
    def from_config(cls, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int) -> Self:
        """The driver as the station's configuration describes the device: a port and its speed."""
        if not isinstance(endpoint, str):
            raise TypeError(f"{name}: a serial device is opened by port path or URL, not {endpoint!r}")
        return cls(name, endpoint, emit, baudrate=baudrate)

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, wait_s: float | None = 5.0) -> bool:
        """Open the port and start the reader; returns whether the handshake finished within ``wait_s``.

        If the device is absent the driver emits a DeviceFault and keeps trying in the
        background; it emits DeviceRecovered when the device answers.
        """
        return self.link.start(wait_s)

    def stop(self) -> None:
        """Stop the link's threads and close the port. A simulator behind it is its starter's to stop."""
        self.link.stop()

    @property
    def connected(self) -> bool:
        return self.link.connected

    @property
    def refused(self) -> str | None:
        return self.link.refused

    @property
    def protocol_version(self) -> int:
        """The version of its protocol the device announced (what the station speaks to it)."""
        return self.link.peer_version

    def wait_connected(self, timeout: float) -> bool:
        return self.link.wait_connected(timeout)

    # -- commands common to every device ------------------------------------------------------

    def identify(self) -> Identity:
        answer = self._expect(self.link.request(Identify()), IdentityReport)
        return Identity(answer.model, answer.serial, answer.firmware, protocol_version=answer.protocol_version)

    def ping(self) -> None:
        self.link.request(Ping())

    def self_test(self) -> SelfTestReport:
        timeout = max(self.link.settings.reply_timeout, 2.0)  # a device's self-test takes a while
        answer = self._expect(self.link.request(SelfTest(), timeout=timeout), SelfTestResult)
        return SelfTestReport(answer.passed, answer.detail, answer.code)

    def status(self) -> Any:
        """What the device reports about its state; each device answers in its own terms."""
        raise NotImplementedError(f"{type(self).__name__} has no status request")

    # -- diagnostics --------------------------------------------------------------------------

    def add_tap(self, tap: Tap) -> Callable[[], None]:
        """Call ``tap(direction, raw, decoded)`` for every frame sent ("tx") or received ("rx");
        returns a function that removes it."""
        self.link.add_tap(tap)
        return lambda: self.link.remove_tap(tap)

    def remove_tap(self, tap: Tap) -> None:
        self.link.remove_tap(tap)

    @property
    def stats(self) -> DeviceStats:
        return self.link.stats

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        return self.link.recent_frames()

    def observe_deliveries(self, observer: DeliveryObserver | None) -> None:
        """Set the one observer of deliveries; on the reader thread, before each event's ACK."""
        self.link.on_delivered = observer

    # -- for subclasses -----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self._emit(event)

    def on_message(self, message: Message) -> None:
        """Translate one wire event into station events; subclasses override."""
        log.info("unhandled_device_event", device=self.name, message=message.describe())

    @staticmethod
    def _expect(answer: Message, cls: type[Message]) -> Any:
        if not isinstance(answer, cls):
            raise DeviceProtocolError(f"expected {cls.WIRE_NAME}, device answered {answer.WIRE_NAME}")
        return answer

    def _on_wire_event(self, message: Message) -> None:
        self.on_message(message)

    def _on_down(self, reason: str, code: str) -> None:
        self.emit(DeviceFault(self.name, reason, code))

    def _on_up(self, identity: IdentityReport) -> None:
        self.emit(DeviceRecovered(self.name))

    def _on_undecodable(self, error: CodecError) -> None:
        self.emit(DeviceFault(self.name, f"undecodable event from device: {error.detail}", "protocol_error"))
