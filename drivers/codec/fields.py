"""Wire types for message payloads, declared once and used to pack, unpack and document.

A message is a frozen dataclass whose fields are annotated with a wire type, e.g.
``card: Annotated[Card, CARD]``. The same declaration drives encoding, decoding (with
strict length and range checks) and the field tables in ``docs/protocols/``. All integers
are unsigned and big-endian; there are no floats on any wire (money is whole units).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from station.cards import Card, Rank, Suit


class PayloadError(ValueError):
    """A frame whose CRC was good but whose payload does not fit its message layout."""


class WireType:
    """How one field is laid out; subclasses implement pack/unpack and describe themselves.

    A field of one fixed size also has a ``code`` (its :mod:`struct` format character) with
    ``to_raw``/``from_raw`` (the checked conversion to and from that number). Records and
    lists made only of such fields use them to go through :mod:`struct` in one call instead
    of field by field: a whole road of cells on the display board is hundreds of fields.
    """

    doc: str = ""
    code: str | None = None

    def to_raw(self, value: Any) -> int:
        raise NotImplementedError

    def from_raw(self, raw: int) -> Any:
        raise NotImplementedError

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
    _fmt: str = field(init=False, repr=False, compare=False)  # set once, in __post_init__

    def __post_init__(self) -> None:
        code = {1: "B", 2: "H", 4: "I"}[self.size]
        object.__setattr__(self, "doc", f"u{self.size * 8}")
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "_fmt", ">" + code)

    def to_raw(self, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"expected a whole number, got {value!r}")
        if not 0 <= value < 1 << (8 * self.size):
            raise ValueError(f"{value} does not fit in {self.doc}")
        return value

    def from_raw(self, raw: int) -> Any:
        return raw

    def pack(self, value: Any, out: bytearray) -> None:
        out += struct.pack(self._fmt, self.to_raw(value))

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, self.size, self.doc)
        return struct.unpack_from(self._fmt, buf, pos)[0], pos + self.size

    def show(self, value: Any) -> str:
        return str(value)


U8 = UInt(1)
U16 = UInt(2)
U32 = UInt(4)


class _Bool(WireType):
    doc = "bool (u8 0/1)"
    code = "B"

    def to_raw(self, value: Any) -> int:
        return 1 if value else 0

    def from_raw(self, raw: int) -> Any:
        if raw not in (0, 1):
            raise PayloadError(f"bool byte must be 0 or 1, got {raw:#04x}")
        return raw == 1

    def pack(self, value: Any, out: bytearray) -> None:
        out.append(self.to_raw(value))

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, "bool")
        return self.from_raw(buf[pos]), pos + 1

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
    code = "B"

    def to_raw(self, value: Any) -> int:
        if not isinstance(value, Card):
            raise TypeError(f"expected a Card, got {value!r}")
        return _RANK_CODES[value.rank] << 4 | _SUIT_CODES[value.suit]

    def from_raw(self, raw: int) -> Any:
        rank, suit = _RANKS.get(raw >> 4), _SUITS.get(raw & 0x0F)
        if rank is None or suit is None:
            raise PayloadError(f"{raw:#04x} is not a card")
        return Card(rank, suit)

    def pack(self, value: Any, out: bytearray) -> None:
        out.append(self.to_raw(value))

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, "card")
        return self.from_raw(buf[pos]), pos + 1

    def show(self, value: Any) -> str:
        return str(value.code)


CARD = _CardType()


def card_byte(card: Card) -> int:
    """The wire byte of ``card`` (for documentation and tests)."""
    return _RANK_CODES[card.rank] << 4 | _SUIT_CODES[card.suit]


@dataclass(frozen=True)
class EnumU8(WireType):
    """An ``IntEnum`` sent as one byte; unknown values are payload errors, not guesses."""

    enum: type[IntEnum]
    _members: dict[int, IntEnum] = field(init=False, repr=False, compare=False)  # set once, in __post_init__

    def __post_init__(self) -> None:
        names = ", ".join(f"{m.value}={m.name.lower()}" for m in self.enum)
        object.__setattr__(self, "doc", f"u8 enum ({names})")
        object.__setattr__(self, "code", "B")
        object.__setattr__(self, "_members", {m.value: m for m in self.enum})

    def to_raw(self, value: Any) -> int:
        if isinstance(value, self.enum):
            return value  # an IntEnum member is its number
        return self.enum(value).value

    def from_raw(self, raw: int) -> Any:
        member = self._members.get(raw)
        if member is None:
            raise PayloadError(f"{raw} is not a valid {self.enum.__name__}")
        return member

    def pack(self, value: Any, out: bytearray) -> None:
        out.append(self.to_raw(value))

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        _need(buf, pos, 1, self.enum.__name__)
        return self.from_raw(buf[pos]), pos + 1

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
        size = _fixed_size(self.item)
        if size is not None and pos + n * size <= len(buf):
            try:
                return _unpack_many(self.item, buf[pos : pos + n * size]), pos + n * size
            except PayloadError:
                pass  # item by item below, which says which item is wrong and how
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
    # Both set once, in __post_init__.
    layout: struct.Struct | None = field(init=False, repr=False, compare=False)
    _decoded: dict[tuple[int, ...], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inner = ", ".join(f"{name}: {wt.doc}" for name, wt in self.fields)
        object.__setattr__(self, "doc", f"{self.cls.__name__} {{{inner}}}")
        codes = [wt.code for _, wt in self.fields if wt.code]
        layout = struct.Struct(">" + "".join(codes)) if len(codes) == len(self.fields) else None
        object.__setattr__(self, "layout", layout)
        # Decoded records by their raw numbers. The records are frozen values, so one object
        # can stand for every equal cell; a road repeats a few dozen kinds of cell.
        object.__setattr__(self, "_decoded", {})

    def pack(self, value: Any, out: bytearray) -> None:
        if self.layout is not None:
            out += self.layout.pack(*[wt.to_raw(getattr(value, name)) for name, wt in self.fields])
            return
        for name, wt in self.fields:
            wt.pack(getattr(value, name), out)

    def unpack(self, buf: bytes, pos: int) -> tuple[Any, int]:
        if self.layout is not None:
            _need(buf, pos, self.layout.size, self.cls.__name__)
            return self.from_raws(self.layout.unpack_from(buf, pos)), pos + self.layout.size
        values = {}
        for name, wt in self.fields:
            values[name], pos = wt.unpack(buf, pos)
        return self.cls(**values), pos

    def from_raws(self, raws: tuple[int, ...]) -> Any:
        """The record from the raw numbers of its fields (a fixed-size record only)."""
        decoded = self._decoded
        record = decoded.get(raws)
        if record is None:
            record = self.cls(**{name: wt.from_raw(raw) for (name, wt), raw in zip(self.fields, raws, strict=True)})
            if len(decoded) >= _DECODED_LIMIT:
                decoded.clear()
            decoded[raws] = record
        return record

    def show(self, value: Any) -> str:
        return "(" + ",".join(wt.show(getattr(value, name)) for name, wt in self.fields) + ")"


#: Decoded records a fixed-size :class:`Record` keeps for reuse, at most.
_DECODED_LIMIT = 4096


def _fixed_size(wire: WireType) -> int | None:
    """Bytes of one item when ``wire`` has one fixed size that struct can read, else None."""
    if isinstance(wire, Record):
        return wire.layout.size if wire.layout is not None else None
    if wire.code is not None:
        return struct.calcsize(">" + wire.code)
    return None


def _unpack_many(wire: WireType, data: bytes) -> tuple[Any, ...]:
    """Items of fixed size ``_fixed_size(wire)`` filling ``data``, decoded in one pass."""
    if isinstance(wire, Record):
        assert wire.layout is not None, "only a fixed-size record has items to unpack in one pass"
        return tuple(map(wire.from_raws, wire.layout.iter_unpack(data)))
    if wire.code == "B":
        return tuple(map(wire.from_raw, data))
    assert wire.code is not None, "only a fixed-size wire type has items to unpack in one pass"
    return tuple(wire.from_raw(raw) for (raw,) in struct.iter_unpack(">" + wire.code, data))
