"""Guard tests of the serial codecs, fifth set (the ``drivers`` mutation guard, docs/testing.md),
through the protocols' encode and decode, the frame decoder's output and statistics, and the
rendering of the protocol pages.

Each test answers a mutant that survived the guard's tests (``/tmp/wave3-codec.txt``):

* a bad escape (a DLE followed by a byte that escapes nothing) spoils its frame: the frame is
  reported and counted as a bad escape, never as a frame too long, whether it arrives whole or
  byte by byte, and the next frame still decodes (``drivers/codec/framing.py``,
  ``FrameDecoder``);
* every protocol page of docs/protocols holds its worked examples and message table exactly as
  ``drivers.codec.examples`` renders them, titles and directions included; an ACK is sent by
  whoever its title names first: "host acknowledges ..." goes host -> device, "the reader
  acknowledges" device -> host (``drivers/codec/examples.py``, ``render_example``);
* the chip reader's "only when asked" mode needs no period: ``SetMode(continuous=False)`` carries
  period 0 on the wire, the frame the page documents (``drivers/codec/chipreader.py``,
  ``SetMode``);
* equal fixed-size records are one object however many other records were decoded in between:
  the record store keeps every value it has seen (up to its bound), not only the last
  (``drivers/codec/fields.py``, ``Record.from_raws``);
* a field of an older protocol version never follows a field of a later one, even when a field
  of the oldest version comes before both: such a message is refused when its protocol is built
  (``drivers/codec/protocol.py``, ``Message.layout``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, ClassVar

import pytest

from drivers.codec import chipreader, display, get_protocol
from drivers.codec.display import BeadCell, WireOutcome
from drivers.codec.examples import render, render_common, render_example
from drivers.codec.fields import U8
from drivers.codec.framing import DLE, Frame, FrameDecoder, FrameError, FrameFault, encode_frame
from drivers.codec.protocol import Ack, Message, Packet, Protocol, Since, StreamCodec

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocols"
DEVICE_PAGES = ("shoe", "shuffler", "display", "buttonbox", "sign", "chipreader")
CHIPREADER = get_protocol("chipreader")
DISPLAY = display.DISPLAY


def _feed(decoder: FrameDecoder, wire: bytes, chunk: int | None) -> list[Frame | FrameError]:
    step = chunk or len(wire)
    out: list[Frame | FrameError] = []
    for start in range(0, len(wire), step):
        out += decoder.feed(wire[start:start + step])
    return out


@pytest.mark.parametrize("chunk", [None, 1], ids=["whole", "byte-by-byte"])
def test_a_dle_that_escapes_nothing_is_reported_as_a_bad_escape_and_the_next_frame_decodes(
        chunk: int | None) -> None:
    good = encode_frame(1, 0x40, b"AB")
    assert good[3:5] == b"AB"  # STX, seq, type, then the payload unescaped
    spoilt = good[:3] + bytes((DLE,)) + good[3:]  # DLE 'A': 'A' ^ 0x20 is no STX, ETX or DLE
    after = encode_frame(2, 0x40, b"ok")
    decoder = FrameDecoder()
    out = _feed(decoder, spoilt + after, chunk)

    assert out == [FrameError(FrameFault.BAD_ESCAPE, spoilt), Frame(2, 0x40, b"ok")]
    assert out[1].raw == after
    assert decoder.stats.faults[FrameFault.BAD_ESCAPE] == 1
    assert decoder.stats.faults[FrameFault.TOO_LONG] == 0
    assert (decoder.stats.frames, decoder.stats.bad_frames) == (1, 1)


@pytest.mark.parametrize("name", DEVICE_PAGES)
def test_each_device_page_holds_its_examples_and_table_exactly_as_rendered(name: str) -> None:
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert render(name) in page, f"regenerate docs/protocols/{name}.md from drivers/codec/examples.py"


def test_the_common_page_holds_its_examples_and_table_exactly_as_rendered() -> None:
    page = (DOCS / "README.md").read_text(encoding="utf-8")
    assert render_common() in page, "regenerate docs/protocols/README.md from drivers/codec/examples.py"


def test_an_ack_goes_from_whoever_its_title_names_first() -> None:
    ack = Ack()
    by_host = render_example(CHIPREADER, "host acknowledges device event seq 1", 1, ack)
    by_reader = render_example(CHIPREADER, "the reader acknowledges", 8, ack)
    assert by_host.startswith("host acknowledges device event seq 1 (host -> device):\n")
    assert by_reader.startswith("the reader acknowledges (device -> host):\n")
    # Only the first word counts: a device's ACK whose title mentions the host later is the device's.
    assert render_example(CHIPREADER, "shuffler accepted the host's command", 7, ack).startswith(
        "shuffler accepted the host's command (device -> host):\n")


def test_the_reader_s_ask_only_mode_needs_no_period_and_sends_period_zero() -> None:
    off = chipreader.SetMode(continuous=False)
    assert off == chipreader.SetMode(False, 0)
    wire = CHIPREADER.encode(off, 9)
    assert wire == CHIPREADER.encode(chipreader.SetMode(False, 0), 9)  # "back to reading only when asked"
    [packet] = StreamCodec(CHIPREADER).feed(wire)
    assert isinstance(packet, Packet) and packet.message == off and packet.message.period_ms == 0
    assert f"frame:   {wire.hex(' ')}\n" in (DOCS / "chipreader.md").read_text(encoding="utf-8")


def _bead_plate(cells: tuple[BeadCell, ...]) -> tuple[BeadCell, ...]:
    [packet] = StreamCodec(DISPLAY).feed(DISPLAY.encode(display.ShowRoads(cells, (), (), (), ()), 3))
    assert isinstance(packet, Packet) and isinstance(packet.message, display.ShowRoads)
    return packet.message.bead_plate


def test_equal_records_are_one_object_even_with_other_records_decoded_between() -> None:
    """A bead plate has a few dozen kinds of cell (fewer than the store's bound), so none of
    them is ever dropped from the store: each value decodes to one object for good."""
    banker = BeadCell(WireOutcome.BANKER, player_pair=True)
    player = BeadCell(WireOutcome.PLAYER, natural=True)
    tie = BeadCell(WireOutcome.TIE)
    first = _bead_plate((banker, player, tie, banker))
    assert first == (banker, player, tie, banker)
    assert first[3] is first[0]  # two other cells were decoded in between
    later = _bead_plate((tie, player, banker))
    assert later == (tie, player, banker)
    assert (later[0], later[1], later[2]) == (first[2], first[1], first[0])
    assert later[0] is first[2] and later[1] is first[1] and later[2] is first[0]


@dataclass(frozen=True)
class _OlderAfterLater(Message):
    """A field of version 1 after one of version 2 (with one of version 1 before both)."""

    TYPE: ClassVar[int] = 0x2D
    WIRE_NAME: ClassVar[str] = "OlderAfterLater"
    first: Annotated[int, U8]
    added: Annotated[int, U8, Since(2)] = 0
    late: Annotated[int, U8] = 0


def test_a_field_of_an_older_version_after_one_of_a_later_version_is_refused() -> None:
    """A version-1 device would read ``late`` where the version-2 frame has ``added``."""
    with pytest.raises(TypeError, match=r"OlderAfterLater\.late \(version 1\) comes after a field of a later "
                                        r"version"):
        Protocol("vendor", (_OlderAfterLater,), current=2)
