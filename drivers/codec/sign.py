"""Wire messages of the progressive sign, the jackpot meter over a table (``docs/protocols/sign.md``).

Every amount on this wire is a whole number of the currency's minor units in a ``u64``, the one
64-bit field of the station's protocols. A progressive meter is the one amount that has no upper
bound the table sets: it grows with every wager until someone hits it. A ``u32`` stops at
4,294,967,295 minor units, which is 42.9 million in a two-digit currency but in a currency with
small units (Vietnamese dong, Indonesian rupiah, Korean won) a meter of a few thousand dollars'
worth. A meter that cannot be written must never wrap round to a small number on the sign, so
the field has room for any meter a table can reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, ClassVar

from drivers.codec.fields import TEXT, U8, U32, EnumU8, ListOf, UInt
from drivers.codec.protocol import Message, Protocol

#: ISO 4217 minor units have 0 to 4 digits; a sign refuses more (``out_of_range``).
MAX_DIGITS = 4
#: LED rows a sign can report as failed, at most, in one status.
MAX_ROWS = 64


@dataclass(frozen=True)
class _UInt64(UInt):
    """``u64``: an unsigned 64-bit integer, big-endian, for amounts only (see the module's docstring).

    The shared :class:`~drivers.codec.fields.UInt` knows sizes 1, 2 and 4; this one is the same
    type with eight bytes, so every check (whole number, in range) and every tool that knows
    ``UInt`` (the documents' tables, the fuzzing strategies) treats it alike."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc", "u64")
        object.__setattr__(self, "code", "Q")
        object.__setattr__(self, "_fmt", ">Q")


U64 = _UInt64(8)


class SignErrorCode(IntEnum):
    """What failed on the sign (``SignError`` event, ``SelfTestResult.code``, ``SignStatus.error``)."""

    LED_ROW = 1  # a row of LEDs (or a segment of it) does not light
    OVERHEAT = 2
    POWER = 3


# commands (each answered by ACK, or NAK; GetStatus by SignStatus)


@dataclass(frozen=True)
class SignGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


@dataclass(frozen=True)
class ShowMeter(Message):
    """The jackpot meter: the pool's title, its amount in minor units, the digits of the minor
    unit (2: 123456 is shown 1,234.56) and the currency's code. Replaces the meter."""

    TYPE: ClassVar[int] = 0x10
    title: Annotated[str, TEXT]
    amount: Annotated[int, U64]
    digits: Annotated[int, U8] = 0
    currency: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class ShowHit(Message):
    """A jackpot being paid: the pool's title, the amount won (minor units, with its digits and
    currency) and the box that hit it, shown flashing over the meter until ``EndHit``."""

    TYPE: ClassVar[int] = 0x11
    title: Annotated[str, TEXT]
    amount: Annotated[int, U64]
    digits: Annotated[int, U8] = 0
    currency: Annotated[str, TEXT] = ""
    box: Annotated[str, TEXT] = ""


@dataclass(frozen=True)
class EndHit(Message):
    """The hit is paid: the sign stops flashing it and shows what is under it again."""

    TYPE: ClassVar[int] = 0x12


@dataclass(frozen=True)
class SignShowMessage(Message):
    """A line for players ("Closed", "Meter offline") shown in place of the meter; the empty
    text takes it down."""

    WIRE_NAME = "ShowMessage"
    TYPE: ClassVar[int] = 0x13
    text: Annotated[str, TEXT]


@dataclass(frozen=True)
class SignClear(Message):
    """Blank the sign: meter, hit and message (brightness is kept)."""

    WIRE_NAME = "Clear"
    TYPE: ClassVar[int] = 0x14


@dataclass(frozen=True)
class SignSetBrightness(Message):
    WIRE_NAME = "SetBrightness"
    TYPE: ClassVar[int] = 0x15
    level: Annotated[int, U8]  # percent 0-100; above 100 is NAKed OUT_OF_RANGE


# responses


@dataclass(frozen=True)
class SignStatus(Message):
    TYPE: ClassVar[int] = 0x84
    brightness: Annotated[int, U8]
    commands_shown: Annotated[int, U32]  # since power-up
    error: Annotated[int, U8] = 0  # 0 or a SignErrorCode
    failed_rows: Annotated[tuple[int, ...], ListOf(U8, count=U8, max_items=MAX_ROWS)] = ()  # numbered from 1


# events


@dataclass(frozen=True)
class SignError(Message):
    """Something on the sign failed; ``row`` is the LED row of a ``led_row`` fault (from 1; 0 otherwise)."""

    TYPE: ClassVar[int] = 0x40
    code: Annotated[SignErrorCode, EnumU8(SignErrorCode)]
    row: Annotated[int, U8] = 0
    detail: Annotated[str, TEXT] = ""


SIGN = Protocol(
    "sign",
    (SignGetStatus, ShowMeter, ShowHit, EndHit, SignShowMessage, SignClear, SignSetBrightness, SignStatus, SignError),
    summary="progressive sign: the jackpot meter, a hit being paid, a line for players",
    current=2,  # the changelog is in docs/protocols/sign.md
)
