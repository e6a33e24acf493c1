"""Where a foot switch or keypad is: an event node, or a USB VID:PID with a serial or a place.

Configuration names it by URL:

* ``evdev:///dev/input/by-id/usb-PCsensor_FootSwitch-event-kbd``: a node path (the stable
  by-id or by-path link, which udev keeps across re-plugs, or ``/dev/input/eventN``);
* ``evdev://0c45:7403``: the one input device with that USB vendor and product;
  ``?serial=SN`` or ``?phys=usb-0000:00:14.0-2/input0`` picks one of several (the serial is
  the device's ``uniq``, which cheap units often leave empty; ``phys`` is the USB port it is
  plugged into, so it changes when the unit moves to another port). ``?name=`` matches the
  device's name too (a unit that shows two nodes, keyboard and mouse, is told apart by it).

``station diag ports`` lists every input device with these facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

SCHEME = "evdev"

BackendFactory = Callable[[], Any]  # returns an InputBackend (drivers.input.backend)


class EvdevLocatorError(ValueError):
    """A foot switch locator that cannot be understood."""


@dataclass(frozen=True)
class EvdevLocator:
    """One input device: by ``path``, or by ``vendor_id``/``product_id`` (and serial, phys, name)."""

    path: str | None = None
    vendor_id: int | None = None
    product_id: int | None = None
    serial: str | None = None
    phys: str | None = None
    name: str | None = None
    #: What finds and opens the nodes; None: python-evdev (:func:`drivers.input.backend.default_backend`).
    backend_factory: BackendFactory | None = None
    url: str = ""

    def __str__(self) -> str:
        return self.url or self.describe()

    def describe(self) -> str:
        """For messages: ``0c45:7403 serial X`` or the path."""
        if self.path is not None:
            return self.path
        parts = [f"{self.vendor_id or 0:04x}:{self.product_id or 0:04x}"]
        for key in ("serial", "phys", "name"):
            value = getattr(self, key)
            if value:
                parts.append(f"{key} {value}")
        return " ".join(parts)

    def matches(self, vendor: int, product: int, uniq: str, phys: str, name: str) -> bool:
        """Whether a device with these facts is the one named (a path-named one: any)."""
        if self.path is not None:
            return True
        return ((vendor, product) == (self.vendor_id, self.product_id)
                and self.serial in (None, uniq) and self.phys in (None, phys) and self.name in (None, name))


_IDS = re.compile(r"^(?P<vid>[0-9a-fA-F]{4}):(?P<pid>[0-9a-fA-F]{4})$")


def is_evdev_url(text: str) -> bool:
    return text.strip().startswith(f"{SCHEME}:")


def parse_evdev_locator(text: str) -> EvdevLocator:
    """Parse an ``evdev:`` URL (see the module docstring); errors name what is wrong."""
    text = text.strip()
    parts = urlsplit(text)
    if parts.scheme != SCHEME:
        raise EvdevLocatorError(f"{text!r}: a foot switch is evdev:///dev/input/... or evdev://VID:PID")
    params = parse_qs(parts.query, keep_blank_values=True)
    unknown = set(params) - {"serial", "phys", "name"}
    if unknown:
        raise EvdevLocatorError(f"{text}: unknown option(s) {', '.join(sorted(unknown))}; known: serial, phys, name")
    options: dict[str, str] = {}
    for key, values in params.items():
        if len(values) != 1 or not values[0]:
            raise EvdevLocatorError(f"{text}: option {key!r} needs exactly one value")
        options[key] = values[0]
    if parts.netloc:
        match = _IDS.match(parts.netloc)
        if match is None:
            raise EvdevLocatorError(f"{text}: {parts.netloc!r} is not VID:PID in hex (e.g. 0c45:7403)")
        if parts.path not in ("", "/"):
            raise EvdevLocatorError(f"{text}: give either a node path (evdev:///dev/input/...) or VID:PID, not both")
        return EvdevLocator(None, int(match["vid"], 16), int(match["pid"], 16), options.get("serial"),
                            options.get("phys"), options.get("name"), url=text)
    if not parts.path.startswith("/dev/input/"):
        raise EvdevLocatorError(f"{text}: a node path is under /dev/input/ (evdev:///dev/input/by-id/...)")
    if options:
        raise EvdevLocatorError(f"{text}: a node path needs no serial, phys or name")
    return EvdevLocator(parts.path, url=text)
