"""Where the pedals are: VID/PID, optional serial number, and which pyusb backend reaches them.

Configuration names the pedals by URL:

* ``usb://1209:0001?serial=PED-0001`` - a real device through libusb-1.0 (the default on a
  table PC); ``usb://?serial=PED-0001`` uses the protocol's default VID:PID, and a bare
  ``1209:0001`` is accepted too;
* ``usb-sim:///run/station/pedals.sock?serial=PED-SIM-0001`` - a simulated device served by
  ``station simulate pedals`` in another process, reached through a forwarding backend.

A simulator in the station's own process is reached by a locator carrying its backend
(:func:`simulated_locator`, what ``start_simulator("pedals")`` hands out as its endpoint). The
driver code is the same for all three: only the backend differs, which is the point.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from drivers.usb import protocol as p

BackendFactory = Callable[[], Any]  # returns a usb.backend.IBackend, or None if unavailable


def libusb1_backend() -> Any:
    """pyusb's libusb-1.0 backend, or ``None`` when libusb-1.0 cannot be loaded."""
    import usb.backend.libusb1

    return usb.backend.libusb1.get_backend()


class LocatorError(ValueError):
    """A pedal locator that cannot be understood."""


@dataclass(frozen=True)
class PedalLocator:
    vendor_id: int = p.VENDOR_ID
    product_id: int = p.PRODUCT_ID
    serial: str | None = None
    backend_factory: BackendFactory = libusb1_backend
    url: str = ""

    def __str__(self) -> str:
        if self.url:
            return self.url
        serial = f"?serial={self.serial}" if self.serial else ""
        return f"usb://{self.vendor_id:04x}:{self.product_id:04x}{serial}"

    def describe(self) -> str:
        """For messages: ``1209:0001 serial PED-0001``."""
        serial = f" serial {self.serial}" if self.serial else ""
        return f"{self.vendor_id:04x}:{self.product_id:04x}{serial}"


_IDS = re.compile(r"^(?P<vid>[0-9a-fA-F]{4}):(?P<pid>[0-9a-fA-F]{4})$")


def _ids(text: str, where: str) -> tuple[int, int]:
    if not text:
        return p.VENDOR_ID, p.PRODUCT_ID
    match = _IDS.match(text)
    if match is None:
        raise LocatorError(f"{where}: {text!r} is not VID:PID in hex (e.g. 1209:0001)")
    return int(match["vid"], 16), int(match["pid"], 16)


def _query(query: str, where: str) -> dict[str, str]:
    params = parse_qs(query, keep_blank_values=True, strict_parsing=False)
    unknown = set(params) - {"serial", "id"}
    if unknown:
        raise LocatorError(f"{where}: unknown option(s) {', '.join(sorted(unknown))}; known: serial, id")
    out = {}
    for key, values in params.items():
        if len(values) != 1 or not values[0]:
            raise LocatorError(f"{where}: option {key!r} needs exactly one value")
        out[key] = values[0]
    return out


def parse_locator(text: str) -> PedalLocator:
    """Parse a pedal URL (see the module docstring); errors name what is wrong."""
    text = text.strip()
    if _IDS.match(text):
        vid, pid = _ids(text, text)
        return PedalLocator(vid, pid, url=f"usb://{text.lower()}")
    parts = urlsplit(text)
    if parts.scheme == "usb":
        query = _query(parts.query, text)
        vid, pid = _ids(parts.netloc, text)
        if parts.path not in ("", "/"):
            raise LocatorError(f"{text}: a usb:// locator has no path, only VID:PID and ?serial=")
        return PedalLocator(vid, pid, query.get("serial"), libusb1_backend, text)
    if parts.scheme == "usb-sim":
        if parts.netloc or not parts.path:
            raise LocatorError(f"{text}: expected usb-sim:///absolute/path/to/socket")
        query = _query(parts.query, text)
        vid, pid = _ids(query.get("id", ""), text)
        path = parts.path

        def remote() -> Any:
            from drivers.usb.remote import RemoteBackend

            return RemoteBackend(path)

        return PedalLocator(vid, pid, query.get("serial"), remote, text)
    raise LocatorError(f"{text!r}: pedal locators are usb://VID:PID?serial=... or usb-sim:///socket-path, "
                       "a foot switch evdev://VID:PID or evdev:///dev/input/...")


def simulated_locator(
    backend: Any,
    serial: str | None = None,
    vendor_id: int = p.VENDOR_ID,
    product_id: int = p.PRODUCT_ID,
) -> PedalLocator:
    """A locator for an in-process backend (a :class:`~drivers.simulators.pedals.backend.SimulatedBackend`)."""
    return PedalLocator(
        vendor_id, product_id, serial, lambda: backend, f"usb-sim:(in-process){'?serial=' + serial if serial else ''}"
    )
