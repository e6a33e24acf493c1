"""``station diag pedals``: a press test of the dealer's pedals (or serial button box).

The technician presses each pedal, short and long; every press is shown as the station
would receive it (``ButtonPressed`` from the real driver, so debounce, long-press and
duplicate filtering are the driver's own), and at the end the buttons that were never
pressed are listed. Trouble on the way is shown too, since a flaky pedal is what this test
is usually run for: a report the driver refused (seen through its frame tap) and link
faults and recoveries (its events).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from station.events import ButtonPressed, DeviceFault, DeviceRecovered, Event


@dataclass
class PressTally:
    """Presses per button, short and long, in arrival order."""

    buttons: tuple[str, ...]
    short: dict[str, int] = field(default_factory=dict)
    long: dict[str, int] = field(default_factory=dict)
    presses: list[tuple[float, str, bool]] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)

    def add(self, elapsed: float, press: ButtonPressed) -> None:
        bucket = self.long if press.long_press else self.short
        bucket[press.button] = bucket.get(press.button, 0) + 1
        self.presses.append((elapsed, press.button, press.long_press))

    def pressed(self, button: str) -> bool:
        return bool(self.short.get(button) or self.long.get(button))

    @property
    def never_pressed(self) -> list[str]:
        return [b for b in self.buttons if not self.pressed(b)]

    @property
    def unknown(self) -> list[str]:
        """Buttons that were pressed but are not configured (an extra or miswired pedal)."""
        seen = dict.fromkeys(b for _, b, _ in self.presses)
        return [b for b in seen if b not in self.buttons]

    def as_dict(self, actions: Mapping[str, str]) -> dict[str, Any]:
        return {
            "buttons": {
                b: {"short": self.short.get(b, 0), "long": self.long.get(b, 0), "action": actions.get(b, "")}
                for b in self.buttons
            },
            "presses": [{"t": round(t, 3), "button": b, "long": lg} for t, b, lg in self.presses],
            "never_pressed": self.never_pressed,
            "unknown": self.unknown,
            "faults": self.faults,
        }


def corrupt_note(direction: str, raw: bytes, decoded: Any) -> str | None:
    """For a driver tap: a line about a report the driver refused, else ``None``."""
    from drivers.codec.protocol import CodecError
    from drivers.usb.codec import ReportError

    if isinstance(decoded, ReportError):
        return f"corrupt report skipped: {decoded.reason} ({raw.hex(' ')})"
    if isinstance(decoded, CodecError) and decoded.fault != "noise":
        return f"corrupt frame skipped: {decoded.fault} ({raw.hex(' ')})"
    return None


def run_press_test(
    events: queue.Queue[Event | str],
    tally: PressTally,
    *,
    seconds: float | None,
    until_all: bool = False,
    on_press: Callable[[float, ButtonPressed], Any] | None = None,
    on_fault: Callable[[str], Any] | None = None,
) -> PressTally:
    """Count the driver's events into ``tally`` until ``seconds`` pass (or, with ``until_all``,
    every button has been pressed). Ctrl-C propagates as KeyboardInterrupt; ``tally`` then
    holds everything received so far, for the caller's summary."""
    started = time.monotonic()
    deadline = None if seconds is None else started + seconds
    while True:
        if until_all and not tally.never_pressed:
            return tally
        left = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
        if left <= 0:
            return tally
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            continue
        elapsed = time.monotonic() - started
        if isinstance(event, str):  # a note from the frame tap (a corrupt report)
            tally.faults.append(event)
            if on_fault is not None:
                on_fault(event)
        elif isinstance(event, ButtonPressed):
            tally.add(elapsed, event)
            if on_press is not None:
                on_press(elapsed, event)
        elif isinstance(event, (DeviceFault, DeviceRecovered)):
            text = f"fault: {event.reason}" if isinstance(event, DeviceFault) else "recovered"
            tally.faults.append(text)
            if on_fault is not None:
                on_fault(text)


def format_press(elapsed: float, press: ButtonPressed, actions: Mapping[str, str]) -> str:
    kind = "LONG " if press.long_press else "short"
    action = f"  ({actions[press.button]})" if press.button in actions else ""
    return f"{elapsed:8.2f}s  {press.button:<10} {kind}{action}"


def format_summary(tally: PressTally) -> str:
    lines = ["", "button     short  long"]
    for button in tally.buttons:
        lines.append(f"{button:<10} {tally.short.get(button, 0):>5} {tally.long.get(button, 0):>5}")
    if tally.unknown:
        lines.append(f"pressed but not configured: {', '.join(tally.unknown)}")
    if tally.never_pressed:
        lines.append(f"NEVER PRESSED: {', '.join(tally.never_pressed)}")
    else:
        lines.append("every configured button was pressed")
    return "\n".join(lines)
