"""Guard tests of the serial link, the display board and the serial transport (the ``drivers``
mutation guard, docs/testing.md), answering what survived in ``drivers/devices`` and
``drivers/transport``:

* an event that comes before the handshake is done is neither handed over nor acknowledged:
  the device sends it again, and it is handed over once the link is up, never before
  (``link.py``, ``_handle_packet``);
* a stretch of noise is logged with its first 64 bytes, never more: the fault log stays short
  however long the noise (``link.py``, ``frame_discarded``);
* a display board's error is reported with the board's own words when it gives them, else as
  ``display error: <code>`` (``display.py``, ``on_message``);
* a banner that did not reach a version-1 display board is sent again when it is asked for
  again: the driver never takes a failed send for a shown banner (``display.py``, ``_command``);
* a serial port over the network (``socket://``) whose far end hangs up is reported lost, as a
  :class:`TransportError` naming the port (``serial_port.py``, ``read``).
"""

from __future__ import annotations

import re
import socket
import threading

import pytest
from structlog.testing import capture_logs

from drivers.codec import display as display_wire
from drivers.codec import get_protocol
from drivers.codec.protocol import Boot, Identify, Message
from drivers.devices import DeviceTimeout, DisplayDriver, ShoeDriver
from drivers.devices.link import DeviceLink
from drivers.simulators import DisplaySimulator, ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from station import events as ev

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

# -- the link -----------------------------------------------------------------------------------


class _HandshakeHeld:
    """A frame monitor that holds the handshake's sender, once its Identify has gone out, until
    the device's Boot has come in twice: the link cannot be up while the Boot's first copy is
    handled, and a second copy means the first was not acknowledged."""

    def __init__(self) -> None:
        self.boots = 0
        self.resent = threading.Event()
        self.held: list[str] = []

    def __call__(self, direction: str, raw: bytes, decoded: object) -> None:
        if direction == "rx" and isinstance(decoded, Boot):  # on the reader's thread
            self.boots += 1
            if self.boots >= 2:
                self.resent.set()
        if direction == "tx" and isinstance(decoded, Identify) and not self.held:  # on the sender's
            self.held.append("identify")
            if not self.resent.wait(WAIT):
                self.held.append("the Boot was never sent again")


def test_an_event_before_the_handshake_is_neither_handed_over_nor_acknowledged(shoe: ShoeSimulator) -> None:
    """The shoe's power-on Boot comes in while the handshake is under way: the link drops it
    unacknowledged, the shoe resends it, and it is handed over once, with the link up."""
    held = _HandshakeHeld()
    delivered: list[bool] = []  # whether the link was up as each event was handed over
    link: DeviceLink

    def on_event(message: Message) -> None:
        delivered.append(link.connected)

    link = DeviceLink("shoe", SerialTransport(shoe.url), get_protocol("shoe"), on_event=on_event,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    link.add_tap(held)
    try:
        assert link.open() is None
        assert held.held == ["identify"]
        assert shoe.wait_idle(WAIT)  # the Boot is acknowledged at last
        wait_until(lambda: delivered, WAIT, "the Boot handed over")
        assert delivered == [True]
        assert link.stats.events_delivered == 1
    finally:
        link.stop()


def test_a_stretch_of_noise_is_logged_with_its_first_64_bytes(shoe: ShoeSimulator, rec: Recorder) -> None:
    """100 bytes outside any frame are counted in full; the fault log shows the first 64."""
    noise = bytes(range(0x20, 0x20 + 100))  # no frame's start among them: one stretch of noise
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert shoe.wait_idle(WAIT)  # the line is quiet
        with capture_logs() as logs:
            shoe.inject_garbage(noise)
            wait_until(lambda: driver.stats.noise_bytes >= len(noise), WAIT, "the noise counted")
        discarded = [entry for entry in logs if entry["event"] == "frame_discarded"]
        assert [(entry["fault"], entry["raw"]) for entry in discarded] == [("noise", noise[:64].hex(" "))]
        assert driver.stats.noise_bytes == len(noise)
    finally:
        driver.stop()


# -- the display board --------------------------------------------------------------------------


def test_a_display_error_is_reported_in_the_board_s_words_or_by_its_code(rec: Recorder) -> None:
    running = start_simulator("display", ack_timeout=0.05)
    board: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        board.panel_fault("LED panel 2 does not respond")
        board.panel_fault("")  # a board that gives only its code
        faults = rec.wait_kind(ev.DeviceFault, count=2)
        assert [(fault.reason, fault.code) for fault in faults] == [
            ("LED panel 2 does not respond", "panel_fault"),
            ("display error: panel_fault", "panel_fault"),
        ]
    finally:
        driver.stop()
        running.stop()


def test_a_banner_that_did_not_reach_a_version_1_board_is_sent_again(rec: Recorder) -> None:
    """The board hangs while a banner is sent: the send fails. Asked for the same banner once the
    board answers again, the driver sends it: the board never showed it."""
    running = start_simulator("display", ack_timeout=0.05, protocol_version=1)
    board: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert driver.link.peer_version == 1
        board.mute()
        with pytest.raises(DeviceTimeout):
            driver.show_message("Shoe offline")
        board.mute(False)
        assert board.commands(display_wire.ShowMessage) == []  # the hung board heard nothing
        driver.show_message("Shoe offline")
        assert board.commands(display_wire.ShowMessage) == [display_wire.ShowMessage("Shoe offline")]
        assert board.screen.message == "Shoe offline"
    finally:
        driver.stop()
        running.stop()


# -- the serial transport -----------------------------------------------------------------------


def test_a_network_serial_port_whose_far_end_hangs_up_is_reported_lost() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        url = f"socket://127.0.0.1:{server.getsockname()[1]}"
        transport = SerialTransport(url)
        try:
            transport.open()
            far_end, _ = server.accept()
            with far_end:
                far_end.sendall(b"\x55")
                assert wait_until(transport.read, WAIT, "the byte sent") == b"\x55"
            with pytest.raises(TransportError, match=f"^{re.escape(url)} lost: "):
                wait_until(transport.read, WAIT, "the hang-up noticed")
        finally:
            transport.close()
