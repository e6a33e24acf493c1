"""Driver of the shuffler, batch or continuous (protocol: ``docs/protocols/shuffler.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from drivers.codec import shuffler as wire
from drivers.codec.protocol import Ack, Boot, Message
from drivers.devices.base import SerialDeviceDriver
from drivers.devices.errors import DeviceProtocolError
from station import events


def station_state(state: wire.WireShufflerState) -> events.ShufflerState:
    return events.ShufflerState[state.name]


@dataclass(frozen=True)
class ShufflerInfo:
    state: events.ShufflerState
    progress: int
    mode: str  # "batch" or "continuous"
    set_colour: str
    cards_held: int
    detail: str


class ShufflerDriver(SerialDeviceDriver):
    """Emits ShufflerStatus, CardsReturned, DeckCheck (from deck_check), DeviceBooted, DeviceFault."""

    PROTOCOL = "shuffler"

    def status(self) -> ShufflerInfo:
        a = self._expect(self.link.request(wire.ShufflerGetStatus()), wire.StatusReport)
        return ShufflerInfo(
            station_state(a.state), a.progress, a.mode.name.lower(), a.set_colour, a.cards_held, a.detail
        )

    def start_shuffle(self) -> None:
        """Start shuffling the set inside; progress and completion arrive as ShufflerStatus events.

        Raises DeviceRefused (busy, door open, jam, not allowed in continuous mode).
        """
        answer = self.link.request(wire.StartShuffle())
        if not isinstance(answer, Ack):
            raise DeviceProtocolError(f"StartShuffle answered by {answer.WIRE_NAME}")

    def deck_check(self) -> events.DeckCheck:
        """Count the set; the result is returned and also emitted as a DeckCheck event."""
        a = self._expect(
            self.link.request(wire.RequestDeckCheck(), timeout=max(self.link.settings.reply_timeout, 2.0)),
            wire.DeckCheckReport,
        )
        event = events.DeckCheck(
            self.name,
            decks=a.decks,
            counts=tuple((c.card.code, c.count) for c in a.counts),
            missing=tuple(card.code for card in a.missing),
            extra=tuple(card.code for card in a.extra),
        )
        self.emit(event)
        return event

    def on_message(self, message: Message) -> None:
        match message:
            case wire.StatusChanged(state=state, progress=progress, set_colour=colour, detail=detail):
                self.emit(events.ShufflerStatus(self.name, station_state(state), progress, colour, detail))
            case wire.CardsReturnedNotice(count=count):
                self.emit(events.CardsReturned(self.name, count))
            case Boot(reason=reason):
                # The shuffler started afresh: the station asks where it stands (docs/protocols/shuffler.md).
                self.emit(events.DeviceBooted(self.name, reason))
            case _:
                super().on_message(message)
