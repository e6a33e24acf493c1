"""Guard tests of the serial codecs, fourth set (the ``drivers`` mutation guard, docs/testing.md),
through the frame decoder's output and statistics and the protocols' encode and decode.

Each test answers a mutant that survived the guard's tests (``/tmp/wave2-codec.txt``):

* an STX never occurs inside a frame: one that comes straight after a frame's STX starts a new
  frame, and the frame it cut short is reported as truncated, even when the bytes up to the next
  ETX would pass their CRC with that STX read as the sequence number; a frame arriving whole in
  one chunk is decoded exactly as one arriving byte by byte (``drivers/codec/framing.py``,
  ``_take_frame``);
* a protocol encodes only its own messages: a message of another device's protocol, even one
  whose type code this protocol uses for something else, or a message no protocol has, is
  refused, never sent under a wrong meaning (``drivers/codec/protocol.py``, ``Protocol.encode``);
* a sign error that is not about an LED row names no row: ``row`` is 0 when left out (rows are
  numbered from 1), on the wire as in the decoded message (``drivers/codec/sign.py``,
  ``SignError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from drivers.codec import display, get_protocol, sign
from drivers.codec.framing import ETX, STX, Frame, FrameDecoder, FrameError, FrameFault, crc16
from drivers.codec.protocol import Message

SIGN = get_protocol("sign")
DISPLAY = get_protocol("display")


def _unescaped_frame_of_seq_2(type_code: int, payload: bytes) -> bytes:
    """STX, then ``2 TYPE PAYLOAD CRC`` with the sequence number 2 left unescaped (a raw STX
    byte), then ETX: what a line gives when a frame is cut right after its STX and the next
    frame's body happens to carry a CRC computed over a leading 0x02."""
    body = bytes((2, type_code)) + payload
    crc = crc16(body)
    wire = bytes((STX,)) + body + bytes((crc >> 8, crc & 0xFF, ETX))
    assert not {0x02, 0x03, 0x10} & set(wire[2:-1])  # (nothing else that needs escaping)
    return wire


@pytest.mark.parametrize("chunk", [None, 1], ids=["whole", "byte-by-byte"])
def test_an_stx_right_after_a_frame_s_stx_starts_a_new_frame_and_the_cut_one_is_truncated(
        chunk: int | None) -> None:
    wire = _unescaped_frame_of_seq_2(0x40, b"ab")
    decoder = FrameDecoder()
    step = chunk or len(wire)
    out: list[Frame | FrameError] = []
    for start in range(0, len(wire), step):
        out += decoder.feed(wire[start:start + step])

    assert not any(isinstance(item, Frame) for item in out)  # never Frame(seq=2, type=0x40)
    assert [(item.fault, item.raw) for item in out if isinstance(item, FrameError)] == [
        (FrameFault.TRUNCATED, b"\x02"),  # the frame cut right after its STX
        (FrameFault.BAD_CRC, wire[1:]),  # the frame the second STX started: 0x40 'a' 'b' CRC
    ]
    assert decoder.stats.frames == 0
    assert decoder.stats.faults[FrameFault.TRUNCATED] == 1
    assert decoder.stats.faults[FrameFault.BAD_CRC] == 1
    assert decoder.stats.bad_frames == 2


@dataclass(frozen=True)
class _Stranger(Message):
    """A message no device protocol has."""

    TYPE: ClassVar[int] = 0x2E


def test_a_protocol_refuses_to_encode_a_message_that_is_not_its_own() -> None:
    banner = display.ShowMessage("Good luck")
    assert SIGN.by_type[banner.TYPE] is not display.ShowMessage  # 0x12 means EndHit to a sign
    assert DISPLAY.encode(banner, 1)  # the display's own message goes out
    with pytest.raises(TypeError, match="ShowMessage is not part of the sign protocol"):
        SIGN.encode(banner, 1)
    assert _Stranger.TYPE not in SIGN.by_type
    with pytest.raises(TypeError, match="is not part of the sign protocol"):
        SIGN.encode(_Stranger(), 1)


def test_a_sign_error_not_about_an_led_row_names_no_row() -> None:
    overheat = sign.SignError(sign.SignErrorCode.OVERHEAT)
    assert overheat.row == 0 and overheat == sign.SignError(sign.SignErrorCode.OVERHEAT, 0, "")
    # docs/protocols/sign.md: code u8, row u8, detail text (u8 length + UTF-8)
    [frame] = FrameDecoder().feed(SIGN.encode(overheat, 7))
    assert isinstance(frame, Frame)
    assert (frame.seq, frame.type, frame.payload) == (7, 0x40, bytes((2, 0, 0)))
    decoded = SIGN.decode(frame)
    assert isinstance(decoded, sign.SignError) and decoded.row == 0 and decoded == overheat
