"""What every serial device's end of the link does, byte by byte: the serial part of the contract.

The host side is driven by hand (:class:`RawLink`), so these checks hold a simulator and a
real device to the link protocol (``docs/protocols/README.md``) exactly, not just to what the
driver happens to tolerate. Nothing here scripts the device except the retransmission
check, which needs an event and is skipped on hardware.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from drivers.codec import StreamCodec, get_protocol
from drivers.codec.framing import encode_frame, encode_frame_with_crc
from drivers.codec.protocol import Ack, Identify, IdentityReport, Kind, Message, Nak, NakCode, Packet, Ping
from drivers.devices import SerialDeviceDriver
from drivers.devices.contract import Device
from drivers.transport import SerialTransport

from .rigs import PROFILES, RIGS, WAIT_S, Rig, rig_id, started_rig

SERIAL_RIGS = [param for param in RIGS if PROFILES[param[0]].transport == "serial"]


@pytest.fixture(params=SERIAL_RIGS, ids=rig_id)
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    yield from started_rig(*request.param)


class RawLink:
    """The host side by hand, to check the device's link behaviour byte by byte."""

    def __init__(self, kind: str, url: str) -> None:
        self.protocol = get_protocol(kind)
        self.codec = StreamCodec(self.protocol)
        self.port = SerialTransport(url, read_timeout=0.05)
        self.port.open()
        self.pending: list[Packet] = []

    def close(self) -> None:
        self.port.close()

    def send(self, raw: bytes) -> None:
        self.port.write(raw)

    def answer(self, seq: int, timeout: float = 1.0) -> Message | None:
        """The device's answer with ``seq``; device events arriving meanwhile are ACKed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for item in self.codec.feed(self.port.read()):
                if not isinstance(item, Packet):
                    continue
                if item.message.kind() is Kind.EVENT:
                    self.send(self.protocol.encode(Ack(), item.seq))
                elif item.seq == seq:
                    return item.message
        return None


@pytest.fixture
def raw(rig: Rig) -> Iterator[RawLink]:
    assert isinstance(rig.endpoint, str)
    link = RawLink(rig.device, rig.endpoint)
    yield link
    link.close()


def test_pings_and_reports_its_status(device: Device) -> None:
    assert isinstance(device, SerialDeviceDriver)
    device.ping()
    device.status()


def test_answers_with_the_command_seq_and_repeats_the_answer_for_a_repeated_seq(raw: RawLink) -> None:
    frame = raw.protocol.encode(Identify(), 77)
    raw.send(frame)
    first = raw.answer(77)
    raw.send(frame)
    second = raw.answer(77)
    assert isinstance(first, IdentityReport) and first == second
    raw.send(raw.protocol.encode(Ping(), 78))
    assert isinstance(raw.answer(78), Ack)


def test_refuses_unknown_commands_and_bad_payloads_with_nak(raw: RawLink) -> None:
    raw.send(encode_frame(90, 0x3E, b""))
    unknown = raw.answer(90)
    assert isinstance(unknown, Nak) and unknown.code is NakCode.UNKNOWN_COMMAND
    raw.send(encode_frame(91, Identify.TYPE, b"\x01\x02"))  # Identify has no payload
    bad = raw.answer(91)
    assert isinstance(bad, Nak) and bad.code is NakCode.BAD_PAYLOAD


def test_ignores_a_corrupt_command_and_answers_the_next_after_garbage(raw: RawLink) -> None:
    raw.send(encode_frame_with_crc(95, Identify.TYPE, b"", 0x1234))
    assert raw.answer(95, timeout=0.5) is None  # a bad CRC is never acted on
    raw.send(b"\x00\xff\x10garbage\x03")
    raw.send(raw.protocol.encode(Identify(), 96))
    assert isinstance(raw.answer(96), IdentityReport)


def test_an_unacknowledged_event_is_retransmitted_with_the_same_seq(rig: Rig, raw: RawLink) -> None:
    simulator = rig.simulated()
    rig.profile.stimulus(simulator)
    seen: list[Packet] = []
    deadline = time.monotonic() + WAIT_S
    while len(seen) < 2 and time.monotonic() < deadline:
        seen += [p for p in raw.codec.feed(raw.port.read()) if isinstance(p, Packet) and p.message.kind() is Kind.EVENT]
    assert len(seen) >= 2, "the device did not resend its unacknowledged event"
    assert seen[0].raw == seen[1].raw  # identical frame, same seq
    raw.send(raw.protocol.encode(Ack(), seen[0].seq))
