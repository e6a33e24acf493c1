"""Pure codec for the pedal reports: bytes <-> :class:`PedalReport` / :class:`SelfTestReply`,
in each version of the pedal protocol.

No I/O and no state, so it can be fuzzed on its own. Decoding checks everything a report
can get wrong (length, report ID, checksum, event type, reserved bits, and whether the
button bitmap agrees with the event) and raises :class:`ReportError` for anything else:
a damaged report must never be read as a press. Version 1 carries a CRC-8; version 2 the
same fields with a CRC-16 (CCITT-FALSE, the serial protocols' CRC), which lets about 0.4 in
a million damaged reports through where the CRC-8 let 173 in a million through
(``bench/pedal_fuzz.py``, docs/benchmarks.md). A unit speaks one version for a whole
connection, so a report is decoded in that version only.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from drivers.usb import protocol as p
from drivers.usb.protocol import EventType


class ReportError(ValueError):
    """A report that is not a well-formed pedal report; ``reason`` says what is wrong."""

    def __init__(self, reason: str, raw: bytes) -> None:
        super().__init__(f"{reason}: {raw.hex(' ')}")
        self.reason = reason
        self.raw = raw


def _crc8_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table.append(crc)
    return tuple(table)


_CRC8 = _crc8_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR), the
    serial protocols' CRC and version 2's check. Check value: ``crc16(b"123456789") == 0x29B1``."""
    return binascii.crc_hqx(data, 0xFFFF)


def _with_check(body: bytes, version: int) -> bytes:
    """``body`` followed by its check: a CRC-8 byte (version 1) or a CRC-16, high byte first."""
    if version == 1:
        return body + bytes((crc8(body),))
    return body + crc16(body).to_bytes(2, "big")


def _checked_body(raw: bytes, version: int) -> bytes | None:
    """The fields before the check, or None when the check does not match."""
    if version == 1:
        return raw[:-1] if crc8(raw[:-1]) == raw[-1] else None
    return raw[:-2] if crc16(raw[:-2]) == int.from_bytes(raw[-2:], "big") else None


def _known(version: int, raw: bytes) -> None:
    if version not in p.PROTOCOL_VERSIONS:
        raise ReportError(f"pedal protocol version {version} is not one this station speaks", raw)


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS (polynomial 0x07, initial 0, no reflection, no final XOR).

    Chosen over a plain sum because it catches every single- and double-bit error and every
    burst up to 8 bits in a report this short. Check value: ``crc8(b"123456789") == 0xF4``.
    """
    crc = 0
    for byte in data:
        crc = _CRC8[crc ^ byte]
    return crc


@dataclass(frozen=True)
class PedalReport:
    """One interrupt IN report: ``event`` happened to ``button`` (0-based index).

    ``held`` is the bitmap of buttons down after the event. ``long`` is set on an UP whose
    press reached the long threshold (so the host knows a LONG report belonged to it even if
    that report was lost). ``hold_cs`` is how long the button was held, in hundredths of a
    second, saturating at 255 (0 on DOWN); it is informative only.
    """

    sequence: int
    event: EventType
    button: int
    held: int
    long: bool = False
    hold_cs: int = 0

    def __post_init__(self) -> None:
        for name, value, top in (
            ("sequence", self.sequence, 255),
            ("button", self.button, p.MAX_BUTTONS - 1),
            ("held", self.held, 255),
            ("hold_cs", self.hold_cs, 255),
        ):
            if not 0 <= value <= top:
                raise ValueError(f"{name} {value} outside 0..{top}")


def encode_report(report: PedalReport, version: int = p.PROTOCOL_VERSION) -> bytes:
    """The report a device of ``version`` sends for ``report`` (8 bytes, or 9 in version 2)."""
    _known(version, b"")
    body = bytes(
        (
            p.report_id(version),
            report.sequence,
            int(report.event),
            report.button,
            report.held,
            p.FLAG_LONG if report.long else 0,
            report.hold_cs,
        )
    )
    return _with_check(body, version)


def decode_report(raw: bytes, version: int = p.PROTOCOL_VERSION) -> PedalReport:
    """Decode one report of ``version`` or raise :class:`ReportError`; never raises anything else."""
    raw = bytes(raw)
    _known(version, raw)
    length = p.report_length(version)
    if len(raw) != length:
        raise ReportError(f"length {len(raw)}, expected {length}", raw)
    body = _checked_body(raw, version)
    if body is None:
        raise ReportError("checksum mismatch", raw)
    report_id, sequence, event_code, button, held, flags, hold_cs = body
    if report_id != p.report_id(version):
        raise ReportError(f"unknown report id 0x{report_id:02x}", raw)
    try:
        event = EventType(event_code)
    except ValueError:
        raise ReportError(f"unknown event type 0x{event_code:02x}", raw) from None
    if button >= p.MAX_BUTTONS:
        raise ReportError(f"button index {button} out of range", raw)
    if flags & p.FLAG_RESERVED_MASK:
        raise ReportError(f"reserved flag bits set (0x{flags:02x})", raw)
    long = bool(flags & p.FLAG_LONG)
    is_held = bool(held & (1 << button))
    if event is EventType.UP and is_held:
        raise ReportError("UP report with its button still in the held bitmap", raw)
    if event is not EventType.UP and not is_held:
        raise ReportError(f"{event.name} report with its button missing from the held bitmap", raw)
    if long and event is not EventType.UP:
        raise ReportError("long flag on a report that is not UP", raw)
    if event is EventType.DOWN and hold_cs:
        raise ReportError("DOWN report with a hold time", raw)
    return PedalReport(sequence, event, button, held, long, hold_cs)


@dataclass(frozen=True)
class SelfTestReply:
    """The device's answer to the vendor SELF_TEST request."""

    flags: int
    installed: int  # bitmap of buttons fitted
    held: int  # bitmap of buttons down right now
    long_press_ms: int

    @property
    def problems(self) -> tuple[str, ...]:
        names = {
            p.SelfTestFlag.SWITCH_STUCK: "a switch was closed at power-up",
            p.SelfTestFlag.WIRING_OPEN: "a pedal cable is open",
            p.SelfTestFlag.BUFFER_OVERFLOW: "reports were dropped (buffer overflow)",
            p.SelfTestFlag.WATCHDOG_RESET: "firmware restarted by its watchdog",
        }
        found = [text for flag, text in names.items() if self.flags & flag]
        unknown = self.flags & ~sum(names)
        if unknown:
            found.append(f"unknown status bits 0x{unknown:02x}")
        return tuple(found)


def encode_self_test(reply: SelfTestReply, version: int = p.PROTOCOL_VERSION) -> bytes:
    """The self-test reply of a unit of ``version``: 7 bytes (byte 6 reserved) and the check."""
    _known(version, b"")
    body = bytes(
        (
            p.self_test_format(version),
            reply.flags & 0xFF,
            reply.installed & 0xFF,
            reply.held & 0xFF,
            reply.long_press_ms & 0xFF,
            (reply.long_press_ms >> 8) & 0xFF,
            0,
        )
    )
    return _with_check(body, version)


def decode_self_test(raw: bytes, version: int = p.PROTOCOL_VERSION) -> SelfTestReply:
    """Decode a self-test reply of ``version`` or raise :class:`ReportError`."""
    raw = bytes(raw)
    _known(version, raw)
    length = p.self_test_length(version)
    if len(raw) != length:
        raise ReportError(f"self-test reply length {len(raw)}, expected {length}", raw)
    if _checked_body(raw, version) is None:
        raise ReportError("self-test reply checksum mismatch", raw)
    if raw[0] != p.self_test_format(version):
        raise ReportError(f"self-test reply format 0x{raw[0]:02x} unknown", raw)
    return SelfTestReply(
        flags=raw[1], installed=raw[2], held=raw[3], long_press_ms=raw[4] | (raw[5] << 8)
    )


def encode_protocol_version(version: int) -> bytes:
    """A version-2 unit's answer to GET_PROTOCOL_VERSION: one byte."""
    return bytes((version,))


def decode_protocol_version(raw: bytes) -> int:
    """The version in a GET_PROTOCOL_VERSION answer (its first byte)."""
    if len(raw) < p.PROTOCOL_VERSION_LENGTH:
        raise ReportError("empty answer to the protocol version request", bytes(raw))
    return raw[0]
