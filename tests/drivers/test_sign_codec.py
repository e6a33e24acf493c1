"""The progressive sign's codec: every message round-trips in both versions, its 64-bit amounts
keep every bit, and no damage or random input ever decodes to a message that was not sent.

(``test_codecs.py`` runs its checks over every registered protocol, the sign's included; these
are the sign's own: its amounts, and damage a CRC-16 is certain to catch.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec import StreamCodec, get_protocol
from drivers.codec import sign as wire
from drivers.codec.fields import PayloadError
from drivers.codec.framing import crc16, encode_frame, encode_frame_with_crc
from drivers.codec.protocol import CodecError, IdentityReport, Message, Packet

from .strategies import any_message, for_message

SIGN = get_protocol("sign")
SIGN_MESSAGES = sorted({cls for cls in SIGN.by_type.values() if cls.__module__ == wire.__name__},
                       key=lambda cls: cls.TYPE)
AMOUNTS = st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 2**32 - 1, 2**32, 2**63, 2**64 - 1]))


def test_the_sign_speaks_versions_1_and_2_and_is_registered() -> None:
    assert SIGN.versions == range(1, 3)
    assert {cls.WIRE_NAME for cls in SIGN_MESSAGES} == {
        "GetStatus", "ShowMeter", "ShowHit", "EndHit", "ShowMessage", "Clear", "SetBrightness", "SignStatus",
        "SignError",
    }
    assert SIGN.messages(1) == SIGN.messages(2)  # only the handshake's layout differs


@pytest.mark.parametrize("version", [1, 2])
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_every_sign_message_round_trips_in_both_versions(version: int, data: st.DataObject) -> None:
    messages = data.draw(st.lists(any_message(SIGN), min_size=1, max_size=4))
    stream = b"".join(SIGN.encode(m, seq, version) for seq, m in enumerate(messages, 1))
    out = StreamCodec(SIGN, version).feed(stream)
    assert all(isinstance(p, Packet) for p in out)
    decoded = [p.message for p in out if isinstance(p, Packet)]
    if version == 1:  # a version-1 identity has no version: it reads as 1
        messages = [IdentityReport(m.model, m.serial, m.firmware) if isinstance(m, IdentityReport) else m
                    for m in messages]
    assert decoded == messages


@given(amount=AMOUNTS, digits=st.integers(0, 4), seq=st.integers(1, 255))
@settings(max_examples=200, deadline=None)
def test_amounts_keep_all_64_bits(amount: int, digits: int, seq: int) -> None:
    for message in (wire.ShowMeter("Jackpot", amount, digits, "VND"),
                    wire.ShowHit("Jackpot", amount, digits, "VND", "7")):
        (packet,) = StreamCodec(SIGN).feed(SIGN.encode(message, seq))
        assert isinstance(packet, Packet) and packet.message == message
        assert message.pack()[8:16] == amount.to_bytes(8, "big")  # after the 7-byte title's length and text


def test_an_amount_past_64_bits_or_not_an_integer_is_never_encoded() -> None:
    with pytest.raises(ValueError, match="does not fit in u64"):
        SIGN.encode(wire.ShowMeter("Jackpot", 2**64, 0, ""), 1)
    with pytest.raises(TypeError):
        SIGN.encode(wire.ShowMeter("Jackpot", 10.5, 2, "EUR"), 1)  # type: ignore[arg-type]  # the wrong type tested
    with pytest.raises(PayloadError, match="u64"):  # seven bytes where eight are needed
        wire.ShowMeter.unpack(b"\x07Jackpot" + bytes(7))


@pytest.mark.parametrize("cls", SIGN_MESSAGES, ids=lambda cls: cls.WIRE_NAME)
@given(payload=st.binary(max_size=60))
@settings(max_examples=150, deadline=None)
def test_random_payloads_are_refused_or_decode_to_exactly_themselves(cls: type[Message], payload: bytes) -> None:
    """Never a guess: a payload is a bad payload, or the message whose bytes it is."""
    out = StreamCodec(SIGN).feed(encode_frame(9, cls.TYPE, payload))
    assert len(out) == 1
    if isinstance(out[0], CodecError):
        assert out[0].fault == "bad_payload"
        return
    assert out[0].message.pack() == payload and type(out[0].message) is cls


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_any_burst_of_up_to_16_bits_is_caught_never_a_wrong_message(data: st.DataObject) -> None:
    """CRC-16/CCITT catches every error burst of 16 bits or less: a damaged sign frame is
    dropped, and the next good one still arrives."""
    message = data.draw(st.one_of([for_message(cls) for cls in SIGN_MESSAGES]))
    seq = data.draw(st.integers(1, 255))
    body = bytes((seq, message.TYPE)) + message.pack()
    at = data.draw(st.integers(0, len(body) - 1))
    mask = data.draw(st.integers(1, 0xFFFF)).to_bytes(2, "big")
    damaged = bytearray(body)
    for i, m in enumerate(mask[: len(body) - at]):
        damaged[at + i] ^= m
    if damaged == body:
        return  # the burst fell past the end: nothing damaged
    frame = encode_frame_with_crc(damaged[0], damaged[1], bytes(damaged[2:]), crc16(body))
    good = SIGN.encode(wire.SignClear(), 77)
    out = StreamCodec(SIGN).feed(frame + good)
    packets = [p for p in out if isinstance(p, Packet)]
    assert [(p.seq, p.message) for p in packets] == [(77, wire.SignClear())]


@given(noise=st.binary(max_size=300))
@settings(max_examples=200, deadline=None)
def test_random_bytes_never_raise_and_decode_only_intact_frames(noise: bytes) -> None:
    out = StreamCodec(SIGN).feed(noise + SIGN.encode(wire.ShowMeter("Jackpot", 2**40, 0, "VND"), 200))
    packets = [p for p in out if isinstance(p, Packet)]
    for packet in packets[:-1]:  # what the noise held: only ever a whole frame it really contains
        assert packet.raw in noise and SIGN.encode(packet.message, packet.seq) == packet.raw
    assert packets and packets[-1].seq == 200 and packets[-1].message == wire.ShowMeter("Jackpot", 2**40, 0, "VND")
