"""Every registered protocol: message round trips and fuzzing of the stream codec."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec import StreamCodec, get_protocol, protocol_names
from drivers.codec.fields import PayloadError
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import CodecError, Kind, Packet, Protocol, kind_of

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
