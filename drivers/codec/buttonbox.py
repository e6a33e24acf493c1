"""Wire messages of the serial dealer button box (``docs/protocols/buttonbox.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from drivers.codec.fields import U8, U16, U32, ListOf
from drivers.codec.protocol import Message, Protocol

# commands


@dataclass(frozen=True)
class ButtonBoxGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


@dataclass(frozen=True)
class SetLongPress(Message):
    """How long a button must be held to count as a long press (100-10000 ms)."""

    TYPE: ClassVar[int] = 0x05
    millis: Annotated[int, U16]


# responses


@dataclass(frozen=True)
class BoxStatus(Message):
    TYPE: ClassVar[int] = 0x84
    buttons: Annotated[int, U8]  # number of buttons, numbered 1..buttons
    held: Annotated[tuple[int, ...], ListOf(U8, count=U8, max_items=16)]  # buttons down now
    long_press_ms: Annotated[int, U16]


# events


@dataclass(frozen=True)
class ButtonDown(Message):
    TYPE: ClassVar[int] = 0x40
    button: Annotated[int, U8]


@dataclass(frozen=True)
class ButtonUp(Message):
    TYPE: ClassVar[int] = 0x41
    button: Annotated[int, U8]
    held_ms: Annotated[int, U32]


@dataclass(frozen=True)
class LongPress(Message):
    """Sent once while the button is still down, when it has been held for the long-press time."""

    TYPE: ClassVar[int] = 0x42
    button: Annotated[int, U8]
    held_ms: Annotated[int, U32]


BUTTONBOX = Protocol(
    "buttonbox",
    (ButtonBoxGetStatus, SetLongPress, BoxStatus, ButtonDown, ButtonUp, LongPress),
    summary="serial dealer button box: button down/up and long press",
    current=2,  # the changelog is in docs/protocols/buttonbox.md
)
