"""Simulated progressive sign: keeps what it shows and every command it executed, in order.

``face`` holds the sign's three parts (the meter, a hit being paid, a line for players) and
:meth:`SignSimulator.showing` the one line players read now, so a test checks both the
sequence (``commands()``) and the end state. Like a real sign it forgets its picture when it
restarts (:meth:`reboot`, :meth:`power_cycle`: blank, then ``Boot``). Its faults are the base
simulator's (corrupt or lost answers, noise, lost ACKs, :meth:`mute`, :meth:`unplug`) and its
own: :meth:`fail_row` (an LED row goes dark: a ``SignError`` event, a failing self-test and a
status naming the row) and :meth:`lose_commands` (frames from the host lost on the line).

``station simulate sign`` prints what it is sent; its ``screen`` command prints what it shows,
for a technician to watch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.codec import sign as wire
from drivers.codec.protocol import Ack, Kind, Message, Nak, NakCode, Packet, SelfTestResult
from drivers.simulators.base import SimulatedDevice

#: Digits of the largest u64 (18,446,744,073,709,551,615): a sign this wide shows every amount.
WIDEST = 20


@dataclass
class SignFace:
    """What the sign shows, part by part (each replaced whole by its command)."""

    meter: wire.ShowMeter | None = None
    hit: wire.ShowHit | None = None
    message: str = ""
    brightness: int = 80


def _money(amount: int, digits: int, currency: str) -> str:
    from station.money import format_money

    return format_money(amount, digits, currency)


def face_lines(face: SignFace) -> list[str]:
    """Every part the sign holds, as players would read it (the first one is on top)."""
    lines: list[str] = []
    if face.hit is not None:
        hit = face.hit
        lines.append(f"*** {hit.title}: BOX {hit.box} WINS {_money(hit.amount, hit.digits, hit.currency)} ***")
    if face.message:
        lines.append(face.message)
    if face.meter is not None:
        meter = face.meter
        lines.append(f"{meter.title} {_money(meter.amount, meter.digits, meter.currency)}".strip())
    return lines


class SignSimulator(SimulatedDevice):
    """A sign with ``rows`` LED rows and room for ``positions`` digits of an amount; a wider
    amount is refused (``out_of_range``), never shown cut."""

    PROTOCOL = "sign"
    MODEL = "SIM-SIGN-1"

    def __init__(self, *, rows: int = 8, positions: int = WIDEST, **options: Any) -> None:
        if not 1 <= rows <= wire.MAX_ROWS:
            raise ValueError(f"rows must be 1 to {wire.MAX_ROWS}, not {rows}")
        if not 1 <= positions <= WIDEST:
            raise ValueError(f"positions must be 1 to {WIDEST}, not {positions}")
        super().__init__(**options)
        self.rows = rows
        self.positions = positions
        self.face = SignFace()
        self.shown = 0  # commands shown since power-up (GetStatus)
        self.boots = 0  # restarts (reboot, power_cycle) since the simulator started
        self.failed_rows: set[int] = set()  # dark LED rows: hardware, so they stay dark across restarts
        self.error = 0
        self.lost_commands = 0
        self._lose_commands = 0
        #: Called with each command once it is on the sign (``station simulate sign`` prints it).
        self.on_shown: Callable[[Message], None] | None = None

    # -- what a test reads --------------------------------------------------------------------

    def commands(self, cls: type[Message] | None = None) -> list[Message]:
        """Commands executed, in order, of one type (every sign command if None: no pings,
        identifies, self-tests or status requests)."""
        with self._lock:
            items = list(self.received)
        if cls is None:
            return [m for m in items if 0x10 <= m.TYPE <= 0x3F]
        return [m for m in items if isinstance(m, cls)]

    def showing(self) -> str:
        """The one line players read now: a hit being paid, else the message, else the meter
        ("" when blank)."""
        with self._lock:
            lines = face_lines(self.face)
        return lines[0] if lines else ""

    # -- faults ---------------------------------------------------------------------------------

    def fail_row(self, row: int = 3, detail: str = "") -> None:
        """LED row ``row`` goes dark: the sign reports it at once (``SignError``), and its
        self-test and status say so until :meth:`repair_rows`."""
        if not 1 <= row <= self.rows:
            raise ValueError(f"the sign has LED rows 1 to {self.rows}, not {row}")
        with self._lock:
            self.failed_rows.add(row)
            self.error = int(wire.SignErrorCode.LED_ROW)
        self.send_event(wire.SignError(wire.SignErrorCode.LED_ROW, row, detail or f"LED row {row} does not light"))

    def repair_rows(self) -> None:
        with self._lock:
            self.failed_rows.clear()
            self.error = 0

    def lose_commands(self, count: int = 1) -> None:
        """The next ``count`` frames from the host are lost on the line: the sign never sees
        them (the host retransmits after its answer timeout)."""
        with self._lock:
            self._lose_commands += count

    # -- the device -----------------------------------------------------------------------------

    def _answer(self, packet: Packet) -> None:
        with self._lock:
            lost = self._lose_commands > 0 and packet.message.kind() is Kind.COMMAND
            if lost:
                self._lose_commands -= 1
                self.lost_commands += 1
        if not lost:
            super()._answer(packet)

    def _refusal(self, amount: int, digits: int) -> Nak | None:
        if digits > wire.MAX_DIGITS:
            return Nak(NakCode.OUT_OF_RANGE, f"{digits} minor digits; at most {wire.MAX_DIGITS}")
        needed = max(len(str(amount)), digits + 1)
        if needed > self.positions:
            return Nak(NakCode.OUT_OF_RANGE, f"{needed} digits; the sign has {self.positions}")
        return None

    def handle_command(self, message: Message) -> Message:
        with self._lock:
            face = self.face
            match message:
                case wire.SignGetStatus():
                    return wire.SignStatus(face.brightness, self.shown, self.error, tuple(sorted(self.failed_rows)))
                case wire.SignSetBrightness(level=level):
                    if level > 100:
                        return Nak(NakCode.OUT_OF_RANGE, f"brightness {level} is above 100")
                    face.brightness = level
                case wire.ShowMeter(amount=amount, digits=digits) | wire.ShowHit(amount=amount, digits=digits):
                    refused = self._refusal(amount, digits)
                    if refused is not None:
                        return refused
                    if isinstance(message, wire.ShowMeter):
                        face.meter = message
                    else:
                        face.hit = message
                case wire.EndHit():
                    face.hit = None
                case wire.SignShowMessage(text=text):
                    face.message = text
                case wire.SignClear():
                    self.face = SignFace(brightness=face.brightness)
                case _:
                    return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)
            self.shown += 1
        if self.on_shown is not None:
            self.on_shown(message)
        return Ack()

    def on_power_cycle(self) -> None:
        """A sign that restarts is blank: its picture and counter are gone (dark rows stay dark)."""
        with self._lock:
            self.face = SignFace()
            self.shown = 0
            self.error = int(wire.SignErrorCode.LED_ROW) if self.failed_rows else 0
            self.boots += 1

    def self_test_result(self) -> SelfTestResult:
        with self._lock:
            rows = sorted(self.failed_rows)
        if rows:
            listed = ", ".join(map(str, rows))
            return SelfTestResult(False, int(wire.SignErrorCode.LED_ROW),
                                  f"LED row{'s' if len(rows) > 1 else ''} {listed} {'do' if len(rows) > 1 else 'does'} "
                                  "not light")
        return SelfTestResult(True, 0, f"all {self.rows} LED rows and every digit lit")
