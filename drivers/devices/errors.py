"""How a request to any device fails, whatever its transport.

One hierarchy for the serial devices and the USB pedals, so the service and the diagnostics
catch :class:`DeviceError` and never ask which kind of device raised it.
"""

from __future__ import annotations

from typing import Any


class DeviceError(Exception):
    """A request to a device failed."""


class DeviceUnavailable(DeviceError):
    """The device is not connected (unplugged, or the link was lost during the request)."""


class DeviceTimeout(DeviceError):
    """The device did not answer a request, even after retransmissions."""


class DeviceRefused(DeviceError):
    """The device answered NAK: it understood the command and refused it."""

    def __init__(self, command: str, code: Any, detail: str) -> None:
        name = getattr(code, "name", str(code)).lower()
        super().__init__(f"{command} refused: {name}" + (f" ({detail})" if detail else ""))
        self.code = code
        self.detail = detail


class DeviceProtocolError(DeviceError):
    """The device answered with something that does not answer the request."""
