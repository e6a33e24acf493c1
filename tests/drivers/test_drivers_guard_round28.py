"""Guard tests of the serial link, the chip reader, the display boards, the sign and the serial
transport, round 28 (the ``drivers`` mutation guard, docs/testing.md), each through the driver
against its simulator, the public check, or the transport on a pseudo-terminal.

Each test answers a mutant that survived the guard's tests:

* a program that ends without stopping a started chip reader still exits: the reader's re-sync
  worker never keeps the interpreter alive (``drivers/devices/chipreader.py``, ``start``);
* an inventory answered by a report that is not part 1 of the antenna asked for is a protocol
  error, never a read (``chipreader.py``, ``inventory``);
* a version-1 board is sent a banner once: the same banner asked for again, after it was shown,
  is not sent again (``drivers/devices/display.py``, ``_command``);
* a command asked of a link never connected is refused as not connected without taking a
  sequence number, and the first command a link sends carries seq 1
  (``drivers/devices/link.py``, ``__init__`` and ``request``);
* an intact response frame the station cannot read (type 0x80, the first response code) is no
  event: it is neither acknowledged nor reported as an undecodable event (``link.py``,
  ``_handle_error``);
* every heartbeat is counted once: the count never runs ahead of the pings sent by more than
  the one about to go (``link.py``, ``serve``);
* a sign amount is a u64: 2**64 is refused (``drivers/devices/sign.py``, ``check_amount``);
* writing to a serial transport that is not open is a TransportError; opening an open transport
  again does nothing (``drivers/transport/serial_port.py``, ``write`` and ``open``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import drivers
from drivers.codec import chipreader as wire
from drivers.codec import display as display_wire
from drivers.codec.framing import Frame, FrameDecoder, encode_frame
from drivers.codec.protocol import Ack, Boot, Identify, Message, Ping
from drivers.devices import ChipReaderDriver, DeviceUnavailable, DisplayDriver, ShoeDriver
from drivers.devices.errors import DeviceProtocolError
from drivers.devices.link import LinkSettings
from drivers.devices.sign import check_amount
from drivers.simulators import ChipReaderSimulator, DisplaySimulator, ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from station import events as ev
from station.chip_events import ChipsRead

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

#: The tree under test (the mutation tool's copy when it runs these tests).
ROOT = Path(drivers.__file__).resolve().parents[1]
#: How long a program that ends is given to exit (it takes about a second; generous under load,
#: and under the mutation tool's bound of a minute).
PROGRAM_TIMEOUT_S = 30

Rig = tuple[ChipReaderSimulator, ChipReaderDriver]


class _SentFrames:
    """A link tap keeping the (seq, what) of every frame the station sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, Message | None]] = []

    def __call__(self, direction: str, raw: bytes, decoded: object) -> None:
        if direction == "tx":
            message = decoded if isinstance(decoded, Message) else None
            for frame in FrameDecoder().feed(raw):
                if isinstance(frame, Frame):
                    self.sent.append((frame.seq, message))

    def acked(self) -> list[int]:
        return [seq for seq, message in self.sent if isinstance(message, Ack)]


@pytest.fixture
def shoe() -> Iterator[ShoeSimulator]:
    running = start_simulator("shoe", ack_timeout=0.05)
    try:
        yield running.simulator
    finally:
        running.stop()


# -- the chip reader ------------------------------------------------------------------------------


_LEAVES_A_READER_STARTED = textwrap.dedent("""
    import sys
    from drivers.devices import ChipReaderDriver
    from drivers.devices.link import LinkSettings

    driver = ChipReaderDriver("chipreader", sys.argv[1], lambda event: None,
                              settings=LinkSettings(heartbeat=60.0))
    print("started" if driver.start(10.0) else "not started", flush=True)
    # returns without driver.stop(): the re-sync worker is still waiting for work
""")


@pytest.mark.e2e
def test_a_program_that_ends_without_stopping_a_chip_reader_still_exits(reader: Rig) -> None:
    """A short program starts a chip reader driver (against the simulator) and ends without
    stopping it. It exits: the driver's re-sync worker never keeps the interpreter alive."""
    sim, driver = reader
    driver.stop()  # the reader is the program's now
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    try:
        done = subprocess.run([sys.executable, "-c", _LEAVES_A_READER_STARTED, sim.url], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a program that left a chip reader started did not exit within {PROGRAM_TIMEOUT_S} s")
    assert done.stdout.splitlines()[-1:] == ["started"], done.stdout + done.stderr
    assert done.returncode == 0, done.stderr


def test_an_inventory_answered_by_another_antenna_s_report_is_a_protocol_error(reader: Rig,
                                                                               rec: Recorder) -> None:
    """Antenna 4 is asked for; the reader answers with a report of antenna 3 (a firmware bug).
    That is no read of antenna 4: inventory raises DeviceProtocolError naming both, and no read
    carries the stranger's chip."""
    sim, driver = reader
    stack = sim.stack(4, 3)
    stray = 0xE004_0150_DEAD_BEEF
    sim.answer_wrongly(wire.Inventory, wire.InventoryReport(3, 1, 1, True, 0, (stray,)))
    with pytest.raises(DeviceProtocolError, match=r"Inventory\(4\) answered by part 1 of antenna 3"):
        driver.inventory(4)
    assert rec.of(ChipsRead) == []
    assert driver.inventory(4).uids == tuple(sorted(stack))  # the next round is read whole


# -- the display boards ---------------------------------------------------------------------------


def test_a_version_1_board_is_sent_the_same_banner_once(rec: Recorder) -> None:
    """A version-1 board keeps its banner: once a banner reached it, asking for the same banner
    again sends nothing; a different one is sent."""
    running = start_simulator("display", ack_timeout=0.05, protocol_version=1)
    sim: DisplaySimulator = running.simulator
    display = DisplayDriver("display", sim.url, rec, settings=FAST)
    try:
        assert display.start(WAIT)
        assert sim.wait_idle(WAIT)
        display.show_message("PLACE YOUR BETS")
        display.show_message("PLACE YOUR BETS")
        display.show_message("NO MORE BETS")
        shown = [message.text for message in sim.commands() if isinstance(message, display_wire.ShowMessage)]
        assert shown == ["PLACE YOUR BETS", "NO MORE BETS"]
    finally:
        display.stop()
        running.stop()


# -- the link -------------------------------------------------------------------------------------


def test_a_command_before_connecting_is_refused_and_the_first_command_sent_is_seq_1(
        shoe: ShoeSimulator, rec: Recorder) -> None:
    """A link never connected refuses a command as not connected, sending nothing and taking no
    sequence number; once it connects, its first command (the handshake's Identify) is seq 1."""
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    tap = _SentFrames()
    driver.link.add_tap(tap)
    try:
        with pytest.raises(DeviceUnavailable, match="shoe: not connected"):
            driver.link.request(Ping())
        assert tap.sent == []
        assert driver.start(WAIT)
        commands = [(seq, message) for seq, message in tap.sent if not isinstance(message, Ack)]
        assert commands[:1] == [(1, Identify())]
    finally:
        driver.stop()


def test_an_unreadable_response_frame_is_neither_acknowledged_nor_reported(shoe: ShoeSimulator,
                                                                          rec: Recorder) -> None:
    """An intact frame of type 0x80 (the first response code, none the shoe knows) arrives
    unasked: a response is never acknowledged and is no event, so no fault of an undecodable event
    is reported. An unreadable Boot (0x7F, an event) sent after it is both, which shows the first
    was handled by then."""
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    tap = _SentFrames()
    driver.link.add_tap(tap)
    try:
        assert driver.start(WAIT)
        assert shoe.wait_idle(WAIT)
        wait_until(lambda: driver.stats.events_delivered == 1, WAIT, "the power-on Boot handed over")
        shoe.inject_garbage(encode_frame(9, 0x80, b"\xff"))
        shoe.inject_garbage(encode_frame(10, Boot.TYPE, b"\x02\xff\xfe"))  # a reason not UTF-8
        faults = rec.wait_kind(ev.DeviceFault)
        wait_until(lambda: 10 in tap.acked(), WAIT, "the ACK of the unreadable Boot")
        assert 9 not in tap.acked()
        assert len(faults) == 1 and len(rec.of(ev.DeviceFault)) == 1
        assert "text is not valid UTF-8" in faults[0].reason
    finally:
        driver.stop()


def test_each_heartbeat_is_counted_once(shoe: ShoeSimulator, rec: Recorder) -> None:
    """A quiet link pings the device every heartbeat and counts each heartbeat once: the count
    is never more than one ahead (the ping about to go) of the pings sent."""
    settings = LinkSettings(reply_timeout=0.5, retries=3, reconnect_initial=0.02, reconnect_max=0.2,
                            heartbeat=0.05)
    driver = ShoeDriver("shoe", shoe.url, rec, settings=settings)
    tap = _SentFrames()
    driver.link.add_tap(tap)

    def pings() -> int:
        return sum(isinstance(message, Ping) for _, message in list(tap.sent))

    try:
        assert driver.start(WAIT)
        wait_until(lambda: pings() >= 3, WAIT, "three heartbeats sent")
        counted = driver.stats.heartbeats
        sent = pings()
        assert counted >= 1
        assert counted <= sent + 1, (counted, sent)
    finally:
        driver.stop()


# -- the sign -------------------------------------------------------------------------------------


def test_a_sign_amount_is_a_u64_of_minor_units() -> None:
    """The wire carries an amount as a u64: 2**64 - 1 is the largest, 2**64 is refused."""
    check_amount((1 << 64) - 1, 2)
    with pytest.raises(ValueError, match="is not a u64 of minor units"):
        check_amount(1 << 64, 2)


# -- the serial transport -------------------------------------------------------------------------


def test_writing_to_a_transport_not_open_is_a_transport_error() -> None:
    """A transport never opened (or closed) cannot be written to: TransportError saying so."""
    transport = SerialTransport("loop://")
    with pytest.raises(TransportError, match="loop:// is not open"):
        transport.write(b"\x02")


def test_opening_an_open_transport_again_keeps_its_port(shoe: ShoeSimulator) -> None:
    """Opening a transport that is open does nothing: it keeps its port (a second open of the
    same device, locked by the first, is never attempted) and still works."""
    transport = SerialTransport(shoe.url)
    try:
        transport.open()
        transport.open()
        assert transport.is_open
        transport.write(encode_frame(7, Ping.TYPE))
        got = bytearray()

        def answered() -> bool:
            got.extend(transport.read())
            return any(isinstance(item, Frame) and item.seq == 7 for item in FrameDecoder().feed(bytes(got)))

        wait_until(answered, WAIT, "the device's answer to the ping")
    finally:
        transport.close()
