"""Guard tests of the serial codecs, round 15 (the ``drivers`` mutation guard, docs/testing.md),
through the frame encoder and decoder, the wire types' pack and unpack, and the building of a
protocol from its messages.

Each test answers a mutant that survived the guard's tests:

* a frame whose CRC is that of its body without the last payload byte (a byte slipped in just
  before the CRC) is a bad frame: counted as a bad CRC and never delivered, even when it arrives
  whole in one chunk, where the decoder takes good frames at once
  (``drivers/codec/framing.py``, ``FrameDecoder._take_frame``);
* a sequence number is one byte, 0-255: 255 is encoded, 256 is refused by the encoder with an
  error naming the sequence number (``encode_frame_with_crc``);
* a list may hold items of varying size (texts): it is read item by item, each text with its own
  length, and packs back to the same bytes (``drivers/codec/fields.py``, ``ListOf.unpack``);
* a field added in a later protocol version needs a default (what an older device's frame,
  which stops before it, means): a message declaring one without a default is refused when its
  protocol is built (``drivers/codec/protocol.py``, ``Message.layout``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import pytest

from drivers.codec.fields import TEXT, U8, ListOf
from drivers.codec.framing import (
    Frame,
    FrameDecoder,
    FrameError,
    FrameFault,
    crc16,
    encode_frame,
    encode_frame_with_crc,
)
from drivers.codec.protocol import Message, Protocol, Since

# --- framing: the CRC covers the whole body ----------------------------------------------------


def test_a_frame_whose_crc_leaves_out_its_last_payload_byte_is_a_bad_crc_even_arriving_whole() -> None:
    """A byte slipped in before the CRC: the CRC is right for SEQ TYPE and the payload but its
    last byte. The CRC covers every byte up to the CRC, so the frame is dropped and counted as a
    bad CRC; the good frame after it in the same chunk is still delivered."""
    seq, type_code, payload = 7, 0x40, b"\x91\x55"
    short_crc = crc16(bytes((seq, type_code)) + payload[:-1])
    assert short_crc != crc16(bytes((seq, type_code)) + payload)  # a wrong CRC for the whole body
    bad = encode_frame_with_crc(seq, type_code, payload, short_crc)
    good = encode_frame(8, 0x40, b"\x91")

    decoder = FrameDecoder()
    out = decoder.feed(bad + good)

    assert out == [FrameError(FrameFault.BAD_CRC, bad), Frame(seq=8, type=0x40, payload=b"\x91")]
    assert decoder.stats.faults[FrameFault.BAD_CRC] == 1
    assert decoder.stats.frames == 1


# --- framing: the sequence number is one byte --------------------------------------------------


def test_sequence_number_255_is_encoded_and_256_is_refused_naming_the_sequence_number() -> None:
    """SEQ is one byte on the wire (0-255): the last one is encoded, the next is no frame."""
    frame = encode_frame(255, 0x01)
    assert FrameDecoder().feed(frame) == [Frame(seq=255, type=0x01)]
    with pytest.raises(ValueError, match=r"^sequence number 256 is outside 0-255$"):
        encode_frame(256, 0x01)
    with pytest.raises(ValueError, match=r"^sequence number 256 is outside 0-255$"):
        encode_frame_with_crc(256, 0x01, b"", 0x1234)


# --- fields: a list of items of varying size ---------------------------------------------------


def test_a_list_of_texts_is_read_item_by_item_and_packs_back_to_its_bytes() -> None:
    """Texts have no one size: each is its length byte and that many bytes, and the list reads
    as many as its count says, ending where the last one ends."""
    names = ListOf(TEXT, count=U8, max_items=4)
    wire = b"\x03" + b"\x02hi" + b"\x00" + b"\x05table" + b"\xee"  # a byte after the list

    items, end = names.unpack(wire, 0)

    assert items == ("hi", "", "table")
    assert end == len(wire) - 1
    out = bytearray()
    names.pack(items, out)
    assert bytes(out) == wire[:-1]


# --- protocol: a field of a later version needs a default --------------------------------------


@dataclass(frozen=True)
class _LaterFieldWithoutDefault(Message):
    """A version-2 field with no default: a version-1 frame, which stops before it, would leave
    it with no value."""

    TYPE: ClassVar[int] = 0x2C
    WIRE_NAME: ClassVar[str] = "LaterWithoutDefault"
    first: Annotated[int, U8]
    added: Annotated[int, U8, Since(2)]


def test_a_field_added_in_a_later_version_without_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^LaterWithoutDefault\.added was added in version 2 and needs a "
                                        r"default$"):
        Protocol("vendor", (_LaterFieldWithoutDefault,), current=2)
