"""The dealer-pedal driver: finds the device through pyusb, reads its reports, emits presses.

One reader thread owns the link. It finds the device (``usb.core.find`` with VID/PID and a
serial-number match), detaches the operating system's HID driver, sets the configuration,
claims the interface and reads the interrupt IN endpoint with a short timeout
(``USBTimeoutError`` is the normal idle case). Reports go through the pure codec and the
:class:`~drivers.usb.presses.PressTracker`; corrupt ones are counted, logged, shown to taps
and skipped. The only events it emits are ``ButtonPressed``, ``DeviceFault`` and
``DeviceRecovered``; it never touches game state.

When the link fails (``ENODEV``/``EIO``, an endpoint that keeps stalling, a device that stops
answering the idle heartbeat, or no backend at all) it emits one ``DeviceFault`` for the
outage, logs the last reports it received, and reconnects with capped exponential backoff,
logging each attempt. ``DeviceRecovered`` follows once a reconnected link has completed a
read, so a device that enumerates but cannot deliver reports is not called recovered.
"""

from __future__ import annotations

import errno
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
import usb.core  # type: ignore[import-untyped]
import usb.util  # type: ignore[import-untyped]

from drivers.usb import protocol as p
from drivers.usb.codec import PedalReport, ReportError, SelfTestReply, decode_report, decode_self_test
from drivers.usb.errors import LINK_LOST_ERRNOS, fault_code
from drivers.usb.locator import PedalLocator, parse_locator
from drivers.usb.presses import PressTracker
from station.events import ButtonPressed, DeviceFault, DeviceRecovered, Event

log = structlog.get_logger(__name__)

#: ``callback(direction, raw, decoded_or_error)``: direction is ``"in"`` for interrupt reports
#: and ``"control-in"`` for replies to control requests.
Tap = Callable[[str, bytes, Any], None]


class PedalError(RuntimeError):
    """A request to the pedals that could not be carried out (not connected, link failed)."""


class _LinkLost(Exception):
    """Internal: the link is unusable; ``code`` and ``reason`` go into the DeviceFault."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class Backoff:
    """Reconnect delays: ``initial_s``, times ``factor`` after each failure, at most ``cap_s``."""

    initial_s: float = 0.25
    factor: float = 2.0
    cap_s: float = 10.0

    def delays(self) -> Iterator[float]:
        delay = self.initial_s
        while True:
            yield delay
            delay = min(self.cap_s, delay * self.factor)


@dataclass(frozen=True)
class PedalIdentity:
    manufacturer: str | None
    product: str | None
    serial_number: str | None
    firmware: str  # from bcdDevice, e.g. "1.02"
    vendor_id: int
    product_id: int
    bus: int | None
    address: int | None


@dataclass(frozen=True)
class SelfTestResult:
    ok: bool
    installed: tuple[str, ...] = ()
    held: tuple[str, ...] = ()
    long_press_ms: int = 0
    problems: tuple[str, ...] = ()


@dataclass
class DriverStats:
    reports: int = 0  # well-formed reports accepted (duplicates excluded)
    corrupt: int = 0  # reports refused by the codec (or too long for the endpoint)
    duplicates: int = 0
    lost: int = 0  # gaps in the sequence numbers
    presses: int = 0
    stalls: int = 0
    heartbeats: int = 0
    faults: int = 0
    reconnects: int = 0
    connect_attempts: int = 0
    kernel_detaches: int = 0


@dataclass
class _Link:
    device: Any  # usb.core.Device
    endpoint: Any  # usb.core.Endpoint
    interface: int
    detached_kernel_driver: bool
    proven: bool = False  # a read has completed on it
    stalls_in_a_row: int = 0
    last_activity: float = field(default_factory=time.monotonic)


class PedalDriver:
    """Dealer pedals on USB. Construct, :meth:`start`, and read events from ``emit``."""

    def __init__(
        self,
        name: str,
        locator: PedalLocator | str,
        emit: Callable[[Event], None],
        *,
        buttons: Sequence[str] = p.DEFAULT_BUTTONS,
        read_timeout_ms: int = 100,
        control_timeout_ms: int = 500,
        heartbeat_s: float = 2.0,
        backoff: Backoff = Backoff(),
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
        self.stats = DriverStats()
        self._tracker = PressTracker()
        self._history: deque[tuple[float, str]] = deque(maxlen=history)
        self._taps: list[Tap] = []
        self._taps_lock = threading.Lock()
        self._link: _Link | None = None
        self._link_lock = threading.Lock()
        self._backend: Any = None
        self._in_fault = False
        self._kernel_driver_taken = False  # give it back to the OS on stop()
        self._stop = threading.Event()
        self._first_attempt = threading.Event()
        self._thread: threading.Thread | None = None
        self._log = log.bind(device=name, locator=str(self.locator))

    # --- public API ---------------------------------------------------------------------------

    def start(self, wait_s: float = 5.0) -> None:
        """Start the reader thread; return once the first connection attempt has finished.

        If the pedals are absent the driver does not fail: it emits ``DeviceFault`` and keeps
        trying in the background, so the station can start and tell a person what is missing.
        """
        if self._thread is not None:
            raise PedalError(f"pedals {self.name!r} already started")
        self._stop.clear()
        self._first_attempt.clear()
        self._thread = threading.Thread(target=self._run, name=f"pedals-{self.name}", daemon=True)
        self._thread.start()
        self._first_attempt.wait(wait_s)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop reading, release the interface and give the device back to the OS driver."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout_s)
        close = getattr(self._backend, "close", None)
        if callable(close):
            close()
        self._backend = None

    @property
    def connected(self) -> bool:
        return self._link is not None

    def add_tap(self, callback: Tap) -> Callable[[], None]:
        """Show every raw report (and control reply) to ``callback``; returns a remover."""
        with self._taps_lock:
            self._taps.append(callback)

        def remove() -> None:
            with self._taps_lock:
                if callback in self._taps:
                    self._taps.remove(callback)

        return remove

    def identify(self) -> PedalIdentity:
        """Model, serial number and firmware version from the USB descriptors."""
        device = self._current_device()
        try:
            return PedalIdentity(
                manufacturer=device.manufacturer,
                product=device.product,
                serial_number=device.serial_number,
                firmware=p.firmware_version(device.bcdDevice),
                vendor_id=device.idVendor,
                product_id=device.idProduct,
                bus=device.bus,
                address=device.address,
            )
        except (usb.core.USBError, ValueError) as exc:
            raise PedalError(f"pedals {self.name!r}: cannot read descriptors: {exc}") from exc

    def self_test(self) -> SelfTestResult:
        """Ask the device to test its switches; ``ok`` only if it reports no problem."""
        try:
            device = self._current_device()
        except PedalError as exc:
            return SelfTestResult(ok=False, problems=(str(exc),))
        try:
            raw = bytes(
                device.ctrl_transfer(
                    p.VENDOR_IN_INTERFACE, p.REQUEST_SELF_TEST, 0, p.INTERFACE_NUMBER,
                    p.SELF_TEST_LENGTH, timeout=self.control_timeout_ms,
                )
            )  # fmt: skip
        except usb.core.USBError as exc:
            return SelfTestResult(ok=False, problems=(f"self-test request failed: {exc}",))
        try:
            reply: SelfTestReply | ReportError = decode_self_test(raw)
        except ReportError as exc:
            reply = exc
        self._tap("control-in", raw, reply)
        if isinstance(reply, ReportError):
            return SelfTestResult(ok=False, problems=(f"self-test reply unreadable: {reply.reason}",))
        problems = list(reply.problems)
        installed = self._names(reply.installed)
        held = self._names(reply.held)
        missing = [b for i, b in enumerate(self.buttons) if not reply.installed & (1 << i)]
        if missing:
            problems.append(f"configured button(s) not fitted: {', '.join(missing)}")
        if held:
            problems.append(f"button(s) held down during the self-test: {', '.join(held)}")
        result = SelfTestResult(not problems, installed, held, reply.long_press_ms, tuple(problems))
        self._log.info("pedals.self_test", ok=result.ok, problems=list(result.problems))
        return result

    def button_name(self, index: int) -> str:
        return self.buttons[index] if index < len(self.buttons) else f"button{index + 1}"

    @property
    def last_reports(self) -> list[str]:
        """The most recent raw reports, oldest first, as hex (what a fault log shows)."""
        return [raw for _, raw in self._history]

    # --- the reader thread --------------------------------------------------------------------

    def _run(self) -> None:
        delays: Iterator[float] | None = None  # a fresh backoff sequence for each outage
        try:
            while not self._stop.is_set():
                link = self._link
                if link is not None:
                    self._read_guarded(link)
                    continue
                lost = self._try_connect()
                self._first_attempt.set()
                if lost is None:
                    delays = None
                    continue
                self._fault(lost)
                delays = delays or self.backoff.delays()
                delay = next(delays)
                self._log.warning("pedals.reconnect_wait", code=lost.code, reason=lost.reason, retry_in_s=delay)
                self._stop.wait(delay)
        finally:
            self._first_attempt.set()
            self._close_link(give_back=True)

    def _try_connect(self) -> _LinkLost | None:
        try:
            self._connect()
        except _LinkLost as lost:
            return lost
        except Exception as exc:  # a fault in this code must not silently end the reader
            self._log.exception("pedals.connect_error")
            return _LinkLost("driver-error", f"unexpected error connecting to the pedals: {exc!r}")
        return None

    def _read_guarded(self, link: _Link) -> None:
        try:
            self._read_once(link)
        except _LinkLost as lost:
            self._drop_link(lost)
        except Exception as exc:  # as above: log it, treat the link as lost, carry on
            self._log.exception("pedals.reader_error")
            self._drop_link(_LinkLost("driver-error", f"unexpected error reading the pedals: {exc!r}"))
            self._stop.wait(self.backoff.initial_s)

    def _connect(self) -> None:
        self.stats.connect_attempts += 1
        attempt = self.stats.connect_attempts
        self._log.info("pedals.connect_attempt", attempt=attempt)
        if self._backend is None:
            self._backend = self.locator.backend_factory()
            if self._backend is None:
                raise _LinkLost("no-backend", "no USB backend: libusb-1.0 is not installed or cannot be loaded")
        wanted = self.locator.serial
        unreadable: list[Exception] = []

        def serial_matches(device: Any) -> bool:
            if wanted is None:
                return True
            try:
                return bool(device.serial_number == wanted)
            except (usb.core.USBError, ValueError, NotImplementedError) as exc:
                unreadable.append(exc)
                return False

        device = None
        try:
            device = usb.core.find(
                idVendor=self.locator.vendor_id,
                idProduct=self.locator.product_id,
                custom_match=serial_matches,
                backend=self._backend,
            )
            if device is None and unreadable:
                # A candidate that cannot say its serial number is more likely ours, broken.
                exc = unreadable[-1]
                raise _LinkLost(fault_code(exc), f"cannot read the serial number of a {self.locator.vendor_id:04x}:{self.locator.product_id:04x} device: {exc}")
            if device is None:
                raise _LinkLost("not-found", f"no USB device {self.locator.describe()}")
            link = self._claim(device)
        except _LinkLost:
            self._dispose(device)
            raise
        except (usb.core.USBError, usb.core.NoBackendError, NotImplementedError, ValueError) as exc:
            self._dispose(device)
            raise _LinkLost(fault_code(exc), f"cannot open {self.locator.describe()}: {exc}") from exc
        self._tracker.reset()
        with self._link_lock:
            self._link = link
        self._log.info(
            "pedals.connected", attempt=attempt, bus=device.bus, address=device.address,
            detached_kernel_driver=link.detached_kernel_driver,
        )  # fmt: skip

    def _claim(self, device: Any) -> _Link:
        interface = p.INTERFACE_NUMBER
        detached = False
        try:
            if device.is_kernel_driver_active(interface):
                device.detach_kernel_driver(interface)
                detached = self._kernel_driver_taken = True
                self.stats.kernel_detaches += 1
                self._log.info("pedals.kernel_driver_detached", interface=interface)
        except NotImplementedError:
            pass  # platforms without kernel drivers to detach (Windows, macOS)
        device.set_configuration(p.CONFIGURATION_VALUE)
        intf = usb.util.find_descriptor(device.get_active_configuration(), bInterfaceNumber=interface)
        if intf is None or intf.bInterfaceClass != p.INTERFACE_CLASS:
            raise _LinkLost("wrong-device", f"{self.locator.describe()} has no pedal interface {interface}")
        endpoint = usb.util.find_descriptor(
            intf,
            custom_match=lambda e: usb.util.endpoint_direction(e.bEndpointAddress) == usb.util.ENDPOINT_IN
            and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR,
        )
        if endpoint is None:
            raise _LinkLost("wrong-device", f"{self.locator.describe()} has no interrupt IN endpoint")
        usb.util.claim_interface(device, interface)
        self._ping(device)
        return _Link(device, endpoint, interface, detached)

    def _ping(self, device: Any) -> None:
        """GET_STATUS on endpoint 0: proves the firmware answers even while no one presses."""
        device.ctrl_transfer(p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS, 0, 0, 2, timeout=self.control_timeout_ms)

    def _read_once(self, link: _Link) -> None:
        try:
            raw = bytes(link.endpoint.read(link.endpoint.wMaxPacketSize, timeout=self.read_timeout_ms))
        except usb.core.USBTimeoutError:
            self._link_works(link)
            self._idle(link)
            return
        except usb.core.USBError as exc:
            if exc.errno == errno.EOVERFLOW:
                # The device sent more than a report: the data is gone, the link is fine.
                self.stats.corrupt += 1
                self._log.warning("pedals.report_corrupt", reason="report longer than the endpoint's packet size")
                self._tap("in", b"", ReportError("report longer than the endpoint's packet size", b""))
                return
            if exc.errno == errno.EPIPE:
                self._stalled(link, exc)
                return
            raise self._lost(exc, "read failed") from exc
        link.stalls_in_a_row = 0
        link.last_activity = time.monotonic()
        self._link_works(link)
        self._handle_report(raw)

    def _idle(self, link: _Link) -> None:
        if time.monotonic() - link.last_activity < self.heartbeat_s:
            return
        self.stats.heartbeats += 1
        try:
            self._ping(link.device)
        except usb.core.USBTimeoutError as exc:
            raise _LinkLost("no-response", f"the pedals stopped answering: {exc}") from exc
        except usb.core.USBError as exc:
            raise self._lost(exc, "heartbeat failed") from exc
        link.last_activity = time.monotonic()

    def _stalled(self, link: _Link, exc: usb.core.USBError) -> None:
        self.stats.stalls += 1
        link.stalls_in_a_row += 1
        self._log.warning("pedals.endpoint_stalled", in_a_row=link.stalls_in_a_row)
        if link.stalls_in_a_row >= self.stall_limit:
            raise _LinkLost("stalled", f"the pedals' endpoint stalled {link.stalls_in_a_row} times in a row")
        try:
            link.endpoint.clear_halt()
        except usb.core.USBError as clear_exc:
            raise self._lost(clear_exc, "clearing the stall failed") from clear_exc

    def _lost(self, exc: usb.core.USBError, what: str) -> _LinkLost:
        code = fault_code(exc)
        if exc.errno not in LINK_LOST_ERRNOS:
            self._log.warning("pedals.unexpected_usb_error", what=what, error=str(exc), errno=exc.errno)
        return _LinkLost(code, f"{what}: {exc}")

    def _link_works(self, link: _Link) -> None:
        if link.proven:
            return
        link.proven = True
        if self._in_fault:
            self._in_fault = False
            self.stats.reconnects += 1
            self._log.info("pedals.recovered", address=link.device.address)
            self._send(DeviceRecovered(self.name))

    def _handle_report(self, raw: bytes) -> None:
        self._history.append((time.time(), raw.hex()))
        try:
            report: PedalReport = decode_report(raw)
        except ReportError as exc:
            self.stats.corrupt += 1
            self._log.warning("pedals.report_corrupt", reason=exc.reason, raw=raw.hex())
            self._tap("in", raw, exc)
            return
        self._tap("in", raw, report)
        before = self._tracker.counts.lost
        presses = self._tracker.feed(report)
        counts = self._tracker.counts
        self.stats.reports, self.stats.duplicates, self.stats.lost = counts.reports, counts.duplicates, counts.lost
        if counts.lost != before:
            self._log.warning("pedals.reports_lost", count=counts.lost - before, sequence=report.sequence)
        for press in presses:
            self.stats.presses += 1
            name = self.button_name(press.button)
            self._log.info("pedals.press", button=name, long_press=press.long, sequence=report.sequence)
            self._send(ButtonPressed(self.name, name, press.long))

    # --- faults and clean-up --------------------------------------------------------------

    def _fault(self, lost: _LinkLost) -> None:
        """Emit one DeviceFault per outage; later failed attempts are only logged."""
        if self._in_fault:
            return
        self._in_fault = True
        self.stats.faults += 1
        self._log.error("pedals.fault", code=lost.code, reason=lost.reason, last_reports=self.last_reports)
        self._send(DeviceFault(self.name, lost.reason, lost.code))

    def _drop_link(self, lost: _LinkLost) -> None:
        self._fault(lost)
        self._close_link(give_back=False)

    def _close_link(self, give_back: bool) -> None:
        with self._link_lock:
            link, self._link = self._link, None
        if link is None:
            return
        if give_back:
            try:
                usb.util.release_interface(link.device, link.interface)
                if self._kernel_driver_taken:
                    self._kernel_driver_taken = False
                    link.device.attach_kernel_driver(link.interface)
            except (usb.core.USBError, NotImplementedError) as exc:
                self._log.info("pedals.release_failed", error=str(exc))
        self._dispose(link.device)

    @staticmethod
    def _dispose(device: Any) -> None:
        if device is None:
            return
        try:
            usb.util.dispose_resources(device)
        except (usb.core.USBError, NotImplementedError):
            pass  # the device is gone; its handle is closed regardless

    def _current_device(self) -> Any:
        with self._link_lock:
            link = self._link
        if link is None:
            raise PedalError(f"pedals {self.name!r} are not connected ({self.locator.describe()})")
        return link.device

    def _names(self, bitmap: int) -> tuple[str, ...]:
        return tuple(self.button_name(i) for i in range(p.MAX_BUTTONS) if bitmap & (1 << i))

    def _send(self, event: Event) -> None:
        try:
            self._emit(event)
        except Exception:  # a broken sink must not stop the pedals being read
            self._log.exception("pedals.emit_failed", event_kind=type(event).__name__)

    def _tap(self, direction: str, raw: bytes, decoded: Any) -> None:
        with self._taps_lock:
            taps = list(self._taps)
        for tap in taps:
            try:
                tap(direction, raw, decoded)
            except Exception:
                self._log.exception("pedals.tap_failed")
