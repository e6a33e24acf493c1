"""Guard tests of the codecs, round 27 (the ``drivers`` mutation guard, docs/testing.md), through
``encode_frame``/``FrameDecoder``, a protocol's ``encode`` and the stream codec.

Each test answers a mutant that survived the guard's tests:

* a baccarat hand on the display holds at most three cards (docs/protocols/display.md: "2 or 3
  each"): a ``ShowResult`` with a fourth card is refused when encoding, and one received with a
  fourth card is a bad payload, never a result (``drivers/codec/display.py``, ``HAND``);
* a whole frame in one chunk whose CRC's low byte is wrong is counted as a bad CRC and never
  delivered, even when the wrong CRC agrees with the right one in its high byte and the right
  CRC's low byte equals its high byte and the frame's type code (``drivers/codec/framing.py``,
  ``FrameDecoder._take_frame``);
* a field a later protocol version added must have a default (a message from an older device
  lacks it): a message declaring a version-2 field with no default is refused when a protocol is
  built with it (``drivers/codec/protocol.py``, ``Message.layout``);
* a protocol that names no versions speaks version 1 alone, so the common messages, whose
  ``IdentityReport`` gained a field in version 2, do not fit it and it is refused
  (``drivers/codec/protocol.py``, ``Protocol.__init__``);
* a good frame of a type the protocol does not know is one payload error, counted once, in
  ``payload_errors`` and ``errors`` alike (``drivers/codec/protocol.py``, ``StreamCodec.feed``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import pytest

from drivers.codec import get_protocol
from drivers.codec.display import ShowResult, WireOutcome
from drivers.codec.fields import CARD, U8
from drivers.codec.framing import (
    Frame,
    FrameDecoder,
    FrameError,
    FrameFault,
    crc16,
    encode_frame,
    encode_frame_with_crc,
)
from drivers.codec.protocol import COMMON_MESSAGES, CodecError, Message, Packet, Ping, Protocol, Since, StreamCodec
from station.cards import parse_card

DISPLAY = get_protocol("display")
SHOE = get_protocol("shoe")
_CURRENT = max(cls.newest_part() for cls in COMMON_MESSAGES)


# --- the display's hands ------------------------------------------------------------------------


def _result(player: tuple[str, ...]) -> ShowResult:
    return ShowResult(7, WireOutcome.PLAYER, 9, 8, tuple(parse_card(c) for c in player),
                      tuple(parse_card(c) for c in ("KH", "8S")))


def test_a_hand_of_four_cards_is_refused_when_encoding_a_result() -> None:
    assert DISPLAY.encode(_result(("2S", "3S", "4S")), seq=1)  # three cards are a hand
    with pytest.raises(ValueError, match="list of 4 items is longer than 3"):
        DISPLAY.encode(_result(("2S", "3S", "4S", "5S")), seq=1)


def test_a_result_received_with_a_four_card_hand_is_a_bad_payload() -> None:
    three = _result(("2S", "3S", "4S"))
    payload = bytearray(three.pack())
    # The wire is round_no u32, outcome u8, two totals u8, then the player's u8 count and cards:
    # raise the count to 4 and put a fourth card (a copy of the third) after the third.
    count_at = 4 + 1 + 2
    assert payload[count_at] == 3
    packed_card = bytearray()
    CARD.pack(parse_card("4S"), packed_card)
    card = len(packed_card)
    end_of_hand = count_at + 1 + 3 * card
    payload[count_at] = 4
    payload[end_of_hand:end_of_hand] = payload[end_of_hand - card:end_of_hand]
    codec = StreamCodec(DISPLAY)
    out = codec.feed(encode_frame(5, ShowResult.TYPE, bytes(payload)))
    assert [type(item) for item in out] == [CodecError]
    error = out[0]
    assert isinstance(error, CodecError)
    assert error.fault == "bad_payload"
    assert "longer than 3" in error.detail
    assert codec.payload_errors == 1


# --- framing ------------------------------------------------------------------------------------


# A body whose right CRC is 0x1010: its high byte, its low byte and the type code are all 0x10.
_SEQ, _TYPE, _PAYLOAD = 1, 0x10, bytes((107, 52))


def test_a_whole_frame_with_a_wrong_crc_low_byte_is_counted_and_never_delivered() -> None:
    assert crc16(bytes((_SEQ, _TYPE)) + _PAYLOAD) == 0x1010  # the case this test is about
    decoder = FrameDecoder()
    bad = encode_frame_with_crc(_SEQ, _TYPE, _PAYLOAD, 0x1000)  # the high byte right, the low one wrong
    good = encode_frame(_SEQ, _TYPE, _PAYLOAD)
    out = decoder.feed(bad + good)  # both whole in one chunk
    assert out == [FrameError(FrameFault.BAD_CRC, bad), Frame(_SEQ, _TYPE, _PAYLOAD)]
    assert decoder.stats.faults[FrameFault.BAD_CRC] == 1
    assert decoder.stats.frames == 1


# --- a protocol's versions ----------------------------------------------------------------------


@dataclass(frozen=True)
class _LateWithoutDefault(Message):
    """A message of the test's own whose version-2 field has no default, by mistake."""

    TYPE: ClassVar[int] = 0x86
    first: Annotated[int, U8]
    added: Annotated[int, U8, Since(2)]


@dataclass(frozen=True)
class _LateWithDefault(Message):
    """The same message with a default for its version-2 field, as it should be."""

    TYPE: ClassVar[int] = 0x86
    first: Annotated[int, U8]
    added: Annotated[int, U8, Since(2)] = 0


def test_a_field_added_in_version_2_without_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^_LateWithoutDefault\.added was added in version 2 and needs a default$"):
        Protocol("test", [_LateWithoutDefault], current=_CURRENT)
    assert Protocol("test", [_LateWithDefault], current=_CURRENT).by_type[0x86] is _LateWithDefault


def test_a_protocol_naming_no_versions_speaks_version_1_and_cannot_hold_version_2_parts() -> None:
    assert _CURRENT == 2  # IdentityReport.protocol_version came in version 2
    with pytest.raises(TypeError, match=r"^test: IdentityReport has parts of version 2, after 1$"):
        Protocol("test", [])
    assert Protocol("test", [], current=2).versions == range(1, 3)


# --- the stream codec's counts ------------------------------------------------------------------


def test_a_good_frame_of_an_unknown_type_is_one_payload_error() -> None:
    codec = StreamCodec(SHOE)
    unknown = 0x7E
    assert unknown not in SHOE.by_type
    out = codec.feed(encode_frame(3, unknown, b"\x01") + SHOE.encode(Ping(), seq=4))
    assert [type(item) for item in out] == [CodecError, Packet]
    error = out[0]
    assert isinstance(error, CodecError)
    assert (error.fault, error.seq, error.type_code) == ("unknown_type", 3, unknown)
    assert codec.payload_errors == 1
    assert codec.errors == 1
    codec.feed(encode_frame(5, unknown))
    assert codec.payload_errors == 2
    assert codec.errors == 2
