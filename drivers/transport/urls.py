"""Which device URLs the station can open, told before it tries: a typo in a URL scheme is a
configuration error to name at start-up, not a device that never connects.

Serial devices take a device path (``/dev/ttyUSB0``, ``/dev/serial/by-id/...``), any URL
pyserial's ``serial_for_url`` has a handler for (``socket://``, ``rfc2217://``, ``loop://``,
...), or ``sim:`` for a simulator. The pedals take a USB locator (``usb://VID:PID?serial=...``,
``usb-sim:///socket``), a foot switch's ``evdev://VID:PID`` / ``evdev:///dev/input/...``, or ``sim:``;
the player-card reader an ``evdev://`` locator or ``sim:``.
"""

from __future__ import annotations

import importlib.util
import re

SIM = "sim:"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
USB_DEVICES = frozenset({"pedals"})
#: Devices that are only ever input devices read through evdev (a keyboard-wedge card reader).
EVDEV_DEVICES = frozenset({"cardreader"})


#: How a template marks a device URL a technician must still fill in.
FILL_IN = "FILL-IN"


def url_problem(device: str, url: str) -> str | None:
    """Why ``url`` cannot name ``device``, or None when it can be opened (or tried)."""
    if url.startswith(SIM):
        return None
    if url.upper().startswith(FILL_IN):
        return (f"not filled in yet ({url!r}): run `station diag ports` on the table PC and put the "
                f"{device}'s stable path (/dev/serial/by-id/… or a usb:// locator) here")
    if device in EVDEV_DEVICES:
        from drivers.input.locator import is_evdev_url, parse_evdev_locator

        if not is_evdev_url(url):
            return f"{url!r}: a {device} is an input device: evdev://VID:PID, evdev:///dev/input/by-id/... or sim:"
        try:
            parse_evdev_locator(url)
        except ValueError as exc:
            return str(exc)
        return None
    if device in USB_DEVICES:
        from drivers.input.locator import is_evdev_url, parse_evdev_locator
        from drivers.usb.locator import parse_locator

        try:
            parse_evdev_locator(url) if is_evdev_url(url) else parse_locator(url)
        except ValueError as exc:
            return str(exc)
        return None
    match = _SCHEME.match(url)
    if match is None:
        if ":" in url.split("/", 1)[0]:
            return f"{url!r} is neither a device path nor a URL (scheme://...)"
        return None  # a device path: whether it exists now is checked by --check, not here
    scheme = match.group(1).lower()
    if importlib.util.find_spec(f"serial.urlhandler.protocol_{scheme.replace('-', '_')}") is None:
        return (f"unknown URL scheme {scheme!r}: use a device path such as /dev/serial/by-id/..., "
                "a pyserial URL (socket://, rfc2217://, ...) or sim:")
    return None
