"""The pedal report codec in both versions: worked examples from the protocol document, and
fuzzing. Version 1 (CRC-8) stays readable; version 2 carries a CRC-16 (tests/usb/test_fuzz.py
has the million mutated reports)."""

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
    crc16,
    decode_report,
    decode_self_test,
    encode_report,
    encode_self_test,
)
from drivers.usb.presses import PressTracker
from drivers.usb.protocol import EventType


def test_crc_check_values() -> None:
    assert crc8(b"123456789") == 0xF4  # CRC-8/SMBUS catalogue check value
    assert crc8(b"") == 0
    assert crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE, the serial protocols' CRC


# The worked examples of docs/protocols/pedals.md, byte for byte: (version, hex, report).
WORKED = [
    (1, "01 00 01 00 01 00 00 d6", PedalReport(0, EventType.DOWN, 0, 0b001)),
    (1, "01 01 02 00 00 00 00 32", PedalReport(1, EventType.UP, 0, 0)),
    (1, "01 02 01 02 04 00 00 68", PedalReport(2, EventType.DOWN, 2, 0b100)),
    (1, "01 03 03 02 04 00 50 32", PedalReport(3, EventType.LONG, 2, 0b100, hold_cs=80)),
    (1, "01 04 02 02 00 01 50 31", PedalReport(4, EventType.UP, 2, 0, long=True, hold_cs=80)),
    (2, "02 00 01 00 01 00 00 0c 4c", PedalReport(0, EventType.DOWN, 0, 0b001)),
    (2, "02 01 02 00 00 00 00 90 0e", PedalReport(1, EventType.UP, 0, 0)),
    (2, "02 04 02 02 00 01 50 57 a3", PedalReport(4, EventType.UP, 2, 0, long=True, hold_cs=80)),
]
VERSIONS = list(p.PROTOCOL_VERSIONS)


@pytest.mark.parametrize(("version", "hexbytes", "report"), WORKED)
def test_worked_examples(version: int, hexbytes: str, report: PedalReport) -> None:
    raw = bytes.fromhex(hexbytes)
    assert encode_report(report, version) == raw
    assert decode_report(raw, version) == report


@pytest.mark.parametrize(("version", "hexbytes", "report"), WORKED)
def test_a_report_is_read_only_in_its_own_version(version: int, hexbytes: str, report: PedalReport) -> None:
    with pytest.raises(ReportError):
        decode_report(bytes.fromhex(hexbytes), 3 - version)


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
        decode_report(bytes.fromhex(hexbytes), 1)
    assert info.value.reason.startswith(reason)


def _with_crc(body: bytes, version: int = 1) -> bytes:
    return body + (bytes((crc8(body),)) if version == 1 else crc16(body).to_bytes(2, "big"))


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
        decode_report(_with_crc(bytes.fromhex(body)), 1)
    assert info.value.reason.startswith(reason)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("01 00 01 00 01 00 00", "unknown report id"),  # a version-1 ID in a version-2 report
        ("02 00 04 00 01 00 00", "unknown event type"),
        ("02 00 01 08 01 00 00", "button index 8"),
        ("02 00 01 00 01 02 00", "reserved flag bits"),
        ("02 00 01 00 00 00 00", "DOWN report with its button missing"),
        ("02 00 02 00 01 00 00", "UP report with its button still"),
        ("02 00 01 00 01 01 00", "long flag on a report that is not UP"),
        ("02 00 01 00 01 00 05", "DOWN report with a hold time"),
    ],
)
def test_inconsistent_version_2_reports_with_a_valid_crc_are_refused(body: str, reason: str) -> None:
    with pytest.raises(ReportError) as info:
        decode_report(_with_crc(bytes.fromhex(body), 2), 2)
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


@pytest.mark.parametrize("version", VERSIONS)
@given(report=valid_reports)
def test_round_trip(version: int, report: PedalReport) -> None:
    assert decode_report(encode_report(report, version), version) == report


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=500)
@given(raw=st.binary(max_size=80))
def test_random_bytes_never_raise_anything_but_report_error(version: int, raw: bytes) -> None:
    with contextlib.suppress(ReportError):
        decode_report(raw, version)


@settings(max_examples=500)
@given(valid_reports, st.integers(0, 63), st.integers(1, 255))
def test_any_single_byte_error_is_detected(report: PedalReport, bit: int, pattern: int) -> None:
    """A corrupted byte (any error pattern within one byte) never decodes: CRC-8 catches bursts <= 8 bits."""
    raw = bytearray(encode_report(report, 1))
    raw[bit // 8] ^= pattern
    with pytest.raises(ReportError):
        decode_report(bytes(raw), 1)


@settings(max_examples=500)
@given(valid_reports, st.integers(0, 72 - 16), st.integers(1, 0xFFFF))
def test_any_error_within_two_neighbouring_bytes_is_detected_in_version_2(report: PedalReport, start: int,
                                                                         pattern: int) -> None:
    """CRC-16 catches every burst of up to 16 bits: any damage to two neighbouring bytes."""
    raw = encode_report(report, 2)
    value = int.from_bytes(raw, "big") ^ (pattern << (72 - 16 - start))
    with pytest.raises(ReportError):
        decode_report(value.to_bytes(9, "big"), 2)


@settings(max_examples=500)
@given(valid_reports, st.lists(st.integers(0, 71), min_size=1, max_size=3, unique=True))
def test_any_error_of_up_to_three_bits_is_detected_in_version_2(report: PedalReport, bits: list[int]) -> None:
    """CRC-16/CCITT has a Hamming distance of 4 at this length: every error of 1-3 bits is seen."""
    raw = bytearray(encode_report(report, 2))
    for bit in bits:
        raw[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(ReportError):
        decode_report(bytes(raw), 2)


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=300)
@given(report=valid_reports, data=st.data())
def test_mutated_reports_never_yield_a_press(version: int, report: PedalReport, data: st.DataObject) -> None:
    """Truncated, extended or bit-damaged reports are refused, so the tracker never sees them."""
    raw = bytearray(encode_report(report, version))
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
        presses = tracker.feed(decode_report(bytes(raw), version))
    assert presses == []
    assert tracker.counts.presses == 0


@pytest.mark.parametrize("version", VERSIONS)
@given(raw=st.binary(min_size=8, max_size=9))
def test_random_reports_that_decode_are_internally_consistent(version: int, raw: bytes) -> None:
    """The rare random report with a good CRC must still pass every consistency rule."""
    try:
        report = decode_report(raw, version)
    except ReportError:
        return
    assert encode_report(report, version) == raw
    held = bool(report.held & (1 << report.button))
    assert held == (report.event is not EventType.UP)


def test_self_test_round_trip_and_problems() -> None:
    reply = SelfTestReply(flags=p.SelfTestFlag.SWITCH_STUCK | 0x40, installed=0b111, held=0b010, long_press_ms=800)
    raw = encode_self_test(reply, 1)
    assert raw.hex(" ") == "01 41 07 02 20 03 00 " + f"{crc8(raw[:-1]):02x}"
    assert decode_self_test(raw, 1) == reply
    assert decode_self_test(raw, 1).problems == ("a switch was closed at power-up", "unknown status bits 0x40")
    with pytest.raises(ReportError):
        decode_self_test(raw[:-1] + bytes((raw[-1] ^ 1,)), 1)
    with pytest.raises(ReportError):
        decode_self_test(raw[:5], 1)
    raw2 = encode_self_test(reply, 2)
    assert raw2.hex(" ") == "02 41 07 02 20 03 00 " + crc16(raw2[:-2]).to_bytes(2, "big").hex(" ")
    assert decode_self_test(raw2, 2) == reply
    with pytest.raises(ReportError):
        decode_self_test(raw, 2)  # a version-1 reply is not a version-2 one
    with pytest.raises(ReportError):
        decode_self_test(raw2[:-1] + bytes((raw2[-1] ^ 1,)), 2)


@pytest.mark.parametrize("version", VERSIONS)
@given(raw=st.binary(max_size=20))
def test_self_test_decoder_never_raises_anything_else(version: int, raw: bytes) -> None:
    with contextlib.suppress(ReportError):
        decode_self_test(raw, version)
