"""Driver of the card shoe reader (protocol: ``docs/protocols/shoe.md``)."""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from drivers.codec import shoe as wire
from drivers.codec.protocol import Boot, Message
from drivers.devices.base import SerialDeviceDriver
from station import events

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class ShoeState:
    lid_open: bool
    cards_present: bool
    cards_read: int
    error: str  # "" when the reader reports no error


class ShoeDriver(SerialDeviceDriver):
    """Emits CardDrawn, CutCardSeen, ShoeEmpty, CardsPresent, LidOpened, LidClosed, DeviceFault."""

    PROTOCOL = "shoe"

    def status(self) -> ShoeState:
        answer = self._expect(self.link.request(wire.ShoeGetStatus()), wire.ShoeStatus)
        error = "" if answer.error is wire.ReaderErrorCode.NONE else answer.error.name.lower()
        return ShoeState(answer.lid_open, answer.cards_present, answer.cards_read, error)

    def on_message(self, message: Message) -> None:
        name = self.name
        match message:
            case wire.CardRead(card=card):
                self.emit(events.CardDrawn(name, card))
            case wire.CutCardRead():
                self.emit(events.CutCardSeen(name))
            case wire.ShoeEmptyNotice():
                self.emit(events.ShoeEmpty(name))
            case wire.CardsPresentNotice():
                self.emit(events.CardsPresent(name))
            case wire.LidOpenedNotice():
                self.emit(events.LidOpened(name))
            case wire.LidClosedNotice():
                self.emit(events.LidClosed(name))
            case wire.ReaderError(code=code, detail=detail):
                # An unreadable card or a double feed must stop the round: never guess a card.
                self.emit(
                    events.DeviceFault(name, detail or f"card reader error: {code.name.lower()}", code.name.lower())
                )
            case Boot():
                pass  # logged by the link; the shoe's sensors report their state as events
            case _:
                super().on_message(message)
