"""Guard tests of the serial link, the serial devices' drivers and the serial transport (the
``drivers`` mutation guard, docs/testing.md), answering what survived in ``drivers/devices`` and
``drivers/transport``:

* the link's counters are exact: ``frames_in`` is every intact frame the device sent, once,
  ``frames_out`` every frame the station sent, ACKs included (docs/drivers.md, "One set of
  counters"; ``station diag`` shows them to a technician) (``link.py``);
* the ring of recent frames a fault report shows holds the last 32 frames, no more
  (docs/drivers.md: ``ring_size`` (32 frames)) (``link.py``);
* a device that never answers the handshake is reported ``handshake_failed``, a fault of the
  device, never a fault of the driver's code (``link.py``, ``open``);
* a connection whose opening fails with an unexpected error is closed to be tried again, not
  given back for good: only the loop's end closes it finally (``reconnect.py``);
* a serial driver is configured only with a port path or URL: anything else is refused at once,
  by name (``base.py``, ``from_config``);
* the chip reader's ``stop()`` returns only once its resync worker is done (``chipreader.py``);
* while the chip reader is away its driver waits for it to come back before sending it its mode
  again: no re-application is tried (and logged failed) against an absent reader
  (``chipreader.py``, the resync worker);
* a byte that arrives on a URL port (``loop://``, ``socket://``) while the transport waits is
  handed over at once, never held until the read timeout (``serial_port.py``, ``read``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import MutableMapping
from typing import Any

import pytest
import structlog

from drivers.codec import chipreader as chip_wire
from drivers.codec import get_protocol
from drivers.codec.protocol import Ack, CodecError, Ping
from drivers.devices import ChipReaderDriver, ShoeDriver
from drivers.devices.link import DeviceLink
from drivers.devices.reconnect import DRIVER_ERROR, Backoff, Outage, ReconnectLoop
from drivers.devices.stats import DeviceStats
from drivers.simulators import ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport
from drivers.usb.locator import PedalLocator
from station import events as ev
from station.cards import parse_cards

from ..waiting import stays_false, wait_until
from .helpers import FAST, WAIT, Recorder


class _FrameLog:
    """A tap keeping every frame on a link, in order: (direction, raw bytes, decoded)."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, bytes, object]] = []

    def __call__(self, direction: str, raw: bytes, decoded: object) -> None:
        self.frames.append((direction, raw, decoded))

    def intact_in(self) -> int:
        return sum(1 for d, _, decoded in self.frames if d == "rx" and not isinstance(decoded, CodecError))

    def out(self) -> int:
        return sum(1 for d, _, _ in self.frames if d == "tx")


def _tapped_link(shoe: ShoeSimulator, frames: _FrameLog) -> DeviceLink:
    """A link opened on its own, its tap in place before the handshake: the tap sees every frame."""
    link = DeviceLink("shoe", SerialTransport(shoe.url), get_protocol("shoe"), on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    link.add_tap(frames)
    assert link.open() is None
    return link


# -- the link's counters and its ring of recent frames -------------------------------------------


def test_the_link_counts_every_frame_in_and_out_once_acks_included(shoe: ShoeSimulator) -> None:
    """The handshake, the power-on Boot and three cards (each ACKed), a Ping: ``frames_in`` is the
    intact frames the device sent, ``frames_out`` the frames the station sent, exactly."""
    frames = _FrameLog()
    link = _tapped_link(shoe, frames)
    try:
        shoe.load(parse_cards("AS KD 9H"))
        for _ in range(3):
            shoe.draw()
        assert shoe.wait_idle(WAIT)  # every event is in and acknowledged
        assert isinstance(link.request(Ping()), Ack)  # the reader is past every ACK it wrote before the answer
        acks_sent = sum(1 for d, _, decoded in frames.frames if d == "tx" and isinstance(decoded, Ack))
        assert acks_sent >= 4  # the Boot and the three cards, each at least once
        assert frames.intact_in() >= acks_sent + 2  # each event acknowledged, and the two answers
        assert (link.stats.frames_in, link.stats.frames_out) == (frames.intact_in(), frames.out())
        assert link.stats.frames_out == acks_sent + 2  # the Identify and the Ping
    finally:
        link.stop()


def test_the_fault_report_s_ring_keeps_the_last_32_frames(shoe: ShoeSimulator) -> None:
    frames = _FrameLog()
    link = _tapped_link(shoe, frames)
    try:
        assert shoe.wait_idle(WAIT)
        for _ in range(20):
            assert isinstance(link.request(Ping()), Ack)
        assert len(frames.frames) > 40
        kept = link.recent_frames()
        assert len(kept) == 32
        # The newest of each direction, in order (the Pings are written by this thread, their
        # answers read by the link's reader: which of a Ping and its answer is noted first may vary).
        for way in ("tx", "rx"):
            mine = [hexed for _, direction, hexed, _ in kept if direction == way]
            sent = [raw.hex(" ") for direction, raw, _ in frames.frames if direction == way]
            assert mine == sent[-len(mine):]
    finally:
        link.stop()


# -- outages --------------------------------------------------------------------------------------


def test_a_device_that_never_answers_the_handshake_is_reported_handshake_failed(shoe: ShoeSimulator,
                                                                               rec: Recorder) -> None:
    """A hung shoe, still plugged in: the fault is the device's (``handshake_failed``, saying
    no answer came), not an error in the driver's code."""
    shoe.mute()
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST)
    try:
        assert not driver.start(None)
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "handshake_failed"
        assert fault.reason == "handshake failed: shoe: no answer to Identify after 4 attempt(s)"
    finally:
        driver.stop()


class _FailsOnceToOpen:
    """A connection whose first opening meets a bug (an unexpected exception); it opens the
    second time and is then served until the loop stops."""

    def __init__(self, stopping: threading.Event) -> None:
        self.stopping = stopping
        self.opens = 0
        self.closes: list[bool] = []  # the ``final`` of each close, in order
        self.serving = threading.Event()

    def open(self) -> Outage | None:
        self.opens += 1
        if self.opens == 1:
            raise RuntimeError("a bug in the greeting")
        return None

    def serve(self) -> Outage:
        self.serving.set()
        self.stopping.wait(WAIT)
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        self.closes.append(final)


def test_a_connection_whose_opening_meets_a_bug_is_closed_for_a_retry_not_given_back() -> None:
    stopping = threading.Event()
    connection = _FailsOnceToOpen(stopping)
    downs: list[Outage] = []
    loop = ReconnectLoop("scripted", connection, where="scripted://", backoff=Backoff(0.01, 2.0, 0.05),
                         stats=DeviceStats(), stopping=stopping, on_down=downs.append, on_up=lambda: None,
                         recent_frames=list, thread_name="scripted-link")
    loop.start()
    try:
        assert connection.serving.wait(WAIT)  # tried again, and open
        assert connection.closes == [False]  # the failed opening, closed to be retried
        assert downs == [Outage("unexpected error connecting to scripted: RuntimeError('a bug in the greeting')",
                                DRIVER_ERROR)]
    finally:
        loop.stop()
    assert connection.closes == [False, True]  # given back only on the way out


def test_a_serial_driver_is_configured_only_with_a_port_path_or_url() -> None:
    with pytest.raises(TypeError, match="shoe: a serial device is opened by port path or URL, not PedalLocator"):
        ShoeDriver.from_config("shoe", PedalLocator(serial="PED-0001"), lambda event: None, baudrate=115200)


# -- the chip reader --------------------------------------------------------------------------------


class _HoldsTheAntennaListRequest:
    """A tap that holds the thread sending the first GetAntennas (the resync worker, on
    connecting) after its frame went out, until released or 2 s have passed."""

    def __init__(self) -> None:
        self.held = threading.Event()
        self.release = threading.Event()
        self.sender: threading.Thread | None = None

    def __call__(self, direction: str, raw: bytes, decoded: object) -> None:
        if direction == "tx" and isinstance(decoded, chip_wire.GetAntennas) and not self.held.is_set():
            self.sender = threading.current_thread()
            self.held.set()
            # a deliberate hold, shorter than stop()'s 5 s wait for the worker: stop() is called meanwhile
            self.release.wait(2.0)


def test_stopping_the_chip_reader_waits_for_its_resync_worker(rec: Recorder) -> None:
    """stop() is called while the worker is in the middle of reading the antenna list: it
    returns once the worker is done, never leaving it running behind it."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    hold = _HoldsTheAntennaListRequest()
    driver.add_tap(hold)
    try:
        driver.start(None)
        assert hold.held.wait(WAIT)
        assert hold.sender is not None
        driver.stop()
        assert not hold.sender.is_alive()
    finally:
        hold.release.set()
        driver.stop()
        running.stop()


def test_the_chip_reader_s_driver_waits_for_an_absent_reader_before_sending_it_its_mode(rec: Recorder) -> None:
    """The reader is unplugged when the driver starts with a mode to send: nothing is tried (no
    failed re-application logged) while it is away; once it is back it is sent its mode."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    running.simulator.unplug()
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        with structlog.testing.capture_logs() as logs:
            assert driver.set_mode(True, 500) is False  # kept for when the reader answers
            assert not driver.start(None)
            rec.wait_kind(ev.DeviceFault)

            def retried() -> list[MutableMapping[str, Any]]:
                return [entry for entry in logs if entry["event"] == "chipreader_resync_failed"]

            # a deliberate window, its length being what is tested: an eager worker retries every 0.5 s
            stays_false(retried, 1.5, "a re-application was tried against the absent reader", detail=retried)
        running.simulator.replug()
        assert driver.wait_synced(WAIT)
        info = driver.status()
        assert (info.continuous, info.period_ms) == (True, 500)
    finally:
        driver.stop()
        running.stop()


# -- the serial transport -----------------------------------------------------------------------------


def _inside_the_port_s_read(thread: threading.Thread) -> bool:
    """Whether ``thread`` is waiting inside pyserial's ``loop://`` read (the interpreter's own
    view of the thread's stack: the only way to know it is blocked there, not about to be)."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "read" and frame.f_code.co_filename.endswith("protocol_loop.py"):
            return True
        frame = frame.f_back
    return False


def test_a_lone_byte_on_a_url_port_is_handed_over_at_once_not_after_the_read_timeout() -> None:
    """The transport waits on an empty ``loop://`` port (its read timeout a minute); one byte
    arrives: the waiting read returns it, without waiting for a second byte or the timeout."""
    transport = SerialTransport("loop://", read_timeout=60.0)
    transport.open()
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(transport.read()), name="loop-reader", daemon=True)
    try:
        reader.start()
        wait_until(lambda: _inside_the_port_s_read(reader), WAIT, "the read waiting on the empty port")
        transport.write(b"\x7e")
        wait_until(lambda: got, WAIT, "the byte handed over")
        assert got == [b"\x7e"]
    finally:
        transport.close()  # ends a read still waiting
        reader.join(WAIT)

