"""Framing: CRC, escaping, resynchronisation, and fuzzing of the frame decoder."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec.framing import (
    DLE,
    ETX,
    MAX_BODY,
    STX,
    Frame,
    FrameDecoder,
    FrameError,
    FrameFault,
    crc16,
    encode_frame,
    encode_frame_with_crc,
)

frames = st.builds(
    Frame,
    seq=st.integers(0, 255),
    type=st.integers(0, 255),
    payload=st.binary(max_size=64),
)


def good(items: list[Frame | FrameError]) -> list[Frame]:
    return [i for i in items if isinstance(i, Frame)]


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the standard check value of CRC-16/CCITT-FALSE


def test_frame_layout_and_escaping() -> None:
    raw = encode_frame(0x02, 0x10, b"\x03")
    assert raw[0] == STX and raw[-1] == ETX
    body = raw[1:-1]
    assert STX not in body and ETX not in body
    assert body[:6] == bytes((DLE, 0x22, DLE, 0x30, DLE, 0x23))


@given(st.lists(frames, max_size=8), st.data())
def test_roundtrip_in_any_chunking(sent: list[Frame], data: st.DataObject) -> None:
    wire = b"".join(encode_frame(f.seq, f.type, f.payload) for f in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    decoder = FrameDecoder()
    out: list[Frame | FrameError] = []
    start = 0
    for cut in [*cuts, len(wire)]:
        out += decoder.feed(wire[start:cut])
        start = cut
    assert good(out) == sent
    assert all(f.raw == encode_frame(f.seq, f.type, f.payload) for f in good(out))
    assert decoder.stats.bad_frames == 0


@given(st.binary(max_size=300), frames)
def test_resynchronises_on_the_next_good_frame_after_any_garbage(garbage: bytes, frame: Frame) -> None:
    decoder = FrameDecoder()
    out = decoder.feed(garbage + encode_frame(frame.seq, frame.type, frame.payload))
    assert good(out)[-1:] == [frame]


@given(st.binary(max_size=2000))
@settings(max_examples=200, deadline=None)
def test_random_bytes_never_raise_and_only_crc_checked_frames_come_out(noise: bytes) -> None:
    decoder = FrameDecoder()
    for item in decoder.feed(noise):
        if isinstance(item, Frame):
            # every frame that comes out is exactly a well-formed encoding present in the input
            assert item.raw == encode_frame(item.seq, item.type, item.payload)
            assert item.raw in noise


@given(frames, st.data())
def test_any_single_corrupted_byte_yields_no_frame(frame: Frame, data: st.DataObject) -> None:
    wire = bytearray(encode_frame(frame.seq, frame.type, frame.payload))
    index = data.draw(st.integers(1, len(wire) - 2), label="index")
    # replace with any byte except the frame delimiters (which would cut the frame instead)
    new = data.draw(st.integers(0, 255).filter(lambda b: b != wire[index] and b not in (STX, ETX)), label="byte")
    wire[index] = new
    decoder = FrameDecoder()
    out = decoder.feed(bytes(wire))
    # CRC-16 catches every burst up to 16 bits; a changed escape is caught as a bad escape.
    # The only frames that may come out are ones a changed DLE/escape byte could not have made.
    assert good(out) == []
    assert decoder.stats.bad_frames == 1


@given(frames, st.integers(0, 0xFFFF))
def test_wrong_crc_is_counted_and_the_next_frame_still_decodes(frame: Frame, crc: int) -> None:
    body = bytes((frame.seq, frame.type)) + frame.payload
    if crc == crc16(body):
        crc ^= 1
    decoder = FrameDecoder()
    out = decoder.feed(encode_frame_with_crc(frame.seq, frame.type, frame.payload, crc) + encode_frame(1, 2, b"ok"))
    assert good(out) == [Frame(1, 2, b"ok")]
    assert decoder.stats.faults[FrameFault.BAD_CRC] == 1


def test_truncated_frame_is_reported_and_the_following_frame_survives() -> None:
    whole = encode_frame(7, 0x40, b"\x91")
    decoder = FrameDecoder()
    out = decoder.feed(whole[:4] + whole)
    assert [type(i) for i in out] == [FrameError, Frame]
    assert isinstance(out[0], FrameError) and out[0].fault is FrameFault.TRUNCATED


def test_noise_between_frames_is_counted() -> None:
    decoder = FrameDecoder()
    out = decoder.feed(b"abc" + encode_frame(1, 0x40, b"\x10"))
    assert isinstance(out[0], FrameError) and out[0].fault is FrameFault.NOISE and out[0].raw == b"abc"
    assert decoder.stats.noise_bytes == 3


def test_oversized_frame_is_dropped_without_unbounded_memory() -> None:
    decoder = FrameDecoder(max_body=64)
    out = decoder.feed(bytes((STX,)) + b"\x41" * 100_000 + bytes((ETX,)) + encode_frame(1, 2))
    assert isinstance(out[0], FrameError) and out[0].fault is FrameFault.TOO_LONG
    assert len(out[0].raw) <= 2 * 64 + 3
    assert good(out) == [Frame(1, 2)]
    noise = decoder.feed(b"\x41" * 100_000)
    assert noise and all(len(e.raw) <= 2 * 64 + 3 for e in noise if isinstance(e, FrameError))
    assert decoder.stats.noise_bytes == 100_000 - len(decoder._raw)
    assert len(encode_frame(0, 0, b"\x00" * (MAX_BODY - 4))) > MAX_BODY


def test_the_longest_frame_the_protocol_allows_and_one_byte_more() -> None:
    """A body of MAX_BODY (two bytes of header, the payload, two of CRC) is the longest frame:
    it is sent and read back; one byte more is refused when sent, and a frame over a reader's
    limit is dropped as too long (never taken for a message)."""
    longest = b"\x07" * (MAX_BODY - 4)
    assert good(FrameDecoder().feed(encode_frame(3, 0x40, longest))) == [Frame(3, 0x40, longest)]
    try:
        encode_frame(3, 0x40, longest + b"\x07")
    except ValueError as exc:
        assert f"exceeds the {MAX_BODY - 4}-byte limit" in str(exc)
    else:
        raise AssertionError("a payload over the limit was framed")
    # The decoder's limit, at its edge: a reader that allows one byte less drops the same frame.
    out = FrameDecoder(max_body=MAX_BODY - 1).feed(encode_frame(3, 0x40, longest) + encode_frame(4, 2))
    assert isinstance(out[0], FrameError) and out[0].fault is FrameFault.TOO_LONG and good(out) == [Frame(4, 2)]


def test_too_short_frame() -> None:
    out = FrameDecoder().feed(bytes((STX, 1, 5, ETX)))
    assert isinstance(out[0], FrameError) and out[0].fault is FrameFault.TOO_SHORT


class _ByteByByte(FrameDecoder):
    """The reference: every byte through the per-byte path, none in runs."""

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        for byte in data:
            self._feed_byte(byte, out)
        return out


_line_bytes = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([bytes((STX,)), bytes((ETX,)), bytes((DLE,)), bytes((DLE, STX ^ 0x20)), bytes((DLE, 0x41))]),
    st.builds(encode_frame, st.integers(0, 255), st.integers(0, 255),
              st.binary(max_size=MAX_BODY + 8)),
)


@settings(max_examples=300)
@given(parts=st.lists(_line_bytes, max_size=12), cuts=st.lists(st.integers(0, 2000), max_size=6),
       max_body=st.sampled_from([MAX_BODY, 8]))
def test_decoding_runs_at_once_equals_decoding_byte_by_byte(parts: list[bytes], cuts: list[int], max_body: int) -> None:
    """The fast paths (a whole frame at once, plain body bytes taken as a run) decode exactly
    as byte by byte does: the same frames and errors with the same raw bytes, the same counts,
    whatever the chunking and however long."""
    line = b"".join(parts)
    fast, reference = FrameDecoder(max_body), _ByteByByte(max_body)
    got: list[Frame | FrameError] = []
    start = 0
    for cut in sorted({min(c, len(line)) for c in cuts} | {len(line)}):
        got += fast.feed(line[start:cut])
        start = cut
    expected = reference.feed(line)
    assert got == expected
    assert [item.raw for item in got] == [item.raw for item in expected]  # Frame.raw is not compared by ==
    assert fast.flush_noise() == reference.flush_noise()
    assert fast.stats == reference.stats
