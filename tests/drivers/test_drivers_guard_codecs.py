"""Guard tests of the serial codecs (the ``drivers`` mutation guard, docs/testing.md), through
the protocols' encode and decode.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the display board's protocol: the versions the station speaks (1 and 2, as
  docs/protocols/display.md's changelog has them: a board announcing 3 is refused), and a Casino
  War round as each version has it: ``ShowWarResult`` with type code ``0x17`` on the wire for a
  version-2 board, the banner line for a version-1 board, which has no such message
  (``drivers/codec/display.py``);
* the banner line of a war round fits a text field (255 bytes of UTF-8) however many boxes it
  names, cut with an ellipsis (``war_banner_line``);
* the board's message table (type codes, fields, the codes of its errors) is the one
  docs/protocols/display.md has, and a message's optional fields mean "no" and 0 when left out;
* the banner line is cut to the longest beginning that fits with its ellipsis;
* the type codes of link control end at 0xFF: a message class with a larger code is refused
  when a protocol is built (``drivers/codec/protocol.py``, ``kind_of``);
* the framing's fast path (a whole frame in one chunk) takes a frame only up to its ETX and only
  with its whole CRC right: a frame whose ETX has not come yet, or whose CRC's first byte is
  wrong, is never a frame (``drivers/codec/framing.py``, ``_take_frame``);
* the chip reader's UIDs run from 0 (``drivers/codec/chipreader.py``, ``parse_uid``);
* wire types are values: equal when they describe the same thing, and hashable
  (``drivers/codec/fields.py``, ``EnumU8``).

These tests call ``war_banner_line``: a mutant of a module's constants runs against the tests
that run one of its module's functions (tools/mutate.py), and it is display.py's only one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from drivers.codec import chipreader, display, get_protocol
from drivers.codec.examples import render_table
from drivers.codec.fields import TEXT, EnumU8
from drivers.codec.framing import (
    DLE,
    ETX,
    STX,
    Frame,
    FrameDecoder,
    FrameError,
    crc16,
    encode_frame,
    encode_frame_with_crc,
)
from drivers.codec.protocol import Kind, Message, NotInVersion, Protocol, StreamCodec, UnknownMessage, kind_of
from station.cards import parse_card

DISPLAY = get_protocol("display")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocols"

ROUND = display.ShowWarResult(
    8, parse_card("7D"),
    (
        display.WarBox(2, parse_card("7C"), display.WarBoxOutcome.WAR_WIN, (parse_card("QS"),)),
        display.WarBox(4, parse_card("7S"), display.WarBoxOutcome.SURRENDER),
        display.WarBox(5, parse_card("AD"), display.WarBoxOutcome.WIN),
    ),
    (parse_card("5H"),),
)


def type_code(raw: bytes) -> int:
    frames = FrameDecoder().feed(raw)
    assert len(frames) == 1
    return frames[0].type  # type: ignore[union-attr]


def test_a_war_round_reaches_each_version_of_board_as_that_version_has_it() -> None:
    assert DISPLAY is display.DISPLAY
    assert list(DISPLAY.versions) == [1, 2]
    assert DISPLAY.version_problem(2) is None and DISPLAY.version_problem(1) is None
    assert "version 3, newer than the versions this station speaks (1-2)" in (DISPLAY.version_problem(3) or "")
    assert StreamCodec(DISPLAY).version == 2  # until a board says which it speaks

    # version 2: ShowWarResult, 0x17 on the wire (the message table of docs/protocols/display.md)
    raw = DISPLAY.encode(ROUND, 23)
    assert type_code(raw) == 0x17 and DISPLAY.encode(ROUND, 23, 2) == raw
    [packet] = StreamCodec(DISPLAY, 2).feed(raw)
    assert packet.message == ROUND  # type: ignore[union-attr]
    assert DISPLAY.by_type[0x17] is display.ShowWarResult and 0x18 not in DISPLAY.by_type

    # version 1: no such message; the round goes as a banner line
    with pytest.raises(NotInVersion):
        DISPLAY.encode(ROUND, 23, 1)
    with pytest.raises(UnknownMessage, match="0x17"):
        DISPLAY.decode(FrameDecoder().feed(raw)[0], 1)  # type: ignore[arg-type]
    line = display.war_banner_line(ROUND)
    assert line == "Round 8 \u00b7 Dealer 7D, war 5H \u00b7 Win: box 5 \u00b7 War won: box 2 \u00b7 Surrender: box 4"
    banner = DISPLAY.encode(display.ShowMessage(line), 24, 1)
    assert type_code(banner) == 0x12


def test_the_board_s_messages_are_the_document_s_and_left_out_fields_mean_no_and_0() -> None:
    display.war_banner_line(ROUND)  # (the function that puts this test in display.py's map)
    assert render_table(DISPLAY) in (DOCS / "display.md").read_text(encoding="utf-8")
    assert [(c.name, c.value) for c in display.DisplayErrorCode] == [("PANEL_FAULT", 1), ("OVERHEAT", 2), ("POWER", 3)]
    result = display.ShowResult(1, display.WireOutcome.TIE, 5, 5, (), ())
    assert (result.natural, result.player_pair, result.banker_pair) == (False, False, False)
    assert result.pack()[-3:] == b"\x00\x00\x00"
    limits = display.ShowLimits(1000, 500000)
    assert (limits.tie_min, limits.tie_max, limits.pair_min, limits.pair_max, limits.currency, limits.minor_digits) == (
        0, 0, 0, 0, "", 0)
    assert display.ShowWarResult(1, parse_card("2C"), ()).dealer_war_card == ()
    two = (parse_card("5H"), parse_card("6H"))  # a war deals one card to the dealer and to each box
    for bad in (display.ShowWarResult(1, parse_card("2C"), (), two),
                display.ShowWarResult(1, parse_card("2C"), (display.WarBox(1, parse_card("3C"),
                                                                          display.WarBoxOutcome.WAR_WIN, two),))):
        with pytest.raises(ValueError, match="longer than 1"):
            DISPLAY.encode(bad, 1)
    assert display.DisplayStatus(50, 3).error == 0 and display.DisplayError(display.DisplayErrorCode.POWER).detail == ""


def _full_banner(result: display.ShowWarResult) -> str:
    """The banner line before any cut, written out here as docs/protocols/display.md says it."""
    words = {display.WarBoxOutcome.WIN: "Win", display.WarBoxOutcome.LOSE: "Lose", display.WarBoxOutcome.TIE: "Tie",
             display.WarBoxOutcome.WAR_WIN: "War won", display.WarBoxOutcome.WAR_LOSE: "War lost",
             display.WarBoxOutcome.SURRENDER: "Surrender"}
    war = f", war {result.dealer_war_card[0].code}" if result.dealer_war_card else ""
    parts = [f"Round {result.round_no}", f"Dealer {result.dealer_card.code}{war}"]
    for outcome, word in words.items():
        boxes = [str(b.box) for b in result.boxes if b.outcome is outcome]
        if boxes:
            parts.append(f"{word}: box{'es' if len(boxes) > 1 else ''} {' '.join(boxes)}")
    return " \u00b7 ".join(parts)


@pytest.mark.parametrize("boxes", range(58, 70))
def test_a_banner_too_long_is_cut_to_the_longest_beginning_that_fits(boxes: int) -> None:
    outcomes = list(display.WarBoxOutcome)
    result = display.ShowWarResult(
        77, parse_card("9H"),
        tuple(display.WarBox(10 + n, parse_card("4D"), outcomes[n % len(outcomes)]) for n in range(boxes)))
    full = _full_banner(result)
    fitting = max(k for k in range(len(full)) if len(full[:k].encode("utf-8")) + 3 <= 255)
    assert display.war_banner_line(result) == full[:fitting] + "\u2026"


@pytest.mark.parametrize("boxes", [60, 61, 62, 90, 200])
def test_a_war_round_s_banner_fits_a_text_field_however_many_boxes_it_names(boxes: int) -> None:
    """More boxes than a table has (14 fit easily): the line is cut to the 255 bytes a text
    field holds, ending with an ellipsis, and a version-1 board can be sent it."""
    outcomes = list(display.WarBoxOutcome)
    many = display.ShowWarResult(
        4294967295, parse_card("TS"),
        tuple(display.WarBox(n % 256, parse_card("2C"), outcomes[n % len(outcomes)]) for n in range(boxes)),
        (parse_card("KD"),),
    )
    line = display.war_banner_line(many)
    size = len(line.encode("utf-8"))
    assert 250 <= size <= 255 and line.endswith("\u2026")
    assert line.startswith("Round 4294967295 \u00b7 Dealer TS, war KD \u00b7 Win: boxes 0 6 12 ")
    out = bytearray()
    TEXT.pack(line, out)  # a text field takes it
    DISPLAY.encode(display.ShowMessage(line), 1, 1)


@dataclass(frozen=True)
class _Beyond(Message):
    TYPE: ClassVar[int] = 0x100  # a type code is one byte on the wire


def test_a_type_code_beyond_one_byte_is_in_no_range() -> None:
    assert [kind_of(code) for code in (0x01, 0x3F, 0x40, 0x7F, 0x80, 0xBF, 0xF0, 0xFF)] == [
        Kind.COMMAND, Kind.COMMAND, Kind.EVENT, Kind.EVENT, Kind.RESPONSE, Kind.RESPONSE, Kind.CONTROL, Kind.CONTROL]
    assert [kind_of(code) for code in (0x00, 0xC0, 0xEF, 0x100, 0x1F0)] == [None] * 5
    with pytest.raises(TypeError, match="0x100 outside every range"):
        Protocol("vendor", (_Beyond,), current=2)


def test_a_frame_is_taken_only_once_its_etx_has_come() -> None:
    whole = encode_frame(5, 0x10, b"abc")
    decoder = FrameDecoder()
    assert decoder.feed(whole[:-1] + b"A") == []  # a byte more, but no ETX yet: no frame
    out = decoder.feed(bytes([ETX]))
    assert len(out) == 1 and isinstance(out[0], FrameError) and decoder.stats.frames == 0
    assert decoder.feed(whole) == [Frame(5, 0x10, b"abc", whole)]


def test_a_frame_whose_crc_s_first_byte_is_wrong_is_refused() -> None:
    """The payload's first byte made equal to the CRC's first byte, the CRC sent with that
    first byte wrong: refused, whole or byte by byte."""
    def plain(value: int) -> bool:
        return value not in (STX, ETX, DLE)

    for first in range(0x20, 0x7F):
        for second in range(0x20, 0x7F):
            crc = crc16(bytes([9, 0x11, first, second]))
            if crc >> 8 == first and plain(crc & 0xFF) and plain((crc >> 8) ^ 0x01):
                break
        else:
            continue
        break
    else:
        raise AssertionError("no payload found")
    raw = encode_frame_with_crc(9, 0x11, bytes([first, second]), crc ^ 0x0100)
    assert raw == bytes([STX, 9, 0x11, first, second, (crc >> 8) ^ 0x01, crc & 0xFF, ETX])
    out = FrameDecoder().feed(raw)
    assert len(out) == 1 and isinstance(out[0], FrameError) and out[0].fault.value == "bad_crc"
    good = encode_frame_with_crc(9, 0x11, bytes([first, second]), crc)
    assert FrameDecoder().feed(good) == [Frame(9, 0x11, bytes([first, second]), good)]


def test_a_chip_uid_runs_from_0_to_eight_bytes() -> None:
    assert chipreader.parse_uid(0) == 0 and chipreader.uid_text(0) == "0000000000000000"
    assert chipreader.parse_uid((1 << 64) - 1) == (1 << 64) - 1
    for bad in (-1, 1 << 64):
        with pytest.raises(ValueError, match="eight bytes"):
            chipreader.parse_uid(bad)


def test_wire_types_are_values() -> None:
    again = EnumU8(display.WireOutcome)
    assert again == display.OUTCOME and hash(again) == hash(display.OUTCOME)
    assert {display.OUTCOME, again, display.MARK} == {display.OUTCOME, display.MARK}
