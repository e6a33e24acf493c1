"""The frame monitors of one driver: who watches its frames (``station diag monitor``, tests).

Added and removed from any thread; each frame is shown to every monitor there is, and a
monitor that raises is logged and never stops the driver reading its device.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from drivers.devices.contract import Tap


class Taps:
    """The monitors of one driver; ``failed`` is the log event a monitor's exception is logged as."""

    def __init__(self, log: Any, failed: str) -> None:
        self._log = log
        self._failed = failed
        self._taps: list[Tap] = []
        self._lock = threading.Lock()

    def add(self, tap: Tap) -> Callable[[], None]:
        """Show every frame to ``tap`` from now on; returns a function that removes it."""
        with self._lock:
            self._taps.append(tap)
        return lambda: self.remove(tap)

    def remove(self, tap: Tap) -> None:
        """Stop showing frames to ``tap`` (one that is not there is no error)."""
        with self._lock:
            if tap in self._taps:
                self._taps.remove(tap)

    def show(self, direction: str, raw: bytes, decoded: Any) -> None:
        with self._lock:
            taps = list(self._taps)
        for tap in taps:
            try:
                tap(direction, raw, decoded)
            except Exception:  # a broken monitor must never break the driver
                self._log.exception(self._failed)
