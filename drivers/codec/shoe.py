"""Wire messages of the card shoe reader (documented in ``docs/protocols/shoe.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, ClassVar

from drivers.codec.fields import BOOL, CARD, TEXT, U32, EnumU8
from drivers.codec.protocol import Message, Protocol
from station.cards import Card


class ReaderErrorCode(IntEnum):
    NONE = 0
    UNREADABLE_CARD = 1  # a card passed the reader but could not be recognised
    DOUBLE_FEED = 2  # two cards went past together
    SENSOR_FAULT = 3
    CARD_JAM = 4


# commands (host -> shoe)


@dataclass(frozen=True)
class ShoeGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


# responses (shoe -> host)


@dataclass(frozen=True)
class ShoeStatus(Message):
    TYPE: ClassVar[int] = 0x84
    lid_open: Annotated[bool, BOOL]
    cards_present: Annotated[bool, BOOL]
    cards_read: Annotated[int, U32]  # cards read since power-up
    error: Annotated[ReaderErrorCode, EnumU8(ReaderErrorCode)] = ReaderErrorCode.NONE


# events (shoe -> host, acknowledged)


@dataclass(frozen=True)
class CardRead(Message):
    TYPE: ClassVar[int] = 0x40
    card: Annotated[Card, CARD]


@dataclass(frozen=True)
class CutCardRead(Message):
    TYPE: ClassVar[int] = 0x41


@dataclass(frozen=True)
class ShoeEmptyNotice(Message):
    WIRE_NAME = "ShoeEmpty"
    TYPE: ClassVar[int] = 0x42


@dataclass(frozen=True)
class CardsPresentNotice(Message):
    WIRE_NAME = "CardsPresent"
    TYPE: ClassVar[int] = 0x43


@dataclass(frozen=True)
class LidOpenedNotice(Message):
    WIRE_NAME = "LidOpened"
    TYPE: ClassVar[int] = 0x44


@dataclass(frozen=True)
class LidClosedNotice(Message):
    WIRE_NAME = "LidClosed"
    TYPE: ClassVar[int] = 0x45


@dataclass(frozen=True)
class ReaderError(Message):
    TYPE: ClassVar[int] = 0x46
    code: Annotated[ReaderErrorCode, EnumU8(ReaderErrorCode)]
    detail: Annotated[str, TEXT] = ""


SHOE = Protocol(
    "shoe",
    (ShoeGetStatus, ShoeStatus, CardRead, CutCardRead, ShoeEmptyNotice, CardsPresentNotice, LidOpenedNotice,
     LidClosedNotice, ReaderError),
    summary="card shoe reader: cards and cut card as they leave the shoe, lid and presence sensors",
    current=2,  # the changelog is in docs/protocols/shoe.md
)
