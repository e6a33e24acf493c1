"""USB errors as pyusb's libusb-1.0 backend raises them, and what each means for the pedals.

The simulated backend raises exactly what ``usb.backend.libusb1`` raises for the same
condition (``USBError(strerror, libusb_code, errno)``, ``USBTimeoutError`` for a timeout,
``NotImplementedError`` for an unsupported call), so the driver's error handling is the
same code on the table PC and in tests.
"""

from __future__ import annotations

import errno
from enum import IntEnum

import usb.core


class LibusbError(IntEnum):
    """libusb-1.0 error codes (``libusb_error`` in libusb.h)."""

    IO = -1
    INVALID_PARAM = -2
    ACCESS = -3
    NO_DEVICE = -4
    NOT_FOUND = -5
    BUSY = -6
    TIMEOUT = -7
    OVERFLOW = -8
    PIPE = -9
    INTERRUPTED = -10
    NO_MEM = -11
    NOT_SUPPORTED = -12
    OTHER = -99


_TEXT = {
    LibusbError.IO: ("Input/output error", errno.EIO),
    LibusbError.INVALID_PARAM: ("Invalid parameter", errno.EINVAL),
    LibusbError.ACCESS: ("Access denied (insufficient permissions)", errno.EACCES),
    LibusbError.NO_DEVICE: ("No such device (it may have been disconnected)", errno.ENODEV),
    LibusbError.NOT_FOUND: ("Entity not found", errno.ENOENT),
    LibusbError.BUSY: ("Resource busy", errno.EBUSY),
    LibusbError.TIMEOUT: ("Operation timed out", errno.ETIMEDOUT),
    LibusbError.OVERFLOW: ("Overflow", errno.EOVERFLOW),
    LibusbError.PIPE: ("Pipe error", errno.EPIPE),
    LibusbError.INTERRUPTED: ("System call interrupted (perhaps due to signal)", errno.EINTR),
    LibusbError.NO_MEM: ("Insufficient memory", errno.ENOMEM),
    LibusbError.NOT_SUPPORTED: ("Operation not supported or unimplemented on this platform", errno.ENOSYS),
    LibusbError.OTHER: ("Unknown error", None),
}


def usb_error(code: LibusbError) -> Exception:
    """The exception pyusb's libusb1 backend raises for ``code``."""
    text, number = _TEXT[code]
    if code is LibusbError.TIMEOUT:
        timeout: Exception = usb.core.USBTimeoutError(text, int(code), number)
        return timeout
    if code is LibusbError.NOT_SUPPORTED:
        return NotImplementedError(text)
    error: Exception = usb.core.USBError(text, int(code), number)
    return error


# --- what an error means to the pedal driver ------------------------------------------------

#: errno values after which the device handle is useless: the device is gone or broken.
LINK_LOST_ERRNOS = frozenset({errno.ENODEV, errno.EIO, errno.ENOENT, errno.ESHUTDOWN, errno.EPROTO})


def fault_code(exc: BaseException) -> str:
    """A short, stable code for a ``DeviceFault`` caused by ``exc``."""
    if isinstance(exc, usb.core.NoBackendError):
        return "no-backend"
    if isinstance(exc, usb.core.USBTimeoutError):
        return "no-response"
    if isinstance(exc, usb.core.USBError):
        return {
            errno.ENODEV: "disconnected",
            errno.EIO: "io-error",
            errno.EACCES: "access-denied",
            errno.EBUSY: "busy",
            errno.EPIPE: "stalled",
            errno.ENOENT: "disconnected",
        }.get(exc.errno or 0, "usb-error")
    return "error"
