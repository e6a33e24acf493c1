"""Guard tests of the codecs, round 20 (the ``drivers`` mutation guard, docs/testing.md), each
through a protocol's encode/decode, the frame decoder or a wire type's public face.

Each test answers a mutant that survived the guard's tests:

* the button box and the card shoe speak the versions their pages' changelogs publish (1 and 2),
  and no other: version 2 is the current one, a unit announcing version 3 is refused as newer
  (``drivers/codec/buttonbox.py``, ``drivers/codec/shoe.py``, ``current``);
* a frame keeps its whole wire bytes for the taps, even the longest frame with every body byte
  escaped and fed in pieces (``drivers/codec/framing.py``, ``_raw_cap``);
* a frame reads as its content: its repr leaves out the wire bytes, so a decoded frame shows as
  the same frame built by hand (``framing.py``, ``Frame.raw``);
* a wire type shows as what it describes, not as the lookup table it keeps
  (``drivers/codec/fields.py``, ``EnumU8._members``);
* a list with no limit of its own holds at most 1024 items: 1024 go both ways, 1025 are refused
  when encoding and a payload that counts 1025 is a payload error (``fields.py``, ``ListOf``);
* a sign's status names at most 64 dark LED rows, and a simulated sign has 1 to 64 rows
  (``drivers/codec/sign.py``, ``MAX_ROWS``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drivers.codec import display, get_protocol, sign
from drivers.codec.fields import EnumU8, PayloadError
from drivers.codec.framing import MAX_BODY, Frame, FrameDecoder, encode_frame
from drivers.simulators.sign import SignSimulator

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocols"
DISPLAY = get_protocol("display")
SIGN = get_protocol("sign")


def changelog_versions(device: str) -> list[int]:
    """The version numbers in the table under ``## Versions`` of the device's protocol page."""
    text = (DOCS / f"{device}.md").read_text(encoding="utf-8")
    section = text.split("\n## Versions\n", 1)[1].split("\n## ", 1)[0]
    return [int(m) for m in re.findall(r"^\| (\d+) \| \d{4}-\d\d-\d\d \|", section, flags=re.MULTILINE)]


@pytest.mark.parametrize("device", ["buttonbox", "shoe"])
def test_a_device_speaks_the_versions_its_page_publishes_and_the_last_is_current(device: str) -> None:
    published = changelog_versions(device)
    assert published == [1, 2]  # the pages' changelogs, as published
    protocol = get_protocol(device)
    assert list(protocol.versions) == published
    assert protocol.current == published[-1]
    for version in published:
        assert protocol.version_problem(version) is None
    newer = protocol.version_problem(published[-1] + 1) or ""
    assert "newer than the versions this station speaks (1-2)" in newer


def test_the_longest_frame_fully_escaped_keeps_all_its_wire_bytes_when_fed_in_pieces() -> None:
    """The taps show a frame as it came over the line: the decoder keeps room for a frame of
    the largest body with every byte escaped, so none of it is cut, however it was chunked."""
    payload = bytes([0x02, 0x03, 0x10]) * ((MAX_BODY - 4) // 3) + b"\x02" * ((MAX_BODY - 4) % 3)
    assert len(payload) == MAX_BODY - 4
    wire = encode_frame(0x10, 0x03, payload)
    assert len(wire) >= 2 * (MAX_BODY - 2) + 2  # all but the CRC escaped
    decoder = FrameDecoder()
    out = decoder.feed(wire[:-1]) + decoder.feed(wire[-1:])  # no ETX in the first piece
    assert out == [Frame(0x10, 0x03, payload)]
    assert isinstance(out[0], Frame) and out[0].raw == wire
    assert decoder.stats.frames == 1 and decoder.stats.bad_frames == 0


def test_a_frame_reads_as_its_content_without_its_wire_bytes() -> None:
    wire = encode_frame(7, 0x11, b"\x02\x41")
    [frame] = FrameDecoder().feed(wire)
    assert isinstance(frame, Frame) and frame.raw == wire
    built = Frame(7, 0x11, b"\x02\x41")
    assert frame == built
    assert repr(frame) == repr(built) == "Frame(seq=7, type=17, payload=b'\\x02A')"


def test_an_enum_wire_type_shows_as_its_enum_alone() -> None:
    wire = EnumU8(sign.SignErrorCode)
    assert repr(wire) == "EnumU8(enum=<enum 'SignErrorCode'>)"
    assert "LED_ROW" not in repr(wire)


def roads(marks: int) -> display.ShowRoads:
    return display.ShowRoads((), (), (display.Mark.RED,) * marks, (), ())


def roads_payload(count: int) -> bytes:
    """A ShowRoads payload whose big eye boy road counts ``count`` marks (all there)."""
    return (b"\x00\x00" * 2 + count.to_bytes(2, "big") + b"\x01" * count + b"\x00\x00" * 2 + b"\x00" * 6)


def test_a_list_without_a_limit_of_its_own_holds_at_most_1024_items() -> None:
    full = roads(1024)
    raw = DISPLAY.encode(full, 1)
    [frame] = FrameDecoder().feed(raw)
    assert isinstance(frame, Frame) and frame.payload == roads_payload(1024)
    assert DISPLAY.decode(frame) == full

    with pytest.raises(ValueError, match="1025 items is longer than 1024"):
        DISPLAY.encode(roads(1025), 2)
    with pytest.raises(PayloadError, match="1025 items is longer than 1024"):
        DISPLAY.decode(Frame(3, display.ShowRoads.TYPE, roads_payload(1025)))


def status_payload(rows: int) -> bytes:
    return bytes([80]) + (42).to_bytes(4, "big") + bytes([1, rows]) + bytes(range(1, rows + 1))


def test_a_sign_status_names_at_most_64_dark_rows() -> None:
    full = sign.SignStatus(80, 42, sign.SignErrorCode.LED_ROW, tuple(range(1, 65)))
    [frame] = FrameDecoder().feed(SIGN.encode(full, 1))
    assert isinstance(frame, Frame) and frame.payload == status_payload(64)
    assert SIGN.decode(frame) == full

    with pytest.raises(ValueError, match="65 items is longer than 64"):
        SIGN.encode(sign.SignStatus(80, 42, sign.SignErrorCode.LED_ROW, tuple(range(1, 66))), 2)
    with pytest.raises(PayloadError, match="65 items is longer than 64"):
        SIGN.decode(Frame(3, sign.SignStatus.TYPE, status_payload(65)))


def test_a_simulated_sign_has_1_to_64_led_rows() -> None:
    assert SignSimulator(rows=64).rows == 64
    with pytest.raises(ValueError, match="rows must be 1 to 64, not 65"):
        SignSimulator(rows=65)
