"""What every serial device driver has in common.

A driver is built from a device name, a URL and an ``emit`` sink. It turns the device's
wire events into typed :mod:`station.events` and nothing else: it never touches game
state. Link loss becomes :class:`~station.events.DeviceFault` (once per outage) and the
reconnection :class:`~station.events.DeviceRecovered`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import structlog

from drivers.codec.protocol import (
    CodecError,
    Identify,
    IdentityReport,
    Message,
    Ping,
    SelfTest,
    SelfTestResult,
    get_protocol,
)
from drivers.devices.link import DeviceLink, DeviceProtocolError, LinkSettings, LinkStats, Tap
from drivers.transport.serial_port import SerialTransport, Transport
from station.events import DeviceFault, DeviceRecovered, Event

log = structlog.get_logger(__name__)

Emit = Callable[[Event], None]


@dataclass(frozen=True)
class Identity:
    model: str
    serial: str
    firmware: str


@dataclass(frozen=True)
class SelfTestReport:
    passed: bool
    code: int
    detail: str


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
        **link_options: Any,
    ) -> None:
        self.name = name
        self.url = url
        self._emit = emit
        self.simulator: Any = None  # a RunningSimulator when created from a sim: URL
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
        )

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, wait: float | None = 5.0) -> bool:
        """Open the port and start the reader; returns whether the handshake finished within ``wait``.

        If the device is absent the driver emits a DeviceFault and keeps trying in the
        background; it emits DeviceRecovered when the device answers.
        """
        return self.link.start(wait)

    def stop(self) -> None:
        self.link.stop()
        if self.simulator is not None:
            self.simulator.stop()

    def attach_simulator(self, running: Any) -> None:
        """Own an in-process simulator (``sim:`` URLs): it stops with the driver."""
        self.simulator = running

    @property
    def connected(self) -> bool:
        return self.link.connected

    def wait_connected(self, timeout: float) -> bool:
        return self.link.wait_connected(timeout)

    # -- commands common to every device ------------------------------------------------------

    def identify(self) -> Identity:
        answer = self._expect(self.link.request(Identify()), IdentityReport)
        return Identity(answer.model, answer.serial, answer.firmware)

    def ping(self) -> None:
        self.link.request(Ping())

    def self_test(self) -> SelfTestReport:
        answer = self._expect(self.link.request(SelfTest(), timeout=max(self.link.settings.reply_timeout, 2.0)), SelfTestResult)
        return SelfTestReport(answer.passed, answer.code, answer.detail)

    # -- diagnostics --------------------------------------------------------------------------

    def add_tap(self, tap: Tap) -> None:
        """Call ``tap(direction, raw, decoded)`` for every frame sent ("tx") or received ("rx")."""
        self.link.add_tap(tap)

    def remove_tap(self, tap: Tap) -> None:
        self.link.remove_tap(tap)

    @property
    def stats(self) -> LinkStats:
        return self.link.stats

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        return self.link.recent_frames()

    # -- for subclasses -----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self._emit(event)

    def on_message(self, message: Message) -> None:
        """Translate one wire event into station events; subclasses override."""
        log.info("unhandled_device_event", device=self.name, message=message.describe())

    @staticmethod
    def _expect(answer: Message, cls: type[Any]) -> Any:
        if not isinstance(answer, cls):
            raise DeviceProtocolError(f"expected {cls.__name__}, device answered {type(answer).__name__}")
        return answer

    def _on_wire_event(self, message: Message) -> None:
        self.on_message(message)

    def _on_down(self, reason: str, code: str) -> None:
        self.emit(DeviceFault(self.name, reason, code))

    def _on_up(self, identity: IdentityReport) -> None:
        self.emit(DeviceRecovered(self.name))

    def _on_undecodable(self, error: CodecError) -> None:
        self.emit(DeviceFault(self.name, f"undecodable event from device: {error.detail}", "protocol_error"))
