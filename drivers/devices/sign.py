"""Driver of the progressive sign, the jackpot meter over a table (protocol: ``docs/protocols/sign.md``).

Every method blocks until the sign ACKs the command (retransmitting on timeout) and raises a
:class:`~drivers.devices.errors.DeviceError` if it cannot be shown. Amounts are integers in the
currency's minor units, checked here before any byte goes out: a float or a negative amount is
a caller's mistake, never something to round. Versions 1 and 2 of the protocol have the same
commands (version 2 only adds the version to the handshake), so nothing is translated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drivers.codec import sign as wire
from drivers.codec.protocol import Ack, Message
from drivers.devices.errors import DeviceProtocolError
from drivers.devices.repainted import RepaintedDriver
from station import events

__all__ = ["SignDriver", "SignInfo", "check_amount"]


def check_amount(amount: Any, digits: Any) -> None:
    """Raise unless ``amount`` is a whole number of minor units the wire can carry and
    ``digits`` the digits of a minor unit (0-4)."""
    for name, value in (("amount", amount), ("digits", digits)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"a sign's {name} is an integer (minor units), got {value!r}")
    if not 0 <= amount < 1 << 64:
        raise ValueError(f"amount {amount} is not a u64 of minor units")
    if not 0 <= digits <= wire.MAX_DIGITS:
        raise ValueError(f"{digits} minor digits: ISO 4217 minor units have 0 to {wire.MAX_DIGITS}")


@dataclass(frozen=True)
class SignInfo:
    """What the sign says of itself: brightness (percent), commands shown since it powered up,
    its error code (0 or a :class:`~drivers.codec.sign.SignErrorCode`) and its dark LED rows."""

    brightness: int
    commands_shown: int
    error: int
    failed_rows: tuple[int, ...]


class SignDriver(RepaintedDriver):
    """Emits DeviceFault for the sign's own errors (a dark LED row, heat, power) and for link
    loss; everything else is commands.

    Like the display board, a sign shows only what it was told since it last powered up, and
    misses what was sent while its link was down. :meth:`on_needs_repaint` names who repaints
    it (:class:`station.service.sign_picture.SignFeed`): called when the link comes up (first
    connection and every reconnection) and when the sign announces a Boot. It is called on a
    link thread and must only take note; the repaint's commands go from the caller's thread."""

    PROTOCOL = "sign"

    # -- commands -------------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        """Send one sign command as it is and wait for its ACK (the feed keeps the sign's
        picture as the messages themselves)."""
        answer = self.link.request(message)
        if not isinstance(answer, Ack):
            raise DeviceProtocolError(f"{message.WIRE_NAME} answered by {answer.WIRE_NAME}")

    def show_meter(self, title: str, amount: int, digits: int, currency: str) -> None:
        """The jackpot meter: ``amount`` minor units of ``currency``, ``digits`` placing the point."""
        check_amount(amount, digits)
        self.send(wire.ShowMeter(title, amount, digits, currency))

    def show_hit(self, title: str, amount: int, digits: int, currency: str, box: str) -> None:
        """A jackpot being paid to ``box``: flashing over the meter until :meth:`end_hit`."""
        check_amount(amount, digits)
        self.send(wire.ShowHit(title, amount, digits, currency, box))

    def end_hit(self) -> None:
        self.send(wire.EndHit())

    def show_message(self, text: str) -> None:
        """A line for players in place of the meter; ``""`` takes it down."""
        self.send(wire.SignShowMessage(text))

    def clear(self) -> None:
        self.send(wire.SignClear())

    def brightness(self, level: int) -> None:
        self.send(wire.SignSetBrightness(level))

    def status(self) -> SignInfo:
        a = self._expect(self.link.request(wire.SignGetStatus()), wire.SignStatus)
        return SignInfo(a.brightness, a.commands_shown, a.error, a.failed_rows)

    # -- events ---------------------------------------------------------------------------------

    def on_message(self, message: Message) -> None:
        match message:
            case wire.SignError(code=code, row=row, detail=detail):
                name = code.name.lower()
                where = f" (LED row {row})" if row else ""
                self.emit(events.DeviceFault(self.name, detail or f"sign error: {name}{where}", name))
            case _:
                super().on_message(message)
