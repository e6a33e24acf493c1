"""Guard tests of the framing and the USB pedal codec, twelfth round (the ``drivers`` mutation
guard, docs/testing.md), through ``FrameDecoder.feed`` and the pedal report's public type.

Each test answers a mutant that survived the guard's tests:

* a frame ends at the first ETX after its STX (docs/protocols/README.md, frame layout): when a
  chunk holds a good frame, then bytes and a second ETX with no STX between, the frame is the
  good one and the bytes after its ETX are noise, even when the whole stretch up to the second
  ETX would pass its CRC as one longer frame (``framing.py``, the whole-frame fast path's search
  for the ETX);
* a DLE followed by any byte but ``22``, ``23`` or ``30`` makes the frame invalid (the same
  page, escaping): such a frame is reported as a bad escape and never delivered, even when its
  CRC, taken over the bytes as they came, is right (``framing.py``, ``_unescape``);
* a pedal report carries its hold time in one byte, saturating at 255 (docs/protocols/pedals.md,
  offset 6): a report of 255 is built, sent and read back as 255; one of 256 is refused when it
  is built, naming the field (``drivers/usb/codec.py``, ``PedalReport``).
"""

from __future__ import annotations

import pytest

from drivers.codec.framing import DLE, ETX, STX, Frame, FrameDecoder, FrameError, FrameFault, crc16, encode_frame
from drivers.usb.codec import PedalReport, decode_report, encode_report
from drivers.usb.protocol import PROTOCOL_VERSIONS, EventType

#: The bytes that are escaped inside a frame (docs/protocols/README.md): STX, ETX and DLE.
_SPECIAL = {0x02, 0x03, 0x10}


def _crc_bytes(body: bytes) -> bytes:
    crc = crc16(body)
    return bytes((crc >> 8, crc & 0xFF))


# -- the framing --------------------------------------------------------------------------------


def test_a_frame_ends_at_its_first_etx_even_when_a_later_etx_would_close_a_good_longer_frame() -> None:
    """``STX 01 40 CRC ETX`` is a good Ping-sized frame; after it come a few bytes and another
    ETX, with no STX. Read from the STX to the second ETX the stretch would be one frame with a
    right CRC (the tail is chosen so): it is not. The frame is the first one, and the bytes
    after its ETX are noise outside any frame."""
    first = encode_frame(1, 0x40)
    assert not set(first[1:-1]) & _SPECIAL  # nothing in it is escaped: its body is first[1:-1]
    for filler in range(0x41, 0x80):
        longer = first[1:-1] + bytes((ETX, filler))
        check = _crc_bytes(longer)
        if not set(check) & _SPECIAL:
            break
    else:  # pragma: no cover - one of 63 fillers gives a CRC with no special byte
        pytest.fail("no filler gives a CRC without STX, ETX or DLE")
    tail = bytes((filler,)) + check + bytes((ETX,))
    decoder = FrameDecoder()
    out = decoder.feed(first + tail)  # the whole stretch in one chunk, the STX first
    assert out == [Frame(seq=1, type=0x40, payload=b"")]
    assert decoder.flush_noise() == [FrameError(FrameFault.NOISE, tail)]
    assert decoder.stats.frames == 1
    assert decoder.stats.faults[FrameFault.NOISE] == 1


def test_a_frame_with_a_dle_before_an_unescapable_byte_is_a_bad_escape_even_with_a_right_crc() -> None:
    """``10 41`` is no escape (only ``10 22``, ``10 23`` and ``10 30`` are). A frame holding it,
    whose CRC is right over its bytes as they came, is reported as a bad escape and never
    delivered, read whole in one chunk as byte by byte."""
    for sequence in range(7, 60):
        body = bytes((sequence, 0x40, DLE, 0x41))
        if not set(_crc_bytes(body)) & _SPECIAL:
            break
    else:  # pragma: no cover - one of 53 sequence numbers gives a CRC with no special byte
        pytest.fail("no sequence number gives a CRC without STX, ETX or DLE")
    wire = bytes((STX,)) + body + _crc_bytes(body) + bytes((ETX,))
    whole = FrameDecoder()
    assert whole.feed(wire) == [FrameError(FrameFault.BAD_ESCAPE, wire)]
    assert whole.stats.frames == 0
    assert whole.stats.faults[FrameFault.BAD_ESCAPE] == 1
    bytewise = FrameDecoder()
    out = [item for byte in wire for item in bytewise.feed(bytes((byte,)))]
    assert out == [FrameError(FrameFault.BAD_ESCAPE, wire)]


# -- the USB pedal codec ------------------------------------------------------------------------


@pytest.mark.parametrize("version", sorted(PROTOCOL_VERSIONS))
def test_a_pedal_reports_hold_time_is_one_byte_up_to_255(version: int) -> None:
    """The hold time saturates at 255 hundredths: a report of 255 goes on the wire as the byte
    255 at offset 6 and is read back as 255, in every version of the pedal protocol."""
    report = PedalReport(sequence=9, event=EventType.UP, button=0, held=0, long=True, hold_cs=255)
    raw = encode_report(report, version)
    assert raw[6] == 255
    assert decode_report(raw, version) == report


def test_a_pedal_report_with_a_hold_time_past_one_byte_is_refused_when_built() -> None:
    """A hold time of 256 hundredths does not fit the report's byte: the report is refused as
    soon as it is built, with the field named, never left to fail (or wrap) when it is sent."""
    with pytest.raises(ValueError, match="hold_cs 256"):
        PedalReport(sequence=9, event=EventType.UP, button=0, held=0, long=True, hold_cs=256)
