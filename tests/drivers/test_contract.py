"""Contract suite: what every serial device must do, run against the simulators by default.

Point it at real hardware by URL, one device at a time, e.g.::

    STATION_CONTRACT_SHOE_URL=/dev/serial/by-id/usb-ACME_Shoe-if00 \\
        .venv/bin/python -m pytest tests/drivers/test_contract.py -k shoe

With a URL set, the suite talks to that device instead of starting a simulator (like
python-can running one suite over every backend). Nothing here scripts the device, so
the same checks hold for hardware; checks that need a stimulus (a card drawn, a button
pressed) use the simulator's scripting and are skipped on hardware.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from drivers.codec import StreamCodec, get_protocol
from drivers.codec.framing import encode_frame, encode_frame_with_crc
from drivers.codec.protocol import Ack, Identify, IdentityReport, Kind, Message, Nak, NakCode, Packet, Ping
from drivers.devices import DRIVERS
from drivers.simulators import start_simulator
from drivers.transport import SerialTransport
from station import events as ev
from station.cards import parse_card

from .helpers import FAST, WAIT, Recorder

KINDS = ("shoe", "shuffler", "display", "buttonbox")


@dataclass
class Target:
    kind: str
    url: str
    stimulus: Callable[[], type] | None  # make the device send one event; returns the station event type
    simulator: object | None = None


def _stimulus(kind: str, device: object) -> Callable[[], type]:
    def shoe() -> type:
        device.load([parse_card("AS")])  # type: ignore[attr-defined]
        device.draw()  # type: ignore[attr-defined]
        return ev.CardDrawn

    def shuffler() -> type:
        device.jam()  # type: ignore[attr-defined]
        return ev.ShufflerStatus

    def display() -> type:
        device.panel_fault()  # type: ignore[attr-defined]
        return ev.DeviceFault

    def buttonbox() -> type:
        device.press(1)  # type: ignore[attr-defined]
        return ev.ButtonPressed

    return {"shoe": shoe, "shuffler": shuffler, "display": display, "buttonbox": buttonbox}[kind]


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    kind = request.param
    url = os.environ.get(f"STATION_CONTRACT_{kind.upper()}_URL")
    if url:
        yield Target(kind, url, None)
        return
    running = start_simulator(kind, ack_timeout=0.05)
    yield Target(kind, running.url, _stimulus(kind, running.device), running.device)
    running.stop()


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
def raw(target: Target) -> Iterator[RawLink]:
    link = RawLink(target.kind, target.url)
    yield link
    link.close()


def test_identifies_itself(target: Target) -> None:
    driver = DRIVERS[target.kind](target.kind, target.url, Recorder(), settings=FAST)
    try:
        assert driver.start(wait=WAIT)
        identity = driver.identify()
        assert identity.model and identity.serial and identity.firmware
        driver.ping()
        report = driver.self_test()
        assert isinstance(report.passed, bool)
        driver.status()  # type: ignore[attr-defined]
    finally:
        driver.stop()


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


def test_an_unacknowledged_event_is_retransmitted_with_the_same_seq(target: Target, raw: RawLink) -> None:
    if target.stimulus is None:
        pytest.skip("needs a scripted event; run against the simulator")
    target.stimulus()
    seen: list[Packet] = []
    deadline = time.monotonic() + WAIT
    while len(seen) < 2 and time.monotonic() < deadline:
        seen += [p for p in raw.codec.feed(raw.port.read()) if isinstance(p, Packet) and p.message.kind() is Kind.EVENT]
    assert len(seen) >= 2, "the device did not resend its unacknowledged event"
    assert seen[0].raw == seen[1].raw  # identical frame, same seq
    raw.send(raw.protocol.encode(Ack(), seen[0].seq))


def test_driver_receives_a_device_event_once(target: Target) -> None:
    if target.stimulus is None:
        pytest.skip("needs a scripted event; run against the simulator")
    rec = Recorder()
    driver = DRIVERS[target.kind](target.kind, target.url, rec, settings=FAST)
    try:
        assert driver.start(wait=WAIT)
        expected = target.stimulus()
        rec.wait_kind(expected)
        assert target.simulator.wait_idle(WAIT)  # type: ignore[attr-defined]  # every resend answered
        assert len(rec.of(expected)) == 1
    finally:
        driver.stop()
