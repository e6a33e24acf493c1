"""Simulated dealer button box: scripted presses, short and long."""

from __future__ import annotations

import threading
import time
from typing import Any

from drivers.codec import buttonbox as wire
from drivers.codec.protocol import Ack, Message, Nak, NakCode
from drivers.simulators.base import SimulatedDevice


class ButtonBoxSimulator(SimulatedDevice):
    PROTOCOL = "buttonbox"
    MODEL = "SIM-BUTTONS-4"

    def __init__(self, *, buttons: int = 4, long_press_ms: int = 800, **options: Any) -> None:
        super().__init__(**options)
        self.buttons = buttons
        self.long_press_ms = long_press_ms
        self._down: dict[int, float] = {}
        self._timers: dict[int, threading.Timer] = {}
        self._box_lock = threading.Lock()

    def _check(self, button: int) -> None:
        if not 1 <= button <= self.buttons:
            raise ValueError(f"button {button} does not exist (1-{self.buttons})")

    def press(self, button: int) -> None:
        """A quick tap: down then up, shorter than the long-press time."""
        self._check(button)
        self.send_event(wire.ButtonDown(button))
        self.send_event(wire.ButtonUp(button, 120))

    def long_press(self, button: int) -> None:
        """Held past the long-press time, then released (no real waiting)."""
        self._check(button)
        held = self.long_press_ms + 200
        self.send_event(wire.ButtonDown(button))
        self.send_event(wire.LongPress(button, self.long_press_ms))
        self.send_event(wire.ButtonUp(button, held))

    def button_down(self, button: int) -> None:
        """Press and keep holding in real time; the long press fires after ``long_press_ms``."""
        self._check(button)
        with self._box_lock:
            self._down[button] = time.monotonic()
            timer = threading.Timer(self.long_press_ms / 1000, self._long_press_fired, (button,))
            timer.daemon = True
            self._timers[button] = timer
        self.send_event(wire.ButtonDown(button))
        timer.start()

    def button_up(self, button: int) -> None:
        with self._box_lock:
            started = self._down.pop(button, None)
            timer = self._timers.pop(button, None)
        if started is None:
            raise ValueError(f"button {button} is not down")
        if timer is not None:
            timer.cancel()
        self.send_event(wire.ButtonUp(button, int((time.monotonic() - started) * 1000)))

    def _long_press_fired(self, button: int) -> None:
        with self._box_lock:
            if button not in self._down:
                return
        self.send_event(wire.LongPress(button, self.long_press_ms))

    def handle_command(self, message: Message) -> Message:
        if isinstance(message, wire.ButtonBoxGetStatus):
            with self._box_lock:
                held = tuple(sorted(self._down))
            return wire.BoxStatus(self.buttons, held, self.long_press_ms)
        if isinstance(message, wire.SetLongPress):
            if not 100 <= message.millis <= 10000:
                return Nak(NakCode.OUT_OF_RANGE, f"{message.millis} ms is outside 100-10000")
            self.long_press_ms = message.millis
            return Ack()
        return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)
