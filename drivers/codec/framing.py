"""Byte framing shared by every serial device protocol of the station.

A frame on the wire is::

    STX  escaped( SEQ TYPE PAYLOAD... CRC_HI CRC_LO )  ETX

``STX`` (0x02) and ``ETX`` (0x03) never occur inside a frame: the bytes 0x02, 0x03 and
``DLE`` (0x10) in the body are sent as ``DLE, byte ^ 0x20``. Because of that a receiver
can always resynchronise on the next ``STX``, whatever garbage came before, and a frame
cut short by a line fault can never swallow the frame that follows it.

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection,
no final XOR) over the unescaped ``SEQ TYPE PAYLOAD`` bytes, sent big-endian. It detects
every error burst of up to 16 bits, so any single corrupted byte is always caught.

The decoder is pure (no I/O, no clock): feed it bytes in any chunking and it returns
the good frames and a :class:`FrameError` for every frame it had to discard.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field
from enum import StrEnum

STX = 0x02
ETX = 0x03
DLE = 0x10
ESCAPE_XOR = 0x20
_SPECIAL = frozenset((STX, ETX, DLE))
_NEXT_SPECIAL = re.compile(b"[" + re.escape(bytes((STX, ETX, DLE))) + b"]")
#: A DLE not followed by one of the three escaped bytes (or at the end): a bad escape.
_BAD_ESCAPE = re.compile(
    b"\\x10(?![" + re.escape(bytes((STX ^ ESCAPE_XOR, ETX ^ ESCAPE_XOR, DLE ^ ESCAPE_XOR))) + b"])"
)

#: Largest unescaped body (SEQ + TYPE + PAYLOAD + CRC) a receiver accepts.
MAX_BODY = 4096
_MIN_BODY = 4  # SEQ, TYPE and two CRC bytes


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; ``binascii.crc_hqx`` computes exactly this with init 0xFFFF."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    """One good frame: sequence number, message type code and raw payload."""

    seq: int
    type: int
    payload: bytes = b""
    raw: bytes = field(default=b"", compare=False, repr=False)  # wire bytes, for taps and logs


class FrameFault(StrEnum):
    """Why a frame was discarded; each has its own counter."""

    BAD_CRC = "bad_crc"
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    BAD_ESCAPE = "bad_escape"
    TRUNCATED = "truncated"  # a new STX arrived before the ETX
    NOISE = "noise"  # bytes outside any frame


@dataclass(frozen=True, slots=True)
class FrameError:
    """A discarded stretch of input, with the raw bytes kept for the diagnostics tap."""

    fault: FrameFault
    raw: bytes


def _escape(body: bytes) -> bytes:
    # DLE first, so that the DLEs put in for STX and ETX are not escaped again.
    return (body.replace(b"\x10", b"\x10\x30").replace(b"\x02", b"\x10\x22").replace(b"\x03", b"\x10\x23"))


def _unescape(escaped: bytes) -> bytes | None:
    """The body of a frame from its escaped bytes; None if an escape is bad.

    Once every DLE is known to start a good pair (the second byte of a pair is never a
    DLE), replacing each pair is exact, whatever order the pairs come in."""
    if DLE not in escaped:
        return escaped
    if _BAD_ESCAPE.search(escaped):
        return None
    return escaped.replace(b"\x10\x22", b"\x02").replace(b"\x10\x23", b"\x03").replace(b"\x10\x30", b"\x10")


def encode_frame(seq: int, type_code: int, payload: bytes = b"") -> bytes:
    """The wire bytes of one frame."""
    return encode_frame_with_crc(seq, type_code, payload, None)


def encode_frame_with_crc(seq: int, type_code: int, payload: bytes, crc: int | None) -> bytes:
    """Like :func:`encode_frame` but with a chosen CRC (``None``: the right one).

    Only simulators' fault injection and tests pass a CRC: it is how a corrupted frame
    that is otherwise well formed gets onto the line.
    """
    if not 0 <= seq <= 0xFF:
        raise ValueError(f"sequence number {seq} is outside 0-255")
    if not 0 <= type_code <= 0xFF:
        raise ValueError(f"message type {type_code} is outside 0-255")
    body = bytes((seq, type_code)) + bytes(payload)
    if len(body) + 2 > MAX_BODY:
        raise ValueError(f"payload of {len(payload)} bytes exceeds the {MAX_BODY - 4}-byte limit")
    if crc is None:
        crc = crc16(body)
    return bytes((STX,)) + _escape(body + bytes((crc >> 8, crc & 0xFF))) + bytes((ETX,))


@dataclass
class FrameStats:
    """Counters of what the decoder saw; the driver exposes them to diagnostics."""

    frames: int = 0
    noise_bytes: int = 0
    faults: dict[FrameFault, int] = field(default_factory=lambda: dict.fromkeys(FrameFault, 0))

    @property
    def bad_frames(self) -> int:
        return sum(n for f, n in self.faults.items() if f is not FrameFault.NOISE)


class FrameDecoder:
    """Incremental, resynchronising frame decoder.

    ``feed`` never raises on any input. Bytes outside a frame are reported once per
    stretch as ``NOISE``; a frame with a wrong CRC, a bad escape, a missing ETX or an
    impossible length is reported and dropped, and decoding carries on with the next STX.
    """

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self.max_body = max_body
        self.stats = FrameStats()
        self._in_frame = False
        self._escaped = False
        self._overflow = False
        self._bad_escape = False
        self._body = bytearray()
        self._raw = bytearray()  # raw bytes of the current frame or noise stretch
        self._raw_cap = 2 * max_body + 3  # a maximal frame fully escaped, plus STX and ETX

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        position, end = 0, len(data)
        while position < end:
            if not self._in_frame and data[position] == STX:
                # A whole good frame in this chunk is decoded at once; anything else (a frame
                # cut across chunks, a bad one) goes the incremental way below.
                if self._raw:
                    self._noise(out)
                following = self._take_frame(data, position, end, out)
                if following:
                    position = following
                    continue
            if self._in_frame and not self._escaped and not self._overflow:
                # The plain run of body bytes up to the next STX, ETX or DLE goes in at once:
                # the same as byte by byte below, at a fraction of the cost.
                match = _NEXT_SPECIAL.search(data, position)
                stop = match.start() if match else end
                if stop > position:
                    self._take_run(data[position:stop])
                    position = stop
                    continue
            self._feed_byte(data[position], out)
            position += 1
        return out

    def _take_frame(self, data: bytes, start: int, end: int, out: list[Frame | FrameError]) -> int:
        """Decode the frame starting at ``data[start]`` (an STX) if it is whole and good; the
        position after its ETX, or 0 to leave it to the byte-by-byte path."""
        etx = data.find(ETX, start + 1, end)
        if etx < 0 or data.find(STX, start + 1, etx) >= 0:
            return 0
        body = _unescape(data[start + 1 : etx])
        if body is None or not _MIN_BODY <= len(body) <= self.max_body:
            return 0
        if crc16(body[:-2]) != (body[-2] << 8) | body[-1]:
            return 0
        self.stats.frames += 1
        out.append(Frame(seq=body[0], type=body[1], payload=body[2:-2], raw=data[start : etx + 1]))
        return etx + 1

    def _take_run(self, run: bytes) -> None:
        room = self._raw_cap - len(self._raw)
        self._raw += run[:room]  # an overlong frame keeps only its first bytes for the report
        space = self.max_body - len(self._body)
        self._body += run[:space]
        if len(run) > space:
            self._overflow = True

    def _feed_byte(self, byte: int, out: list[Frame | FrameError]) -> None:
        if byte == STX:
            if self._in_frame:
                self._fault(out, FrameFault.TRUNCATED)
            elif self._raw:
                self._noise(out)
            self._start()
            self._raw.append(byte)
            return
        if not self._in_frame:
            self._raw.append(byte)
            if len(self._raw) >= self._raw_cap:
                self._noise(out)  # report long noise in pieces: memory stays bounded
            return
        if len(self._raw) < self._raw_cap:
            self._raw.append(byte)  # an overlong frame keeps only its first bytes for the report
        if byte == ETX:
            self._finish(out)
        elif self._overflow:
            return
        elif self._escaped:
            self._escaped = False
            value = byte ^ ESCAPE_XOR
            if value not in _SPECIAL:
                self._bad_escape = True  # swallow the rest of this frame, then report it
                self._overflow = True
                return
            self._append(value)
        elif byte == DLE:
            self._escaped = True
        else:
            self._append(byte)

    def flush_noise(self) -> list[FrameError]:
        """Report pending out-of-frame bytes now (e.g. when the link goes quiet)."""
        out: list[Frame | FrameError] = []
        if not self._in_frame and self._raw:
            self._noise(out)
        return [e for e in out if isinstance(e, FrameError)]

    def reset(self) -> None:
        """Forget any partial frame (after a reconnection the old bytes mean nothing)."""
        self._in_frame = False
        self._escaped = False
        self._overflow = False
        self._body.clear()
        self._raw.clear()

    # -- internals ------------------------------------------------------------------------

    def _start(self) -> None:
        self._in_frame = True
        self._escaped = False
        self._overflow = False
        self._bad_escape = False
        self._body.clear()
        self._raw.clear()

    def _append(self, value: int) -> None:
        if len(self._body) >= self.max_body:
            self._overflow = True
            return
        self._body.append(value)

    def _noise(self, out: list[Frame | FrameError]) -> None:
        self.stats.noise_bytes += len(self._raw)
        self.stats.faults[FrameFault.NOISE] += 1
        out.append(FrameError(FrameFault.NOISE, bytes(self._raw)))
        self._raw.clear()

    def _fault(self, out: list[Frame | FrameError], fault: FrameFault) -> None:
        self.stats.faults[fault] += 1
        out.append(FrameError(fault, bytes(self._raw)))
        self._in_frame = False
        self._raw.clear()
        self._body.clear()

    def _finish(self, out: list[Frame | FrameError]) -> None:
        if self._escaped or self._bad_escape:
            self._fault(out, FrameFault.BAD_ESCAPE)
            return
        if self._overflow:
            self._fault(out, FrameFault.TOO_LONG)
            return
        body = bytes(self._body)
        if len(body) < _MIN_BODY:
            self._fault(out, FrameFault.TOO_SHORT)
            return
        crc = (body[-2] << 8) | body[-1]
        if crc16(body[:-2]) != crc:
            self._fault(out, FrameFault.BAD_CRC)
            return
        self.stats.frames += 1
        out.append(Frame(seq=body[0], type=body[1], payload=body[2:-2], raw=bytes(self._raw)))
        self._in_frame = False
        self._raw.clear()
        self._body.clear()
