"""Simulated results display board: records every command it was sent, in order.

``received`` (from the base class) holds the decoded commands; ``screen`` holds what the
board currently shows, so tests can check both the sequence and the end state. Like a real
board it forgets its picture when it restarts (:meth:`reboot`, :meth:`power_cycle`); its
faults are the base simulator's: :meth:`mute` (stops acknowledging), :meth:`unplug`.

``python -m drivers.simulators display`` (``station simulate display``) prints what the board
shows as it changes, Casino War results included, for a technician to watch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.codec import display as wire
from drivers.codec.protocol import Ack, Message, Nak, NakCode, SelfTestResult
from drivers.simulators.base import SimulatedDevice


@dataclass
class Screen:
    result: wire.ShowResult | None = None
    war_result: wire.ShowWarResult | None = None
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
        #: Called with each command once it is on the screen (``station simulate display`` prints it).
        self.on_shown: Callable[[Message], None] | None = None
        self.boots = 0

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
            case wire.DisplayGetStatus():
                return wire.DisplayStatus(s.brightness, self.shown, self.error)
            case wire.SetBrightness(level=level):
                if level > 100:
                    return Nak(NakCode.OUT_OF_RANGE, f"brightness {level} is above 100")
                s.brightness = level
            case wire.ShowResult():
                s.result = message
                s.war_result = None
            case wire.ShowWarResult():
                s.war_result = message
                s.result = None
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
                return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)
        self.shown += 1
        if self.on_shown is not None:
            self.on_shown(message)
        return Ack()

    def on_power_cycle(self) -> None:
        """A board that restarts is blank: its picture, counters and error are gone."""
        with self._lock:
            self.screen = Screen()
            self.shown = 0
            self.error = 0
            self.boots += 1

    def self_test_result(self) -> SelfTestResult:
        if self.panel_broken:
            return SelfTestResult(False, int(wire.DisplayErrorCode.PANEL_FAULT), "panel 2 test pattern not confirmed")
        return SelfTestResult(True, 0, "test pattern shown on all panels")


_WAR_WORDS = {
    wire.WarBoxOutcome.WIN: "wins", wire.WarBoxOutcome.LOSE: "loses", wire.WarBoxOutcome.TIE: "ties",
    wire.WarBoxOutcome.WAR_WIN: "wins the war", wire.WarBoxOutcome.WAR_LOSE: "loses the war",
    wire.WarBoxOutcome.SURRENDER: "surrenders",
}


def describe_screen(screen: Screen) -> list[str]:
    """What the board shows, line by line, as a player would read it."""
    from station.money import format_range

    lines: list[str] = []
    if screen.limits is not None:
        lim = screen.limits
        digits, currency = lim.minor_digits, lim.currency
        line = f"TABLE {format_range(lim.table_min, lim.table_max, digits, currency)}"
        if lim.tie_max:
            line += f"   TIE {format_range(lim.tie_min, lim.tie_max, digits)}"
        if lim.pair_max:
            line += f"   PAIRS {format_range(lim.pair_min, lim.pair_max, digits)}"
        lines.append(line)
    if screen.message:
        lines.append(f"*** {screen.message} ***")
    if screen.result is not None:
        r = screen.result
        winner = {wire.WireOutcome.BANKER: "BANKER WINS", wire.WireOutcome.PLAYER: "PLAYER WINS",
                  wire.WireOutcome.TIE: "TIE"}[r.outcome]
        player = " ".join(c.code for c in r.player_cards)
        banker = " ".join(c.code for c in r.banker_cards)
        lines.append(f"ROUND {r.round_no}: {winner}   PLAYER {player} = {r.player_total}   "
                     f"BANKER {banker} = {r.banker_total}")
    if screen.war_result is not None:
        w = screen.war_result
        dealer = w.dealer_card.code + (f" / war {w.dealer_war_card[0].code}" if w.dealer_war_card else "")
        lines.append(f"ROUND {w.round_no}: DEALER {dealer}")
        for box in w.boxes:
            war = f" / war {box.war_card[0].code}" if box.war_card else ""
            lines.append(f"  BOX {box.box} {box.card.code}{war} {_WAR_WORDS[box.outcome]}")
    if screen.roads is not None:
        lines.append(f"ROADS: {len(screen.roads.bead_plate)} rounds")
    if screen.expected:
        lines.append(f"> {screen.expected}")
    return lines
