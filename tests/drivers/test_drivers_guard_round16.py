"""Guard tests of the serial link and the serial transport (the ``drivers`` mutation guard,
docs/testing.md), answering what survived in ``drivers/devices/link.py`` and
``drivers/transport/serial_port.py``:

* a command the device's protocol version does not have is refused as a protocol error before
  anything is written: no frame goes out, and the link carries on (``link.py``, ``request``);
* an intact Boot whose payload cannot be read (type 0x7F, the last event code) is still an event
  frame: it is acknowledged, so the device stops resending it, and reported as a protocol fault,
  never handed over (``link.py``, ``_handle_error``);
* closing a link waits for its reader: an event being handed over when the link is closed is
  finished before ``close()`` returns; closing a link that was never opened, or closing it
  again, is quiet (``link.py``, ``close``);
* a write the serial port fails (the far end of the line gone) is reported as the transport's
  failure, never taken for bytes sent (``serial_port.py``, ``write``).
"""

from __future__ import annotations

import os
import re
import threading

import pytest

from drivers.codec import display as display_wire
from drivers.codec import get_protocol
from drivers.codec import shoe as shoe_wire
from drivers.codec.framing import Frame, FrameDecoder, encode_frame
from drivers.codec.protocol import Ack, Boot, CodecError, Message, Ping
from drivers.devices import ShoeDriver
from drivers.devices.errors import DeviceProtocolError
from drivers.devices.link import DeviceLink
from drivers.simulators import DisplaySimulator, ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from station import events as ev
from station.cards import Card, parse_cards

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

# -- a command the device's version lacks --------------------------------------------------------


def test_a_command_the_board_s_version_lacks_is_refused_before_anything_is_sent() -> None:
    """ShowWarResult is a version-2 display command. Asked of a link to a board that announced
    version 1, it is a DeviceProtocolError naming the version; no frame goes out, the board
    hears nothing, and the next command goes through as usual."""
    running = start_simulator("display", ack_timeout=0.05, protocol_version=1)
    board: DisplaySimulator = running.simulator
    link = DeviceLink("display", SerialTransport(running.url), get_protocol("display"),
                      on_event=lambda message: None, on_down=lambda reason, code: None,
                      on_up=lambda identity: None, settings=FAST)
    try:
        assert link.open() is None
        assert link.peer_version == 1
        sent = link.stats.frames_out
        war = display_wire.ShowWarResult(1, Card.parse("KH"), ())
        with pytest.raises(DeviceProtocolError, match="ShowWarResult is not in display protocol version 1"):
            link.request(war)
        assert link.stats.frames_out == sent  # nothing written
        assert board.commands(display_wire.ShowWarResult) == []
        assert isinstance(link.request(Ping()), Message)  # the link carries on
        assert link.connected
    finally:
        link.stop()
        running.stop()


# -- an undecodable Boot -------------------------------------------------------------------------


class _SentAcks:
    """A tap on the link: the sequence numbers of the ACKs it wrote, in order."""

    def __init__(self) -> None:
        self.seqs: list[int] = []

    def __call__(self, direction: str, raw: bytes, decoded: Message | CodecError | None) -> None:
        if direction == "tx" and isinstance(decoded, Ack):
            frames = [item for item in FrameDecoder().feed(raw) if isinstance(item, Frame)]
            self.seqs.extend(frame.seq for frame in frames)


def test_an_intact_boot_the_station_cannot_read_is_acknowledged_and_reported(shoe: ShoeSimulator,
                                                                             rec: Recorder) -> None:
    """A Boot (type 0x7F, the last of the event codes) whose reason is not valid UTF-8 arrives
    intact: resending will not make it readable, so the link ACKs it, and the driver reports a
    protocol fault; nothing is handed over as an event."""
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    acks = _SentAcks()
    driver.link.add_tap(acks)
    try:
        assert driver.start(WAIT)
        assert shoe.wait_idle(WAIT)  # the power-on Boot (seq 1) is acknowledged
        wait_until(lambda: driver.stats.events_delivered == 1, WAIT, "the power-on Boot handed over")
        assert Boot.TYPE == 0x7F
        shoe.inject_garbage(encode_frame(9, Boot.TYPE, b"\x02\xff\xfe"))  # a reason of 2 bytes, not UTF-8
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "protocol_error"
        assert "text is not valid UTF-8" in fault.reason
        wait_until(lambda: 9 in acks.seqs, WAIT, "the ACK of the unreadable Boot")
        assert acks.seqs.count(9) == 1
        assert driver.stats.events_delivered == 1  # never handed over
    finally:
        driver.stop()


# -- closing the link ----------------------------------------------------------------------------


class _HeldHandler:
    """A link's event handler that holds the reader in the first card until released."""

    def __init__(self) -> None:
        self.in_card = threading.Event()
        self.release = threading.Event()
        self.card_done = threading.Event()

    def __call__(self, message: Message) -> None:
        if isinstance(message, shoe_wire.CardRead) and not self.in_card.is_set():
            self.in_card.set()
            self.release.wait(WAIT)
            self.card_done.set()


def test_closing_a_link_waits_for_the_event_being_handed_over(shoe: ShoeSimulator) -> None:
    """The link is closed (to be opened again) while its reader is handing a card over: close()
    returns only once that card is done, so nothing is handed over from a closed link."""
    handler = _HeldHandler()
    link = DeviceLink("shoe-closing", SerialTransport(shoe.url), get_protocol("shoe"), on_event=handler,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    releaser = threading.Timer(0.3, handler.release.set)
    try:
        assert link.open() is None
        shoe.load(parse_cards("AS"))
        shoe.draw()
        assert handler.in_card.wait(WAIT)  # the reader is inside the handler with the card
        releaser.start()
        link.close(final=False)
        assert handler.card_done.is_set()
        assert not any(t.name == "shoe-closing-reader" and t.is_alive() for t in threading.enumerate())
        assert not link.connected
    finally:
        handler.release.set()
        if releaser.is_alive():
            releaser.join()
        link.stop()


def test_closing_a_link_never_opened_or_already_closed_is_quiet(shoe: ShoeSimulator) -> None:
    """A close with no reader to wait for (never opened, or closed already) just closes: no
    error, and the link can still be opened afterwards."""
    link = DeviceLink("shoe", SerialTransport(shoe.url), get_protocol("shoe"), on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    try:
        link.close(final=False)  # never opened
        assert link.open() is None
        link.close(final=False)
        link.close(final=False)  # again
        assert not link.connected
        assert link.open() is None  # opened again after it all
        assert isinstance(link.request(Ping()), Message)
    finally:
        link.stop()


# -- the serial transport ------------------------------------------------------------------------


def test_a_write_to_a_line_whose_far_end_is_gone_is_reported_failed() -> None:
    """The far end of the line (the pseudo-terminal's master) is closed: a write to the port is
    a TransportError saying the write failed, never a silent success."""
    master, slave = os.openpty()
    port = SerialTransport(os.ttyname(slave))
    try:
        port.open()
        port.write(b"\x55")  # the line works while its far end is there
        assert os.read(master, 1) == b"\x55"
        os.close(master)
        master = -1
        with pytest.raises(TransportError, match=f"^{re.escape(port.url)} write failed: "):
            port.write(b"\x55")
    finally:
        port.close()
        os.close(slave)
        if master != -1:
            os.close(master)
