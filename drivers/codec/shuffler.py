"""Wire messages of the shuffler, batch and continuous (``docs/protocols/shuffler.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, ClassVar

from drivers.codec.fields import CARD, TEXT, U8, U16, EnumU8, ListOf, Record
from drivers.codec.protocol import Message, Protocol
from station.cards import Card


class WireShufflerState(IntEnum):
    """Same states as :class:`station.events.ShufflerState`, numbered for the wire."""

    IDLE = 0
    SHUFFLING = 1
    DONE = 2
    READY = 3
    JAM = 4
    DOOR_OPEN = 5
    ERROR = 6


class ShufflerMode(IntEnum):
    BATCH = 0
    CONTINUOUS = 1


@dataclass(frozen=True)
class CardCount:
    card: Card
    count: int


CARD_COUNT = Record(CardCount, (("card", CARD), ("count", U8)))

# commands


@dataclass(frozen=True)
class ShufflerGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


@dataclass(frozen=True)
class StartShuffle(Message):
    """Batch: shuffle the set now inside. Answered by ACK when started (or NAK)."""

    TYPE: ClassVar[int] = 0x05


@dataclass(frozen=True)
class RequestDeckCheck(Message):
    """Count the set by rank and suit; answered by DeckCheckReport."""

    TYPE: ClassVar[int] = 0x06


# responses


@dataclass(frozen=True)
class StatusReport(Message):
    TYPE: ClassVar[int] = 0x84
    state: Annotated[WireShufflerState, EnumU8(WireShufflerState)]
    progress: Annotated[int, U8]  # percent 0-100
    mode: Annotated[ShufflerMode, EnumU8(ShufflerMode)]
    set_colour: Annotated[str, TEXT]
    cards_held: Annotated[int, U16]
    detail: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class DeckCheckReport(Message):
    TYPE: ClassVar[int] = 0x86
    decks: Annotated[int, U8]  # decks the set should hold
    counts: Annotated[tuple[CardCount, ...], ListOf(CARD_COUNT)]  # every card seen, with its count
    missing: Annotated[tuple[Card, ...], ListOf(CARD)]  # one entry per missing copy
    extra: Annotated[tuple[Card, ...], ListOf(CARD)]  # one entry per surplus or foreign copy


# events


@dataclass(frozen=True)
class StatusChanged(Message):
    TYPE: ClassVar[int] = 0x40
    state: Annotated[WireShufflerState, EnumU8(WireShufflerState)]
    progress: Annotated[int, U8]
    set_colour: Annotated[str, TEXT]
    detail: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class CardsReturnedNotice(Message):
    """Continuous mode: the dealer put ``count`` cards back after a round."""

    WIRE_NAME = "CardsReturned"

    TYPE: ClassVar[int] = 0x41
    count: Annotated[int, U16]


SHUFFLER = Protocol(
    "shuffler",
    (ShufflerGetStatus, StartShuffle, RequestDeckCheck, StatusReport, DeckCheckReport, StatusChanged,
     CardsReturnedNotice),
    summary="batch or continuous shuffler: shuffle, progress, deck check, jams and door",
    current=2,  # the changelog is in docs/protocols/shuffler.md
)
