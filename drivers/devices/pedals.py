"""Driver of the USB dealer pedals (protocol: ``docs/protocols/pedals.md``).

One thread, the shared :class:`~drivers.devices.reconnect.ReconnectLoop`, owns the link: it
opens the unit through :class:`~drivers.transport.usb_port.UsbPort` and then serves it,
reading the interrupt IN endpoint with a short timeout (a timeout is the normal idle case).
Reports go through the pure codec and the :class:`~drivers.usb.presses.PressTracker`;
corrupt ones are counted, logged, shown to taps and skipped. The only events it emits are
``ButtonPressed``, ``DeviceFault`` and ``DeviceRecovered``; it never touches game state.

On every connection it asks the unit which version of the pedal protocol it speaks
(``GET_PROTOCOL_VERSION``; a version-1 unit stalls the request) and reads its reports and
self-test replies in that version only. A unit of a version the station does not speak is
refused: one ``DeviceFault`` (``unsupported_version``) whose reason names both versions.

When the link fails (``ENODEV``/``EIO``, an endpoint that keeps stalling, a unit that stops
answering the idle heartbeat, or no backend at all) the loop emits one ``DeviceFault`` for
the outage, logs the last reports received, and reconnects with capped exponential
back-off, logging each attempt, exactly as for a serial device. ``DeviceRecovered``
follows once a reconnected link has completed a read, so a unit that enumerates but cannot
deliver reports is not called recovered.
"""

from __future__ import annotations

import errno
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self

import structlog
import usb.core

from drivers.devices.contract import DeliveryObserver, DeviceEndpoint, Emit, Identity, SelfTestReport, Tap
from drivers.devices.errors import DeviceProtocolError, DeviceTimeout, DeviceUnavailable
from drivers.devices.reconnect import Backoff, LoopDriven, Outage, ReconnectLoop
from drivers.devices.stats import DeviceStats
from drivers.devices.taps import Taps
from drivers.transport.usb_port import EndpointStalled, ReportTooLong, UsbLinkLost, UsbPort
from drivers.usb import protocol as p
from drivers.usb.codec import (
    PedalReport,
    ReportError,
    SelfTestReply,
    decode_protocol_version,
    decode_report,
    decode_self_test,
)
from drivers.usb.errors import fault_code
from drivers.usb.locator import PedalLocator, parse_locator
from drivers.usb.presses import PressTracker
from station.events import ButtonPressed, DeviceFault, DeviceRecovered, Event

log = structlog.get_logger(__name__)

DEFAULT_BACKOFF = Backoff()


@dataclass(frozen=True)
class UsbIdentity(Identity):
    """The identity every device gives (``model`` is the USB product string), and the USB facts."""

    manufacturer: str
    vendor_id: int
    product_id: int
    bus: int | None
    address: int | None


@dataclass(frozen=True)
class PedalStatus:
    """What the unit reports about itself now (its answer to the vendor SELF_TEST request)."""

    ok: bool
    installed: tuple[str, ...] = ()
    held: tuple[str, ...] = ()
    long_press_ms: int = 0
    problems: tuple[str, ...] = ()


class PedalDriver(LoopDriven):
    """Dealer pedals on USB. Construct, :meth:`start`, and read events from ``emit``."""

    def __init__(
        self,
        name: str,
        locator: PedalLocator | str,
        emit: Emit,
        *,
        buttons: Sequence[str] = p.DEFAULT_BUTTONS,
        read_timeout_ms: int = 100,
        control_timeout_ms: int = 500,
        heartbeat_s: float = 2.0,
        backoff: Backoff = DEFAULT_BACKOFF,
        stall_limit: int = 3,
        history: int = 32,
    ) -> None:
        self.name = name
        self.locator = parse_locator(locator) if isinstance(locator, str) else locator
        self._emit = emit
        self.buttons = tuple(buttons)
        self.read_timeout_ms = read_timeout_ms
        self.control_timeout_ms = control_timeout_ms
        self.heartbeat_s = heartbeat_s
        self.backoff = backoff
        self.stall_limit = stall_limit
        self.stats = DeviceStats()
        self._log = log.bind(device=name, locator=str(self.locator))
        self._port = UsbPort(self.locator, control_timeout_ms=control_timeout_ms, log=self._log)
        self._tracker = PressTracker()
        self._history: deque[tuple[float, str, bytes, PedalReport | ReportError]] = deque(maxlen=history)
        self._taps = Taps(self._log, "pedals.tap_failed")
        self._on_delivered: DeliveryObserver | None = None
        self._stop = threading.Event()
        self._connected = threading.Event()
        #: Why the unit that answers is not used (a protocol version the station does not speak).
        self.refused: str | None = None
        #: The pedal protocol version the connected unit speaks; its reports are read in it.
        self.protocol_version = p.PROTOCOL_VERSION
        self._proven = False  # a read has completed on the current connection
        self._stalls_in_a_row = 0
        self._last_activity = 0.0
        self._loop = ReconnectLoop(
            name,
            self,
            where=str(self.locator),
            backoff=backoff,
            stats=self.stats,
            stopping=self._stop,
            on_down=lambda outage: self._send(DeviceFault(self.name, outage.reason, outage.code)),
            on_up=lambda: self._send(DeviceRecovered(self.name)),
            recent_frames=lambda: [f"{d} {h} {t}" for _, d, h, t in self.recent_frames()],
            thread_name=f"pedals-{name}",
        )

    @classmethod
    def from_config(cls, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int) -> Self:
        """The driver as the station's configuration describes the unit: a locator (USB has no
        line speed, so ``baudrate`` does not apply)."""
        if not isinstance(endpoint, (str, PedalLocator)):
            raise TypeError(f"{name}: USB pedals are opened by a usb:// locator, not {endpoint!r}")
        return cls(name, endpoint, emit)

    # --- the device contract ------------------------------------------------------------------

    # start, stop, connected, wait_connected: LoopDriven's (stopping releases the interface
    # and gives the unit back to the OS driver)

    def identify(self) -> UsbIdentity:
        """Model, serial number and firmware version from the USB descriptors."""
        device = self._current_device()
        try:
            return UsbIdentity(
                model=device.product or "",
                serial=device.serial_number or "",
                firmware=p.firmware_version(device.bcdDevice),
                manufacturer=device.manufacturer or "",
                vendor_id=device.idVendor,
                product_id=device.idProduct,
                bus=device.bus,
                address=device.address,
                protocol_version=self.protocol_version,
            )
        except (usb.core.USBError, ValueError) as exc:
            raise DeviceUnavailable(f"pedals {self.name!r}: cannot read descriptors: {exc}") from exc

    def self_test(self) -> SelfTestReport:
        """Ask the unit to test its switches; passed only if it reports no problem."""
        reply, status = self._self_test()
        return SelfTestReport(status.ok, "; ".join(status.problems) or "ok", reply.flags, status.problems)

    def status(self) -> PedalStatus:
        """The unit's self-test reply, read as the station sees its buttons (it has no other status)."""
        return self._self_test()[1]

    def add_tap(self, tap: Tap) -> Callable[[], None]:
        """Show every raw report (and control reply) to ``tap``; returns a remover."""
        return self._taps.add(tap)

    def remove_tap(self, tap: Tap) -> None:
        self._taps.remove(tap)

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        """The last reports (monotonic time, ``"in"``, hex, description), oldest first, corrupt ones too."""
        history = list(self._history)
        return [(at, direction, raw.hex(" "), _describe(decoded)) for at, direction, raw, decoded in history]

    def observe_deliveries(self, observer: DeliveryObserver | None) -> None:
        """Set the one observer of deliveries: called on the reader thread after each report handed over."""
        self._on_delivered = observer

    def button_name(self, index: int) -> str:
        return self.buttons[index] if index < len(self.buttons) else f"button{index + 1}"

    # --- the connection, as the reconnect loop drives it --------------------------------------

    def open(self) -> Outage | None:
        """Find, claim and greet the unit; the press tracker starts afresh on every connection."""
        try:
            self._port.open()
            version = self._ask_version()
        except UsbLinkLost as lost:
            self._port.close(give_back=False)
            return Outage(lost.reason, lost.code)
        self.stats.frames_out += 2  # the GET_STATUS that greeted it, and the version request
        if version not in p.PROTOCOL_VERSIONS:
            which = "newer" if version > p.PROTOCOL_VERSION else "older"
            device = self._port.device
            self.refused = (
                f"{self.name} ({getattr(device, 'product', '') or 'pedals'} {getattr(device, 'serial_number', '')}) "
                f"speaks pedal protocol version {version}, {which} than the versions this station speaks "
                f"({p.OLDEST_PROTOCOL_VERSION}-{p.PROTOCOL_VERSION})"
            )
            self._port.close(give_back=True)  # not ours to hold: the OS may have it back
            return Outage(self.refused, "unsupported_version")
        self.refused = None
        self.protocol_version = version
        self._tracker.reset()
        self._proven = False
        self._stalls_in_a_row = 0
        self._last_activity = time.monotonic()
        self._connected.set()
        device = self._port.device
        self._log.info(
            "device_connected", bus=getattr(device, "bus", None), address=getattr(device, "address", None),
            detached_kernel_driver=self._port.detached_kernel_driver, protocol_version=version,
        )
        return None

    def _ask_version(self) -> int:
        """The pedal protocol version the unit speaks: its answer to GET_PROTOCOL_VERSION, or 1
        when it stalls the request (a version-1 unit does not know it)."""
        request = (p.VENDOR_IN_INTERFACE, p.REQUEST_PROTOCOL_VERSION, 0, p.INTERFACE_NUMBER, p.PROTOCOL_VERSION_LENGTH)
        try:
            raw = self._port.control_in(*request)
        except usb.core.USBTimeoutError as exc:
            raise UsbLinkLost("no-response", f"no answer to the protocol version request: {exc}") from exc
        except usb.core.USBError as exc:
            if exc.errno == errno.EPIPE:
                return 1
            raise UsbLinkLost(fault_code(exc), f"the protocol version request failed: {exc}") from exc
        try:
            return decode_protocol_version(raw)
        except ReportError as exc:
            raise UsbLinkLost("wrong-device", exc.reason) from exc

    def serve(self) -> Outage:
        """Read reports until the link is lost or the driver stops."""
        while not self._stop.is_set():
            try:
                self._read_once()
            except UsbLinkLost as lost:
                return Outage(lost.reason, lost.code)
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        """Drop the unit; on the way out give it back to the OS and close the backend."""
        self._connected.clear()
        self._port.close(give_back=final)
        if final:
            self._port.close_backend()

    # --- reading ------------------------------------------------------------------------------

    def _read_once(self) -> None:
        try:
            raw = self._port.read(self.read_timeout_ms)
        except ReportTooLong as exc:
            self.stats.bad_frames += 1
            self.stats.count_error("bad_report")
            self._log.warning("pedals.report_corrupt", reason=str(exc))
            self._tap("in", b"", ReportError(str(exc), b""))
            return
        except EndpointStalled:
            self._stalled()
            return
        if raw is None:  # no report within the read timeout: the idle case
            self._link_works()
            self._idle()
            return
        self._stalls_in_a_row = 0
        self._last_activity = time.monotonic()
        self._link_works()
        self._handle_report(raw)

    def _idle(self) -> None:
        if time.monotonic() - self._last_activity < self.heartbeat_s:
            return
        self.stats.heartbeats += 1
        self.stats.frames_out += 1
        self._port.heartbeat()
        self._last_activity = time.monotonic()

    def _stalled(self) -> None:
        self.stats.count_error("stalled")
        self._stalls_in_a_row += 1
        self._log.warning("pedals.endpoint_stalled", in_a_row=self._stalls_in_a_row)
        if self._stalls_in_a_row >= self.stall_limit:
            raise UsbLinkLost("stalled", f"the pedals' endpoint stalled {self._stalls_in_a_row} times in a row")
        self._port.clear_halt()

    def _link_works(self) -> None:
        if self._proven:
            return
        self._proven = True
        self._loop.proven()

    def _handle_report(self, raw: bytes) -> None:
        try:
            report: PedalReport = decode_report(raw, self.protocol_version)
        except ReportError as exc:
            self._history.append((time.monotonic(), "in", raw, exc))
            self.stats.bad_frames += 1
            self.stats.count_error("bad_report")
            self._log.warning("pedals.report_corrupt", reason=exc.reason, raw=raw.hex())
            self._tap("in", raw, exc)
            return
        self.stats.frames_in += 1
        self._history.append((time.monotonic(), "in", raw, report))
        self._tap("in", raw, report)
        before = self._tracker.counts
        lost_before, duplicates_before = before.lost, before.duplicates
        presses = self._tracker.feed(report)
        counts = self._tracker.counts
        self.stats.duplicates += counts.duplicates - duplicates_before
        self.stats.lost += counts.lost - lost_before
        if counts.lost != lost_before:
            self._log.warning("pedals.reports_lost", count=counts.lost - lost_before, sequence=report.sequence)
        if counts.duplicates != duplicates_before:
            return
        for press in presses:
            name = self.button_name(press.button)
            self._log.info("pedals.press", button=name, long_press=press.long, sequence=report.sequence)
            self._send(ButtonPressed(self.name, name, press.long))
        self.stats.events_delivered += 1
        observer = self._on_delivered
        if observer is not None:
            observer(self.stats.events_delivered)

    # --- helpers ------------------------------------------------------------------------------

    def _self_test(self) -> tuple[SelfTestReply, PedalStatus]:
        request = (p.VENDOR_IN_INTERFACE, p.REQUEST_SELF_TEST, 0, p.INTERFACE_NUMBER,
                   p.self_test_length(self.protocol_version))
        try:
            raw = self._port.control_in(*request)
        except UsbLinkLost as exc:
            raise DeviceUnavailable(f"pedals {self.name!r} are not connected ({self.locator.describe()})") from exc
        except usb.core.USBTimeoutError as exc:
            raise DeviceTimeout(f"self-test request failed: {exc}") from exc
        except usb.core.USBError as exc:
            raise DeviceUnavailable(f"self-test request failed: {exc}") from exc
        self.stats.frames_out += 1
        try:
            reply: SelfTestReply | ReportError = decode_self_test(raw, self.protocol_version)
        except ReportError as exc:
            reply = exc
        self._tap("control-in", raw, reply)
        if isinstance(reply, ReportError):
            raise DeviceProtocolError(f"self-test reply unreadable: {reply.reason}")
        problems = list(reply.problems)
        installed = self._names(reply.installed)
        held = self._names(reply.held)
        missing = [b for i, b in enumerate(self.buttons) if not reply.installed & (1 << i)]
        if missing:
            problems.append(f"configured button(s) not fitted: {', '.join(missing)}")
        if held:
            problems.append(f"button(s) held down during the self-test: {', '.join(held)}")
        status = PedalStatus(not problems, installed, held, reply.long_press_ms, tuple(problems))
        self._log.info("pedals.self_test", ok=status.ok, problems=list(status.problems))
        return reply, status

    def _current_device(self) -> Any:
        device = self._port.device
        if device is None:
            raise DeviceUnavailable(f"pedals {self.name!r} are not connected ({self.locator.describe()})")
        return device

    def _names(self, bitmap: int) -> tuple[str, ...]:
        return tuple(self.button_name(i) for i in range(p.MAX_BUTTONS) if bitmap & (1 << i))

    def _send(self, event: Event) -> None:
        try:
            self._emit(event)
        except Exception:  # a broken sink must not stop the pedals being read
            self._log.exception("pedals.emit_failed", event_kind=type(event).__name__)

    def _tap(self, direction: str, raw: bytes, decoded: Any) -> None:
        self._taps.show(direction, raw, decoded)


def _describe(decoded: PedalReport | ReportError) -> str:
    if isinstance(decoded, ReportError):
        return f"<{decoded.reason}>"
    long = " long" if decoded.long else ""
    return f"{decoded.event.name} button {decoded.button}{long} (seq {decoded.sequence})"


__all__ = ["PedalDriver", "PedalStatus", "UsbIdentity"]
