"""The one place python-evdev is used: listing event nodes and opening one.

The driver reads a device through the small part of ``evdev.InputDevice`` it needs (``path``,
``name``, ``phys``, ``uniq``, ``info``, ``capabilities()``, ``active_keys()``, ``grab()``,
``ungrab()``, ``fd``, ``read()``, ``close()``) and finds devices through an
:class:`InputBackend`. Here that is python-evdev on the kernel's nodes; a test puts a stand-in
with the same surface in its place (``drivers/simulators/footswitch.py``), as the USB pedals'
tests put a simulated backend under pyusb. python-evdev is imported when a device is first
looked for, so a station without a foot switch never loads it.
"""

from __future__ import annotations

from typing import Any, Protocol


class InputBackend(Protocol):
    """Lists the event nodes and opens one (an ``evdev.InputDevice`` or its stand-in)."""

    def list_devices(self) -> list[str]: ...

    def open(self, path: str) -> Any: ...


class EvdevUnavailable(RuntimeError):
    """python-evdev cannot be imported here."""


class PythonEvdevBackend:
    """The kernel's input devices through python-evdev."""

    def __init__(self) -> None:
        try:
            import evdev
        except ImportError as exc:  # the package is a dependency; a broken install says so
            raise EvdevUnavailable(f"python-evdev cannot be loaded: {exc}") from exc
        self._evdev = evdev

    def list_devices(self) -> list[str]:
        return sorted(self._evdev.list_devices())

    def open(self, path: str) -> Any:
        return self._evdev.InputDevice(path)


def default_backend() -> InputBackend:
    """The backend of a locator that names none: python-evdev on this PC's nodes."""
    return PythonEvdevBackend()
