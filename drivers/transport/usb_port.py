"""The USB pedals' port: find the unit through pyusb, take it from the OS driver, claim it, read it.

What ``serial_port.py`` is for the serial devices, this is for the pedals: how the device
is reached, nothing about what its reports mean. :meth:`UsbPort.open` finds the device
(``usb.core.find`` with VID/PID and a serial-number match), detaches the operating
system's HID driver, sets the configuration, claims the interface, finds the interrupt IN
endpoint and proves the firmware answers (``GET_STATUS``). Every failure that makes the
device unusable is raised as :class:`UsbLinkLost` with a short, stable code for the
``DeviceFault``; the two conditions the reader survives are their own exceptions
(:class:`EndpointStalled`, :class:`ReportTooLong`). The backend comes from the locator, so
the same code runs on libusb-1.0 at the table and on a simulated backend in tests.
"""

from __future__ import annotations

import contextlib
import errno
import threading
from dataclasses import dataclass
from typing import Any

import structlog
import usb.core
import usb.util

from drivers.usb import protocol as p
from drivers.usb.errors import LINK_LOST_ERRNOS, fault_code
from drivers.usb.locator import PedalLocator


class UsbLinkLost(Exception):
    """The device is unusable; ``code`` and ``reason`` go into the ``DeviceFault``."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class EndpointStalled(Exception):
    """The interrupt endpoint answered with a stall (EPIPE): clearing the halt may help."""


class ReportTooLong(Exception):
    """The device sent more than a report (EOVERFLOW): that data is gone, the link is fine."""


@dataclass
class _Opened:
    device: Any  # usb.core.Device
    endpoint: Any  # usb.core.Endpoint
    interface: int
    detached_kernel_driver: bool


class UsbPort:
    """At most one opened pedal unit, found by ``locator``; thread-safe to look at while read."""

    def __init__(self, locator: PedalLocator, *, control_timeout_ms: int = 500, log: Any = None) -> None:
        self.locator = locator
        self.control_timeout_ms = control_timeout_ms
        self._log = log or structlog.get_logger(__name__).bind(locator=str(locator))
        self._backend: Any = None
        self._opened: _Opened | None = None
        self._lock = threading.Lock()
        self._kernel_driver_taken = False  # give it back to the OS on close(give_back=True)

    @property
    def is_open(self) -> bool:
        return self._opened is not None

    @property
    def device(self) -> Any:
        """The opened ``usb.core.Device``, or ``None``."""
        with self._lock:
            opened = self._opened
        return None if opened is None else opened.device

    @property
    def detached_kernel_driver(self) -> bool:
        opened = self._opened
        return opened is not None and opened.detached_kernel_driver

    # -- opening and closing -------------------------------------------------------------------

    def open(self) -> None:
        """Find, claim and greet the unit; raises :class:`UsbLinkLost` saying why not."""
        if self._backend is None:
            self._backend = self.locator.backend_factory()
            if self._backend is None:
                raise UsbLinkLost("no-backend", "no USB backend: libusb-1.0 is not installed or cannot be loaded")
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
                ids = f"{self.locator.vendor_id:04x}:{self.locator.product_id:04x}"
                raise UsbLinkLost(fault_code(exc), f"cannot read the serial number of a {ids} device: {exc}")
            if device is None:
                raise UsbLinkLost("not-found", f"no USB device {self.locator.describe()}")
            opened = self._claim(device)
        except UsbLinkLost:
            self._dispose(device)
            raise
        except (usb.core.USBError, usb.core.NoBackendError, NotImplementedError, ValueError) as exc:
            self._dispose(device)
            raise UsbLinkLost(fault_code(exc), f"cannot open {self.locator.describe()}: {exc}") from exc
        with self._lock:
            self._opened = opened

    def _claim(self, device: Any) -> _Opened:
        interface = p.INTERFACE_NUMBER
        detached = False
        try:
            if device.is_kernel_driver_active(interface):
                device.detach_kernel_driver(interface)
                detached = self._kernel_driver_taken = True
                self._log.info("pedals.kernel_driver_detached", interface=interface)
        except NotImplementedError:
            pass  # platforms without kernel drivers to detach (Windows, macOS)
        device.set_configuration(p.CONFIGURATION_VALUE)
        intf = usb.util.find_descriptor(device.get_active_configuration(), bInterfaceNumber=interface)
        if intf is None or intf.bInterfaceClass != p.INTERFACE_CLASS:
            raise UsbLinkLost("wrong-device", f"{self.locator.describe()} has no pedal interface {interface}")
        endpoint = usb.util.find_descriptor(
            intf,
            custom_match=lambda e: usb.util.endpoint_direction(e.bEndpointAddress) == usb.util.ENDPOINT_IN
            and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR,
        )
        if endpoint is None:
            raise UsbLinkLost("wrong-device", f"{self.locator.describe()} has no interrupt IN endpoint")
        usb.util.claim_interface(device, interface)
        self._get_status(device)
        return _Opened(device, endpoint, interface, detached)

    def close(self, *, give_back: bool) -> None:
        """Let go of the unit; with ``give_back`` release the interface and hand it back to the
        OS driver first (a lost unit has nothing to give back: its handle is just closed)."""
        with self._lock:
            opened, self._opened = self._opened, None
        if opened is None:
            return
        if give_back:
            try:
                usb.util.release_interface(opened.device, opened.interface)
                if self._kernel_driver_taken:
                    self._kernel_driver_taken = False
                    opened.device.attach_kernel_driver(opened.interface)
            except (usb.core.USBError, NotImplementedError) as exc:
                self._log.info("pedals.release_failed", error=str(exc))
        self._dispose(opened.device)

    def close_backend(self) -> None:
        """Close the backend too (a forwarding backend's connections); the next open makes a new one."""
        backend, self._backend = self._backend, None
        close = getattr(backend, "close", None)  # only the forwarding backend has connections
        if callable(close):
            close()

    @staticmethod
    def _dispose(device: Any) -> None:
        if device is None:
            return
        with contextlib.suppress(usb.core.USBError, NotImplementedError):  # gone: its handle is closed regardless
            usb.util.dispose_resources(device)

    # -- transfers -----------------------------------------------------------------------------

    def read(self, timeout_ms: int) -> bytes | None:
        """One interrupt report, or ``None`` when none came within ``timeout_ms`` (the idle case)."""
        opened = self._require()
        try:
            return bytes(opened.endpoint.read(opened.endpoint.wMaxPacketSize, timeout=timeout_ms))
        except usb.core.USBTimeoutError:
            return None
        except usb.core.USBError as exc:
            if exc.errno == errno.EOVERFLOW:
                raise ReportTooLong("report longer than the endpoint's packet size") from exc
            if exc.errno == errno.EPIPE:
                raise EndpointStalled(str(exc)) from exc
            raise self._lost(exc, "read failed") from exc

    def clear_halt(self) -> None:
        try:
            self._require().endpoint.clear_halt()
        except usb.core.USBError as exc:
            raise self._lost(exc, "clearing the stall failed") from exc

    def heartbeat(self) -> None:
        """``GET_STATUS`` on endpoint 0: proves the firmware answers even while no one presses."""
        try:
            self._get_status(self._require().device)
        except usb.core.USBTimeoutError as exc:
            raise UsbLinkLost("no-response", f"the pedals stopped answering: {exc}") from exc
        except usb.core.USBError as exc:
            raise self._lost(exc, "heartbeat failed") from exc

    def control_in(self, request_type: int, request: int, value: int, index: int, length: int) -> bytes:
        """A device-to-host control request on the opened unit; pyusb's ``USBError`` on failure."""
        device = self.device
        if device is None:
            raise UsbLinkLost("not-connected", f"not connected ({self.locator.describe()})")
        return bytes(device.ctrl_transfer(request_type, request, value, index, length, timeout=self.control_timeout_ms))

    def _get_status(self, device: Any) -> None:
        device.ctrl_transfer(p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS, 0, 0, 2, timeout=self.control_timeout_ms)

    def _require(self) -> _Opened:
        opened = self._opened
        if opened is None:
            raise UsbLinkLost("not-connected", f"not connected ({self.locator.describe()})")
        return opened

    def _lost(self, exc: usb.core.USBError, what: str) -> UsbLinkLost:
        if exc.errno not in LINK_LOST_ERRNOS:
            self._log.warning("pedals.unexpected_usb_error", what=what, error=str(exc), errno=exc.errno)
        return UsbLinkLost(fault_code(exc), f"{what}: {exc}")
