"""The pedal report codec: worked examples from the protocol document, and fuzzing."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.usb import protocol as p
from drivers.usb.codec import (
    PedalReport,
    ReportError,
    SelfTestReply,
    crc8,
    decode_report,
    decode_self_test,
    encode_report,
    encode_self_test,
)
from drivers.usb.presses import PressTracker
from drivers.usb.protocol import EventType


def test_crc8_check_value() -> None:
    assert crc8(b"123456789") == 0xF4  # CRC-8/SMBUS catalogue check value
    assert crc8(b"") == 0


# The worked examples of docs/protocols/pedals.md, byte for byte.
WORKED = [
    ("01 00 01 00 01 00 00 d6", PedalReport(0, EventType.DOWN, 0, 0b001)),
    ("01 01 02 00 00 00 00 32", PedalReport(1, EventType.UP, 0, 0)),
    ("01 02 01 02 04 00 00 68", PedalReport(2, EventType.DOWN, 2, 0b100)),
    ("01 03 03 02 04 00 50 32", PedalReport(3, EventType.LONG, 2, 0b100, hold_cs=80)),
    ("01 04 02 02 00 01 50 31", PedalReport(4, EventType.UP, 2, 0, long=True, hold_cs=80)),
]


@pytest.mark.parametrize(("hexbytes", "report"), WORKED)
def test_worked_examples(hexbytes: str, report: PedalReport) -> None:
    raw = bytes.fromhex(hexbytes)
    assert encode_report(report) == raw
    assert decode_report(raw) == report


@pytest.mark.parametrize(
    ("hexbytes", "reason"),
    [
        ("01 00 01 00 01 00 00 d7", "checksum mismatch"),
        ("01 00 01 00 01 00 00", "length 7"),
        ("01 00 01 00 01 00 00 d6 00", "length 9"),
        ("", "length 0"),
    ],
)
def test_damaged_reports_are_refused(hexbytes: str, reason: str) -> None:
    with pytest.raises(ReportError) as info:
        decode_report(bytes.fromhex(hexbytes))
    assert info.value.reason.startswith(reason)


def _with_crc(body: bytes) -> bytes:
    return body + bytes((crc8(body),))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("02 00 01 00 01 00 00", "unknown report id"),
        ("01 00 04 00 01 00 00", "unknown event type"),
        ("01 00 01 08 01 00 00", "button index 8"),
        ("01 00 01 00 01 02 00", "reserved flag bits"),
        ("01 00 01 00 00 00 00", "DOWN report with its button missing"),
        ("01 00 02 00 01 00 00", "UP report with its button still"),
        ("01 00 03 01 01 00 00", "LONG report with its button missing"),
        ("01 00 01 00 01 01 00", "long flag on a report that is not UP"),
        ("01 00 01 00 01 00 05", "DOWN report with a hold time"),
    ],
)
def test_inconsistent_reports_with_a_valid_checksum_are_refused(body: str, reason: str) -> None:
    with pytest.raises(ReportError) as info:
        decode_report(_with_crc(bytes.fromhex(body)))
    assert info.value.reason.startswith(reason)


def test_report_fields_are_range_checked() -> None:
    with pytest.raises(ValueError):
        PedalReport(256, EventType.DOWN, 0, 1)
    with pytest.raises(ValueError):
        PedalReport(0, EventType.DOWN, 8, 1)


valid_reports = st.builds(
    lambda seq, event, button, others, hold, long: PedalReport(
        seq,
        event,
        button,
        (others | (1 << button)) if event is not EventType.UP else (others & ~(1 << button)),
        long=long and event is EventType.UP,
        hold_cs=0 if event is EventType.DOWN else hold,
    ),
    st.integers(0, 255),
    st.sampled_from(list(EventType)),
    st.integers(0, p.MAX_BUTTONS - 1),
    st.integers(0, 255),
    st.integers(0, 255),
    st.booleans(),
)


@given(valid_reports)
def test_round_trip(report: PedalReport) -> None:
    assert decode_report(encode_report(report)) == report


@settings(max_examples=500)
@given(st.binary(max_size=80))
def test_random_bytes_never_raise_anything_but_report_error(raw: bytes) -> None:
    with contextlib.suppress(ReportError):
        decode_report(raw)


@settings(max_examples=500)
@given(valid_reports, st.integers(0, 63), st.integers(1, 255))
def test_any_single_byte_error_is_detected(report: PedalReport, bit: int, pattern: int) -> None:
    """A corrupted byte (any error pattern within one byte) never decodes: CRC-8 catches bursts <= 8 bits."""
    raw = bytearray(encode_report(report))
    raw[bit // 8] ^= pattern
    with pytest.raises(ReportError):
        decode_report(bytes(raw))


@settings(max_examples=300)
@given(valid_reports, st.data())
def test_mutated_reports_never_yield_a_press(report: PedalReport, data: st.DataObject) -> None:
    """Truncated, extended or bit-damaged reports are refused, so the tracker never sees them."""
    raw = bytearray(encode_report(report))
    mutation = data.draw(st.sampled_from(["truncate", "extend", "flip2"]))
    if mutation == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif mutation == "extend":
        raw += data.draw(st.binary(min_size=1, max_size=8))
    else:
        first, second = data.draw(st.lists(st.integers(0, 63), min_size=2, max_size=2, unique=True))
        raw[first // 8] ^= 1 << (first % 8)
        raw[second // 8] ^= 1 << (second % 8)
    tracker = PressTracker()
    presses = []
    with contextlib.suppress(ReportError):
        presses = tracker.feed(decode_report(bytes(raw)))
    assert presses == []
    assert tracker.counts.presses == 0


@given(st.binary(min_size=8, max_size=8))
def test_random_reports_that_decode_are_internally_consistent(raw: bytes) -> None:
    """The 1-in-256 random report with a good CRC must still pass every consistency rule."""
    try:
        report = decode_report(raw)
    except ReportError:
        return
    assert encode_report(report) == raw
    held = bool(report.held & (1 << report.button))
    assert held == (report.event is not EventType.UP)


def test_self_test_round_trip_and_problems() -> None:
    reply = SelfTestReply(flags=p.SelfTestFlag.SWITCH_STUCK | 0x40, installed=0b111, held=0b010, long_press_ms=800)
    raw = encode_self_test(reply)
    assert raw.hex(" ") == "01 41 07 02 20 03 00 " + f"{crc8(raw[:-1]):02x}"
    assert decode_self_test(raw) == reply
    assert decode_self_test(raw).problems == ("a switch was closed at power-up", "unknown status bits 0x40")
    with pytest.raises(ReportError):
        decode_self_test(raw[:-1] + bytes((raw[-1] ^ 1,)))
    with pytest.raises(ReportError):
        decode_self_test(raw[:5])


@given(st.binary(max_size=20))
def test_self_test_decoder_never_raises_anything_else(raw: bytes) -> None:
    with contextlib.suppress(ReportError):
        decode_self_test(raw)
