"""Simulated results display board: records every command it was sent, in order.

``received`` (from the base class) holds the decoded commands; ``screen`` holds what the
board currently shows, so tests can check both the sequence and the end state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drivers.codec import display as wire
from drivers.codec.protocol import Ack, Message, Nak, NakCode, SelfTestResult
from drivers.simulators.base import SimulatedDevice


@dataclass
class Screen:
    result: wire.ShowResult | None = None
    roads: wire.ShowRoads | None = None
    message: str = ""
    limits: wire.ShowLimits | None = None
    expected: str = ""
    brightness: int = 80


class DisplaySimulator(SimulatedDevice):
    PROTOCOL = "display"
    MODEL = "SIM-DISPLAY-1"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.screen = Screen()
        self.shown = 0
        self.error = 0
        self.panel_broken = False

    def commands(self, cls: type[Message] | None = None) -> list[Message]:
        """Received commands of one type (all display commands if None; no pings or identifies)."""
        with self._lock:
            items = list(self.received)
        if cls is None:
            return [m for m in items if 0x10 <= m.TYPE <= 0x3F]
        return [m for m in items if isinstance(m, cls)]

    def panel_fault(self, detail: str = "LED panel 2 does not respond") -> None:
        self.error = int(wire.DisplayErrorCode.PANEL_FAULT)
        self.panel_broken = True
        self.send_event(wire.DisplayError(wire.DisplayErrorCode.PANEL_FAULT, detail))

    def handle_command(self, message: Message) -> Message:
        s = self.screen
        match message:
            case wire.GetStatus():
                return wire.DisplayStatus(s.brightness, self.shown, self.error)
            case wire.SetBrightness(level=level):
                if level > 100:
                    return Nak(NakCode.OUT_OF_RANGE, f"brightness {level} is above 100")
                s.brightness = level
            case wire.ShowResult():
                s.result = message
            case wire.ShowRoads():
                s.roads = message
            case wire.ShowMessage(text=text):
                s.message = text
            case wire.ShowLimits():
                s.limits = message
            case wire.ShowExpected(text=text):
                s.expected = text
            case wire.Clear():
                self.screen = Screen(brightness=s.brightness)
            case _:
                return Nak(NakCode.UNKNOWN_COMMAND, type(message).__name__)
        self.shown += 1
        return Ack()

    def self_test_result(self) -> SelfTestResult:
        if self.panel_broken:
            return SelfTestResult(False, int(wire.DisplayErrorCode.PANEL_FAULT), "panel 2 test pattern not confirmed")
        return SelfTestResult(True, 0, "test pattern shown on all panels")
