"""Hypothesis strategies derived from the message declarations themselves."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from drivers.codec.fields import BOOL, CARD, TEXT, EnumU8, ListOf, Record, UInt, WireType
from drivers.codec.protocol import Message, Protocol
from station.cards import FULL_DECK


def for_wire(wire: WireType) -> st.SearchStrategy[Any]:
    if isinstance(wire, UInt):
        return st.integers(0, (1 << (8 * wire.size)) - 1)
    if wire is BOOL:
        return st.booleans()
    if wire is TEXT:
        return st.text(max_size=12)
    if wire is CARD:
        return st.sampled_from(FULL_DECK)
    if isinstance(wire, EnumU8):
        return st.sampled_from(list(wire.enum))
    if isinstance(wire, ListOf):
        return st.lists(for_wire(wire.item), max_size=min(3, wire.max_items)).map(tuple)
    if isinstance(wire, Record):
        return st.builds(wire.cls, **{name: for_wire(w) for name, w in wire.fields})
    raise AssertionError(f"no strategy for {wire!r}")


def for_message(cls: type[Message]) -> st.SearchStrategy[Message]:
    return st.builds(cls, **{name: for_wire(w) for name, w in cls.layout()})


def any_message(protocol: Protocol) -> st.SearchStrategy[Message]:
    return st.one_of([for_message(cls) for cls in sorted(protocol.by_type.values(), key=lambda c: c.TYPE)])
