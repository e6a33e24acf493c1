"""Wire types for message payloads, declared once and used to pack, unpack and document.

A message is a frozen dataclass whose fields are annotated with a wire type, e.g.
``card: Annotated[Card, CARD]``. The same declaration drives encoding, decoding (with
strict length and range checks) and the field tables in ``docs/protocols/``. All integers
are unsigned and big-endian; there are no floats on any wire (money is whole units).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from station.cards import Card, Rank, Suit


class PayloadError(ValueError):
    """A frame whose CRC was good but whose payload does not fit its message layout."""


class WireType:
    """How one field is laid out; subclasses implement pack/unpack and describe themselves."""

    doc: str = ""

    def pack(self, value: Any, out: bytearray) -> None:
        raise NotImplementedError

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        raise NotImplementedError

    def show(self, value: Any) -> str:
        """Compact text for logs, the diagnostics monitor and documented examples."""
        return repr(value)


def _need(buf: bytes, pos: int, n: int, what: str) -> None:
    if pos + n > len(buf):
        raise PayloadError(f"payload ends inside {what} (needs {n} byte(s) at offset {pos})")


@dataclass(frozen=True)
class UInt(WireType):
    size: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc", f"u{self.size * 8}")
        object.__setattr__(self, "_fmt", {1: ">B", 2: ">H", 4: ">I"}[self.size])

    def pack(self, value: Any, out: bytearray) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"expected a whole number, got {value!r}")
        if not 0 <= value < 1 << (8 * self.size):
            raise ValueError(f"{value} does not fit in {self.doc}")
        out += struct.pack(self._fmt, value)  # type: ignore[attr-defined]

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, self.size, self.doc)
        return struct.unpack_from(self._fmt, buf, pos)[0], pos + self.size  # type: ignore[attr-defined]

    def show(self, value: Any) -> str:
        return str(value)


U8 = UInt(1)
U16 = UInt(2)
U32 = UInt(4)


class _Bool(WireType):
    doc = "bool (u8 0/1)"

    def pack(self, value: Any, out: bytearray) -> None:
        out.append(1 if value else 0)

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, "bool")
        if buf[pos] not in (0, 1):
            raise PayloadError(f"bool byte must be 0 or 1, got {buf[pos]:#04x}")
        return buf[pos] == 1, pos + 1

    def show(self, value: Any) -> str:
        return "1" if value else "0"


BOOL = _Bool()


class _Text(WireType):
    doc = "text (u8 length + UTF-8)"

    def pack(self, value: Any, out: bytearray) -> None:
        data = str(value).encode("utf-8")
        if len(data) > 255:
            raise ValueError(f"text of {len(data)} bytes is longer than 255")
        out.append(len(data))
        out += data

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, "text length")
        n = buf[pos]
        _need(buf, pos + 1, n, "text")
        try:
            return buf[pos + 1 : pos + 1 + n].decode("utf-8"), pos + 1 + n
        except UnicodeDecodeError:
            raise PayloadError("text is not valid UTF-8") from None

    def show(self, value: Any) -> str:
        return repr(value)


TEXT = _Text()

_RANK_CODES = {rank: i + 1 for i, rank in enumerate(Rank)}  # A=1, 2..9, T=10, J=11, Q=12, K=13
_SUIT_CODES = {suit: i for i, suit in enumerate(Suit)}  # S=0, H=1, D=2, C=3
_RANKS = {v: k for k, v in _RANK_CODES.items()}
_SUITS = {v: k for k, v in _SUIT_CODES.items()}


class _CardType(WireType):
    doc = "card (u8 = 16·rank + suit)"

    def pack(self, value: Any, out: bytearray) -> None:
        if not isinstance(value, Card):
            raise TypeError(f"expected a Card, got {value!r}")
        out.append(_RANK_CODES[value.rank] << 4 | _SUIT_CODES[value.suit])

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, "card")
        byte = buf[pos]
        rank, suit = _RANKS.get(byte >> 4), _SUITS.get(byte & 0x0F)
        if rank is None or suit is None:
            raise PayloadError(f"{byte:#04x} is not a card")
        return Card(rank, suit), pos + 1

    def show(self, value: Any) -> str:
        return value.code


CARD = _CardType()


def card_byte(card: Card) -> int:
    """The wire byte of ``card`` (for documentation and tests)."""
    return _RANK_CODES[card.rank] << 4 | _SUIT_CODES[card.suit]


@dataclass(frozen=True)
class EnumU8(WireType):
    """An ``IntEnum`` sent as one byte; unknown values are payload errors, not guesses."""

    enum: type[IntEnum]

    def __post_init__(self) -> None:
        names = ", ".join(f"{m.value}={m.name.lower()}" for m in self.enum)
        object.__setattr__(self, "doc", f"u8 enum ({names})")

    def pack(self, value: Any, out: bytearray) -> None:
        out.append(self.enum(value).value)

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, self.enum.__name__)
        try:
            return self.enum(buf[pos]), pos + 1
        except ValueError:
            raise PayloadError(f"{buf[pos]} is not a valid {self.enum.__name__}") from None

    def show(self, value: Any) -> str:
        return self.enum(value).name.lower()


@dataclass(frozen=True)
class ListOf(WireType):
    """A count (u16 by default) followed by that many items."""

    item: WireType
    count: UInt = U16
    max_items: int = 1024

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc", f"list ({self.count.doc} count + items: {self.item.doc})")

    def pack(self, value: Any, out: bytearray) -> None:
        items = tuple(value)
        if len(items) > self.max_items:
            raise ValueError(f"list of {len(items)} items is longer than {self.max_items}")
        self.count.pack(len(items), out)
        for item in items:
            self.item.pack(item, out)

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        n, pos = self.count.unpack(buf, pos)
        if n > self.max_items:
            raise PayloadError(f"list of {n} items is longer than {self.max_items}")
        items = []
        for _ in range(n):
            item, pos = self.item.unpack(buf, pos)
            items.append(item)
        return tuple(items), pos

    def show(self, value: Any) -> str:
        return "[" + " ".join(self.item.show(v) for v in value) + "]"


@dataclass(frozen=True)
class Record(WireType):
    """A nested fixed sequence of fields, decoded into ``cls`` (a frozen dataclass)."""

    cls: type
    fields: tuple[tuple[str, WireType], ...]

    def __post_init__(self) -> None:
        inner = ", ".join(f"{name}: {wt.doc}" for name, wt in self.fields)
        object.__setattr__(self, "doc", f"{self.cls.__name__} {{{inner}}}")

    def pack(self, value: Any, out: bytearray) -> None:
        for name, wt in self.fields:
            wt.pack(getattr(value, name), out)

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        values = {}
        for name, wt in self.fields:
            values[name], pos = wt.unpack(buf, pos)
        return self.cls(**values), pos

    def show(self, value: Any) -> str:
        return "(" + ",".join(wt.show(getattr(value, name)) for name, wt in self.fields) + ")"
