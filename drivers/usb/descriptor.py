"""A USB descriptor as pyusb's backends hand it over: every field an attribute.

Both pyusb backends of the project return these, the simulated bus
(``drivers.simulators.pedals.backend``) and the forwarding backend that reaches a simulator
in another process (``drivers.usb.remote``), so pyusb's own ``Device``/``Configuration``
objects are built from them exactly as from libusb's.
"""

from __future__ import annotations

from typing import Any


class Descriptor:
    """A descriptor as pyusb's backends return it: every field an attribute."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def fields(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        return f"Descriptor({self.__dict__!r})"
