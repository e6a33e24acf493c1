"""Guard tests of the serial framing, third set (the ``drivers`` mutation guard, docs/testing.md),
through ``encode_frame`` and the frame decoder's output and statistics.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the protocol's limit on a frame is the documented one, in bytes, not a name for it
  (docs/protocols/README.md, "Frame layout": the unescaped ``SEQ..CRC`` body holds at most 4096
  bytes, so a payload at most 4092): a sender builds a frame at the limit and refuses one byte
  more; a receiver accepts a frame at the limit and drops one byte over it as too long, counted
  and never delivered, in whatever chunks it arrives (``drivers/codec/framing.py``,
  ``MAX_BODY``).
"""

from __future__ import annotations

import pytest

from drivers.codec.framing import ETX, STX, Frame, FrameDecoder, FrameError, FrameFault, crc16, encode_frame

#: docs/protocols/README.md: "Largest unescaped SEQ..CRC body: 4096 bytes"; the payload column
#: says 0..4092 bytes (SEQ, TYPE and two CRC bytes take the other four).
LIMIT_BODY = 4096
LIMIT_PAYLOAD = 4092


def _wire(seq: int, type_code: int, payload: bytes) -> bytes:
    """A frame as the protocol page builds it, with its right CRC, whatever its length: a device
    that does not keep the limit sends this (``encode_frame`` refuses to)."""
    body = bytes((seq, type_code)) + payload
    crc = crc16(body)
    body += bytes((crc >> 8, crc & 0xFF))
    escaped = bytearray()
    for byte in body:
        escaped += bytes((0x10, byte ^ 0x20)) if byte in (0x02, 0x03, 0x10) else bytes((byte,))
    return bytes((STX,)) + bytes(escaped) + bytes((ETX,))


def test_a_sender_builds_a_frame_at_the_documented_limit_and_refuses_one_byte_more() -> None:
    longest = encode_frame(5, 0x40, b"\x07" * LIMIT_PAYLOAD)
    assert longest == _wire(5, 0x40, b"\x07" * LIMIT_PAYLOAD)
    with pytest.raises(ValueError, match=f"exceeds the {LIMIT_PAYLOAD}-byte limit"):
        encode_frame(5, 0x40, b"\x07" * (LIMIT_PAYLOAD + 1))


@pytest.mark.parametrize("chunk", [None, 1000], ids=["whole", "in-chunks"])
def test_a_receiver_accepts_a_frame_at_the_limit_and_drops_one_byte_over_it(chunk: int | None) -> None:
    at_limit = _wire(6, 0x40, b"\x07" * LIMIT_PAYLOAD)
    over = _wire(7, 0x40, b"\x07" * (LIMIT_PAYLOAD + 1))
    after = encode_frame(8, 0x40, b"next")
    stream = at_limit + over + after
    decoder = FrameDecoder()
    step = chunk or len(stream)
    out: list[Frame | FrameError] = []
    for start in range(0, len(stream), step):
        out += decoder.feed(stream[start:start + step])
    assert len(at_limit) - 2 >= LIMIT_BODY  # (at least: the CRC bytes may need escaping)
    assert [type(item).__name__ for item in out] == ["Frame", "FrameError", "Frame"]
    first, dropped, following = out
    assert isinstance(first, Frame) and (first.seq, len(first.payload)) == (6, LIMIT_PAYLOAD)
    assert isinstance(dropped, FrameError) and dropped.fault is FrameFault.TOO_LONG
    assert isinstance(following, Frame) and (following.seq, following.payload) == (8, b"next")
    assert decoder.stats.frames == 2
    assert decoder.stats.faults[FrameFault.TOO_LONG] == 1 and decoder.stats.bad_frames == 1
