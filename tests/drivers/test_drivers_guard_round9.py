"""Guard tests of the framing, the chip reader's driver, the serial link and the serial transport,
round 9 (the ``drivers`` mutation guard, docs/testing.md), through the frame decoder's ``feed``,
a chip reader simulator and a shoe simulator on pseudo-terminals, and a pseudo-terminal of the
test's own.

Each test answers a mutant that survived the guard's tests (``/tmp/wave6-a.txt``):

* the CRC is checked in both of its bytes: a frame whose CRC has a wrong high byte, whatever
  the wrong value, is dropped and counted ``bad_crc``, never delivered, even when it comes
  whole in one read (``drivers/codec/framing.py``, the whole-frame path);
* the CRC covers the payload as well as SEQ and TYPE: a frame carrying the CRC of its SEQ and
  TYPE alone is dropped and counted ``bad_crc`` (``framing.py``, the whole-frame path);
* a re-application of the chip reader's mode that the reader does not answer is tried again
  until it is answered: the driver says it is synced only once the reader has answered its mode
  and its antenna list has been read (``drivers/devices/chipreader.py``, the resync worker);
* an ACK that could not be written was not sent: it is neither counted in ``frames_out`` nor
  shown to a tap or in the ring of recent frames as gone out (``drivers/devices/link.py``,
  ``_ack``);
* a serial transport given no speed opens its port at the protocols' documented speed,
  115200 baud (docs/protocols/README.md) (``drivers/transport/serial_port.py``).
"""

from __future__ import annotations

import os
import re
import termios
import tty
from pathlib import Path

from drivers.codec import chipreader as chip_wire
from drivers.codec import get_protocol
from drivers.codec.framing import Frame, FrameDecoder, FrameError, FrameFault, crc16, encode_frame_with_crc
from drivers.codec.protocol import Ack, CodecError, Message, Ping
from drivers.devices import ChipReaderDriver
from drivers.devices.link import DeviceLink
from drivers.simulators import ChipReaderSimulator, ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from station.cards import parse_cards

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

PROTOCOLS_README = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "README.md"

# -- the framing's CRC -------------------------------------------------------------------------------

#: A frame's SEQ, TYPE and payload whose right CRC has a high byte of at least 2 and bit 8 clear,
#: so that its high byte halved (another wrong value among all of them) is a wrong value that a
#: decoder reading the high byte one bit too far to the left would take for the right one.
SEQ, TYPE, PAYLOAD = 1, 0x20, b"\x08"
RIGHT_CRC = crc16(bytes((SEQ, TYPE)) + PAYLOAD)


def _decoded_whole(wire_bytes: bytes) -> tuple[list[Frame | FrameError], FrameDecoder]:
    """What a fresh decoder makes of ``wire_bytes`` read in one chunk, and the decoder."""
    decoder = FrameDecoder()
    return decoder.feed(wire_bytes), decoder


def test_a_frame_whose_crc_has_a_wrong_high_byte_is_dropped_whatever_the_wrong_value() -> None:
    """Each of the 255 wrong high bytes, the low byte right, each frame read whole in one
    chunk: every one is dropped and counted ``bad_crc``, none is delivered; the right one is."""
    assert RIGHT_CRC >> 8 >= 2 and not RIGHT_CRC & 0x100  # what makes the frame a sharp case (above)
    for high in range(256):
        crc = (high << 8) | (RIGHT_CRC & 0xFF)
        out, decoder = _decoded_whole(encode_frame_with_crc(SEQ, TYPE, PAYLOAD, crc))
        if crc == RIGHT_CRC:
            assert out == [Frame(SEQ, TYPE, PAYLOAD)]
            continue
        faults = [item.fault for item in out if isinstance(item, FrameError)]
        assert len(out) == 1 and faults == [FrameFault.BAD_CRC], f"CRC {crc:#06x} (right: {RIGHT_CRC:#06x})"
        assert (decoder.stats.frames, decoder.stats.faults[FrameFault.BAD_CRC]) == (0, 1)


def test_a_frame_carrying_the_crc_of_its_seq_and_type_alone_is_dropped() -> None:
    """The CRC covers SEQ, TYPE and the payload: a frame (read whole) whose CRC leaves its
    payload out is dropped and counted ``bad_crc``, as a payload corrupted in transit would be."""
    payload = b"\x01\x02\x03 a payload"
    header_only = crc16(bytes((SEQ, TYPE)))
    assert header_only != crc16(bytes((SEQ, TYPE)) + payload)
    out, decoder = _decoded_whole(encode_frame_with_crc(SEQ, TYPE, payload, header_only))
    assert [item.fault for item in out if isinstance(item, FrameError)] == [FrameFault.BAD_CRC]
    assert len(out) == 1
    assert (decoder.stats.frames, decoder.stats.faults[FrameFault.BAD_CRC]) == (0, 1)


# -- the chip reader ---------------------------------------------------------------------------------


def test_a_re_application_the_reader_does_not_answer_is_tried_again_until_it_is(rec: Recorder) -> None:
    """The reader executes the mode it is given but its answers are lost, eight in a row: the
    setting's own four tries, then the resync worker's four. The worker tries again and is
    answered; only then, its antenna list read too, is the driver synced."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    sim: ChipReaderSimulator = running.simulator
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT) and driver.wait_synced(WAIT)  # the power-on Boot taken, the first sync done
        before = len(sim.commands())
        sim.drop_replies(2 * (FAST.retries + 1))
        assert driver.set_mode(True, 500) is False  # not answered: kept, to be sent again
        assert driver.wait_synced(WAIT)
        mode = chip_wire.SetMode(True, 500)
        # each new command once (its retransmissions are copies): the setting's, the worker's
        # unanswered try, its answered try, then the antenna list
        assert sim.commands()[before:] == [mode, mode, mode, chip_wire.GetAntennas()]
        info = driver.status()
        assert (info.continuous, info.period_ms) == (True, 500)
    finally:
        driver.stop()
        running.stop()


# -- the serial link ---------------------------------------------------------------------------------


class _FailingWrites(SerialTransport):
    """A real serial port whose writes fail once told to, each failure noted."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.failing = False
        self.failed = 0

    def write(self, data: bytes) -> None:
        if self.failing:
            self.failed += 1
            raise TransportError(f"write {self.failed} failed")
        super().write(data)


def test_an_ack_that_could_not_be_written_is_neither_counted_nor_shown_as_sent(shoe: ShoeSimulator) -> None:
    """A card comes in while the port no longer takes writes: the card is handed over, its ACK
    cannot be written and the link is lost. ``frames_out`` and the frames shown gone out (to a
    tap, in the ring of recent frames) are what they were before: that ACK never went out."""
    transport = _FailingWrites(shoe.url)
    sent: list[object] = []

    def tap(direction: str, raw: bytes, decoded: Message | CodecError | None) -> None:
        if direction == "tx":
            sent.append(decoded)

    heard: list[Message] = []
    link = DeviceLink("shoe", transport, get_protocol("shoe"), on_event=heard.append,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    link.add_tap(tap)
    try:
        assert link.open() is None
        assert shoe.wait_idle(WAIT)  # the power-on Boot is acknowledged: nothing more to come
        assert isinstance(link.request(Ping()), Ack)  # the reader is past the Boot's ACK before the answer
        frames_out, shown_out = link.stats.frames_out, len(sent)
        ring_out = sum(1 for _, direction, _, _ in link.recent_frames() if direction == "tx")
        transport.failing = True
        shoe.load(parse_cards("AS"))  # an event the link hands over and then cannot acknowledge
        wait_until(lambda: transport.failed >= 1, WAIT, "the ACK's failed write")
        link.close(final=False)  # the reader is joined: whatever it did after the failure is done
        assert len(heard) == 2  # the Boot, and the card
        assert link.stats.frames_out == frames_out
        assert len(sent) == shown_out and not any(isinstance(m, Ack) for m in sent[shown_out:])
        assert sum(1 for _, direction, _, _ in link.recent_frames() if direction == "tx") == ring_out
    finally:
        link.stop()


# -- the serial transport ----------------------------------------------------------------------------


def _documented_speed() -> int:
    """The line speed docs/protocols/README.md gives every serial table device, in baud."""
    found = re.search(r"^\| speed \| (\d+) baud", PROTOCOLS_README.read_text(encoding="utf-8"), re.MULTILINE)
    assert found is not None, "docs/protocols/README.md gives no speed"
    return int(found.group(1))


def test_a_transport_given_no_speed_opens_its_port_at_the_documented_speed() -> None:
    """A serial transport made with nothing but its port runs the line at the protocols'
    speed: the port's own settings say so once it is open."""
    speed = _documented_speed()
    assert speed == 115200
    master, slave = os.openpty()
    tty.setraw(slave)
    transport = SerialTransport(os.ttyname(slave))
    try:
        transport.open()
        attributes = termios.tcgetattr(slave)  # the terminal's settings, whichever descriptor reads them
        assert (attributes[4], attributes[5]) == (getattr(termios, f"B{speed}"),) * 2  # input, output speed
    finally:
        transport.close()
        os.close(slave)
        os.close(master)
