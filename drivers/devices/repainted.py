"""Devices that show a picture the station keeps (the results board, the progressive sign).

Such a device shows only what it was told since it last powered up, and misses whatever was
sent while its link was down. Its driver tells one callback, with a reason, whenever the
picture must be sent again in full: when the link comes up (``"connected"``) and when the
device announces it booted (``"boot"``: it is blank, whatever it showed before). The feed that
keeps the picture (station/service/board.py's publisher, station/service/sign_picture.py)
repaints it then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from drivers.codec.protocol import Boot, IdentityReport, Message
from drivers.devices.base import SerialDeviceDriver


class RepaintedDriver(SerialDeviceDriver):
    """A serial driver that says when the device's picture must be painted again in full."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._repaint_lock = threading.Lock()
        self._needs_repaint: Callable[[str], None] | None = None

    def on_needs_repaint(self, callback: Callable[[str], None] | None) -> None:
        """Set the one callback told, with a reason ("connected", "boot"), that the device's
        picture must be sent again in full."""
        with self._repaint_lock:
            self._needs_repaint = callback

    def _tell_repaint(self, reason: str) -> None:
        with self._repaint_lock:
            callback = self._needs_repaint
        if callback is not None:
            callback(reason)

    def _on_up(self, identity: IdentityReport) -> None:
        super()._on_up(identity)
        self._tell_repaint("connected")

    def on_message(self, message: Message) -> None:
        if isinstance(message, Boot):  # powered up again: blank, whatever it showed before
            self._tell_repaint("boot")
        else:
            super().on_message(message)
