"""Every registered protocol: message round trips and fuzzing of the stream codec."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec import StreamCodec, get_protocol, protocol_names
from drivers.codec.display import BEAD, BIG_ROAD, HAND, MARKS, PREDICTION
from drivers.codec.fields import (
    BOOL,
    CARD,
    U8,
    U16,
    U32,
    EnumU8,
    ListOf,
    PayloadError,
    Record,
    UInt,
    WireType,
    card_byte,
)
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import CodecError, Kind, Packet, Protocol, kind_of
from station.cards import FULL_DECK

from .strategies import any_message

PROTOCOLS = protocol_names()


def test_builtin_protocols_are_registered() -> None:
    assert {"shoe", "shuffler", "display", "buttonbox"} <= set(PROTOCOLS)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_type_codes_sit_in_the_range_of_their_kind(name: str) -> None:
    protocol = get_protocol(name)
    for code, cls in protocol.by_type.items():
        assert kind_of(code) is cls.kind()
        assert cls.kind() in Kind


@pytest.mark.parametrize("name", PROTOCOLS)
@given(data=st.data())
@settings(max_examples=40, deadline=None)
def test_every_message_round_trips(name: str, data: st.DataObject) -> None:
    protocol = get_protocol(name)
    messages = data.draw(st.lists(any_message(protocol), min_size=1, max_size=3))
    codec = StreamCodec(protocol)
    wire = b"".join(protocol.encode(m, i) for i, m in enumerate(messages))
    out = codec.feed(wire)
    assert [p.message for p in out if isinstance(p, Packet)] == messages
    assert [p.seq for p in out if isinstance(p, Packet)] == list(range(len(messages)))


@pytest.mark.parametrize("name", PROTOCOLS)
@given(type_code=st.integers(0, 255), payload=st.binary(max_size=80))
@settings(max_examples=200, deadline=None)
def test_random_payloads_give_a_payload_error_or_a_message(name: str, type_code: int, payload: bytes) -> None:
    protocol = get_protocol(name)
    cls = protocol.by_type.get(type_code)
    if cls is None:
        out = StreamCodec(protocol).feed(encode_frame(3, type_code, payload))
        assert isinstance(out[0], CodecError) and out[0].fault == "unknown_type"
        return
    try:
        message = cls.unpack(payload)
    except PayloadError:
        return
    if cls.EXTENSIBLE:  # read from the front; what a later version appended is not ours to keep
        assert payload.startswith(message.pack()) or payload == message.pack(1)
        return
    assert message.pack() == payload  # whatever decodes must re-encode to the same bytes


def _mutate(data: st.DataObject, wire: bytes) -> bytes:
    out = bytearray(wire)
    for _ in range(data.draw(st.integers(0, 4), label="mutations")):
        if not out:
            break
        i = data.draw(st.integers(0, len(out) - 1), label="at")
        action = data.draw(st.sampled_from(["flip", "drop", "insert"]), label="action")
        if action == "flip":
            out[i] ^= data.draw(st.integers(1, 255), label="mask")
        elif action == "drop":
            del out[i]
        else:
            out.insert(i, data.draw(st.integers(0, 255), label="byte"))
    return bytes(out)


@pytest.mark.parametrize("name", PROTOCOLS)
@given(data=st.data())
@settings(max_examples=40, deadline=None)
def test_mutated_streams_never_raise_and_resynchronise(name: str, data: st.DataObject) -> None:
    protocol: Protocol = get_protocol(name)
    messages = data.draw(st.lists(any_message(protocol), max_size=3), label="messages")
    wire = b"".join(protocol.encode(m, i) for i, m in enumerate(messages))
    damaged = _mutate(data, wire)
    sentinel = data.draw(any_message(protocol), label="sentinel")
    tail = protocol.encode(sentinel, 200)
    codec = StreamCodec(protocol)
    out = codec.feed(damaged + tail)
    packets = [p for p in out if isinstance(p, Packet)]
    for packet in packets:
        # a message only ever comes from an intact frame that is really in the input
        assert packet.raw in damaged + tail
        assert protocol.encode(packet.message, packet.seq) == packet.raw
    assert packets and packets[-1].message == sentinel and packets[-1].seq == 200


def _field_by_field(wire: WireType, buf: bytes, pos: int) -> tuple[object, int]:
    """The reference decoding: every list item and every record field on its own."""
    if isinstance(wire, ListOf):
        n, pos = wire.count.unpack(buf, pos)
        if n > wire.max_items:
            raise PayloadError("too many")
        items = []
        for _ in range(n):
            item, pos = _field_by_field(wire.item, buf, pos)
            items.append(item)
        return tuple(items), pos
    if isinstance(wire, Record):
        values = {}
        for name, field in wire.fields:
            values[name], pos = _field_by_field(field, buf, pos)
        return wire.cls(**values), pos
    return wire.unpack(buf, pos)


def _packed(wire: WireType, value: object) -> bytes:
    out = bytearray()
    wire.pack(value, out)
    return bytes(out)


_LISTS = [ListOf(BEAD), ListOf(BIG_ROAD), MARKS, HAND, ListOf(PREDICTION, count=U8), ListOf(U16), ListOf(U32, count=U8)]


def _raw_field(wire: WireType) -> st.SearchStrategy[bytes]:
    """The bytes of one item: nearly always good, now and then out of range."""
    if isinstance(wire, Record):
        return st.tuples(*[_raw_field(field) for _, field in wire.fields]).map(b"".join)
    if isinstance(wire, EnumU8):
        good = [member.value for member in wire.enum]
    elif wire is BOOL:
        good = [0, 1]
    elif wire is CARD:
        good = [card_byte(card) for card in FULL_DECK]
    else:
        assert isinstance(wire, UInt)
        return st.binary(min_size=wire.size, max_size=wire.size)
    return st.sampled_from(good * 40 + [0x00, 0x7F, 0xFF]).map(lambda v: bytes((v,)))


@pytest.mark.parametrize("wire", _LISTS, ids=lambda w: w.doc[:40])
@given(data=st.data(), extra=st.integers(-1, 2))
@settings(max_examples=150, deadline=None)
def test_lists_of_fixed_size_items_decode_as_item_by_item(wire: ListOf, data: st.DataObject, extra: int) -> None:
    """Lists of fixed-size items are read in one struct pass (and records reused); that must
    give what field-by-field decoding gives, or fail where it fails: bad items, a count that
    promises more items than there are bytes, trailing bytes."""
    items = data.draw(st.lists(_raw_field(wire.item), max_size=min(wire.max_items, 30)))
    body = b"".join(items)
    if extra < 0:
        body = body[:-1]  # the last item cut short
    buf = _packed(wire.count, len(items)) + body + bytes(max(extra, 0))
    try:
        expected = _field_by_field(wire, buf, 0)
    except PayloadError:
        with pytest.raises(PayloadError):
            wire.unpack(buf, 0)
        return
    assert wire.unpack(buf, 0) == expected


@pytest.mark.parametrize("wire", _LISTS, ids=lambda w: w.doc[:40])
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_lists_of_fixed_size_items_pack_back_to_their_bytes(wire: ListOf, data: st.DataObject) -> None:
    items = data.draw(st.lists(_raw_field(wire.item), max_size=min(wire.max_items, 30)))
    buf = _packed(wire.count, len(items)) + b"".join(items)
    try:
        decoded, end = _field_by_field(wire, buf, 0)
    except PayloadError:
        return
    assert end == len(buf)
    assert _packed(wire, decoded) == buf
