"""Guard tests of the chip reader, the display board, the link, the reconnection loop, the jackpot
sign, the serial transport and the device URLs, round 21 (the ``drivers`` mutation guard,
docs/testing.md), each through the driver against its simulator, a scripted connection, or the
public function.

Each test answers a mutant that survived the guard's tests:

* the last antenna the wire can number (255) is an antenna like any other: a reader that has
  it is asked for it and its chips read (``drivers/devices/chipreader.py``, ``_check_antenna``);
* a setting given while the reader is away is only kept for it: nothing is tried on the absent
  link (no "setting pending" failure logged), and the reader gets it once back
  (``chipreader.py``, ``_apply``);
* a result whose outcome is none of banker, player or tie is the caller's mistake: a
  ValueError naming it, and nothing reaches the board (``drivers/devices/display.py``,
  ``_outcome``);
* a command is sent at most four times by default (the first attempt and three
  retransmissions) before the link gives up on it (``drivers/devices/link.py``,
  ``LinkSettings.retries``);
* a connection lost after it served is opened again at once, without the back-off; one that
  ended in a bug waits the initial back-off first (``drivers/devices/reconnect.py``, ``_run``);
* a sign amount is a u64 of minor units: 2**64 - 1 is shown, 2**64 and -1 are refused as a
  ValueError and never sent (``drivers/devices/sign.py``, ``check_amount``);
* reading a serial transport that is not open is a TransportError naming the port
  (``drivers/transport/serial_port.py``, ``read``);
* a card reader's ``evdev://`` URL that does not parse is a configuration problem, said in the
  parser's words (``drivers/transport/urls.py``, ``url_problem``);
* a device path is told from a malformed URL by what comes before its first ``/``: a
  ``/dev/serial/by-path/...`` path full of colons, or a bare ``COM3``, is a device path, while
  ``host:4000`` is neither a path nor a URL (``urls.py``, ``url_problem``).
"""

from __future__ import annotations

import threading
from collections.abc import MutableMapping
from typing import Any

import pytest
import structlog

from drivers.codec import chipreader as chip_wire
from drivers.codec import display as display_wire
from drivers.codec import sign as sign_wire
from drivers.devices import ChipReaderDriver, DeviceTimeout, DisplayDriver, SignDriver
from drivers.devices.link import LinkSettings
from drivers.devices.reconnect import DRIVER_ERROR, Backoff, Outage, ReconnectLoop
from drivers.devices.sign import check_amount
from drivers.devices.stats import DeviceStats
from drivers.simulators import SignSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from drivers.transport.urls import url_problem
from station import events as ev

from ..waiting import stays_false, wait_until
from .helpers import FAST, WAIT, Recorder

# -- the chip reader ------------------------------------------------------------------------------


def test_the_last_antenna_the_wire_numbers_is_read_like_any_other(rec: Recorder) -> None:
    """A reader with all 255 antennas the wire can number: antenna 255 is asked for and its
    chips read, never refused by the driver as out of range."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7, antennas=chip_wire.MAX_ANTENNAS)
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        running.simulator.place(chip_wire.MAX_ANTENNAS, "E004015012345678")
        read = driver.inventory(chip_wire.MAX_ANTENNAS)
        assert read.uids == ("E004015012345678",)
        assert running.simulator.commands(chip_wire.Inventory) == [chip_wire.Inventory(chip_wire.MAX_ANTENNAS)]
    finally:
        driver.stop()
        running.stop()


def test_a_setting_given_while_the_reader_is_away_is_kept_without_trying_the_link(rec: Recorder) -> None:
    """The reader is unplugged: set_mode and set_rf_power say False (not applied yet) without
    trying to send over the absent link, so no "setting pending" failure is logged; once the
    reader is back it has both."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert driver.wait_synced(WAIT)
        running.simulator.unplug()
        rec.wait_kind(ev.DeviceFault)
        assert not driver.connected
        with structlog.testing.capture_logs() as logs:
            assert driver.set_mode(True, 500) is False
            assert driver.set_rf_power(40) is False
        tried: list[MutableMapping[str, Any]] = [e for e in logs if e["event"] == "chipreader_setting_pending"]
        assert tried == []
        running.simulator.replug()
        assert driver.wait_synced(WAIT)
        wait_until(lambda: driver.connected, WAIT, "the reader back")
        info = driver.status()
        assert (info.continuous, info.period_ms, info.rf_power) == (True, 500, 40)
    finally:
        driver.stop()
        running.stop()


# -- the display board ----------------------------------------------------------------------------


def test_a_result_with_an_unknown_outcome_is_refused_and_the_board_is_sent_nothing(rec: Recorder) -> None:
    running = start_simulator("display", ack_timeout=0.05)
    driver = DisplayDriver("display", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        with pytest.raises(ValueError, match="unknown outcome 'dragon': use banker, player or tie"):
            driver.show_result("dragon", 8, 6, ["9H", "KS"], ["3C", "3D"], round_no=5)
        assert running.simulator.commands(display_wire.ShowResult) == []
        driver.show_result("player", 8, 6, ["9H", "KS"], ["3C", "3D"], round_no=6)  # a known one goes out
        (shown,) = running.simulator.commands(display_wire.ShowResult)
        assert isinstance(shown, display_wire.ShowResult)
        assert (shown.round_no, shown.outcome) == (6, display_wire.WireOutcome.PLAYER)
    finally:
        driver.stop()
        running.stop()


# -- the link -------------------------------------------------------------------------------------


def test_by_default_a_command_is_sent_four_times_before_the_link_gives_up(rec: Recorder) -> None:
    """Settings leaving ``retries`` at its default, a sign that stopped answering: the command
    goes out once and is retransmitted three times, then DeviceTimeout says 4 attempts."""
    settings = LinkSettings(reply_timeout=0.1, reconnect_initial=0.02, reconnect_max=0.2, heartbeat=600.0)
    running = start_simulator("sign", ack_timeout=0.05)
    sim: SignSimulator = running.simulator
    driver = SignDriver("sign", running.url, rec, settings=settings)
    try:
        assert driver.start(WAIT)
        before = driver.stats.retransmissions
        sim.mute()
        with pytest.raises(DeviceTimeout, match=r"no answer to \w+ after 4 attempt\(s\)"):
            driver.clear()
        assert driver.stats.retransmissions - before == 3
    finally:
        sim.mute(False)
        driver.stop()
        running.stop()


# -- the reconnection loop ------------------------------------------------------------------------


class _Scripted:
    """A connection that always opens; each serve ends as ``endings`` says, in turn (an Outage
    returned, or an exception raised), and once they are used up it serves until stopping."""

    def __init__(self, stopping: threading.Event, endings: list[Outage | Exception]) -> None:
        self.stopping = stopping
        self.endings = endings
        self.opens = 0

    def open(self) -> Outage | None:
        self.opens += 1
        return None

    def serve(self) -> Outage:
        if self.endings:
            ending = self.endings.pop(0)
            if isinstance(ending, Exception):
                raise ending
            return ending
        self.stopping.wait(WAIT)
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        pass


def _loop(connection: _Scripted, downs: list[Outage]) -> ReconnectLoop:
    """A loop whose back-off starts at an hour: any wait for it is plain to see."""
    return ReconnectLoop("scripted", connection, where="scripted://", backoff=Backoff(3600.0, 2.0, 3600.0),
                         stats=DeviceStats(), stopping=connection.stopping, on_down=downs.append,
                         on_up=lambda: None, recent_frames=list, thread_name="scripted-link")


def test_a_connection_lost_after_serving_is_opened_again_at_once_without_the_back_off() -> None:
    stopping = threading.Event()
    connection = _Scripted(stopping, [Outage("cable pulled", "link_lost")])
    downs: list[Outage] = []
    loop = _loop(connection, downs)
    loop.start()
    try:
        wait_until(lambda: connection.opens >= 2, WAIT, "the lost connection opened again")
        assert downs == [Outage("cable pulled", "link_lost")]
    finally:
        loop.stop()


def test_a_connection_whose_serving_met_a_bug_waits_the_initial_back_off_before_opening_again() -> None:
    """A bug must not spin the loop: after it, the next opening waits the back-off (an hour here)."""
    stopping = threading.Event()
    connection = _Scripted(stopping, [RuntimeError("a bug in the reader")])
    downs: list[Outage] = []
    loop = _loop(connection, downs)
    loop.start()
    try:
        wait_until(lambda: downs, WAIT, "the bug reported")
        assert downs[0].code == DRIVER_ERROR
        # a deliberate window: an eager loop would open again at once
        stays_false(lambda: connection.opens >= 2, 1.0, "the connection opened again without the back-off")
    finally:
        loop.stop()


# -- the jackpot sign -----------------------------------------------------------------------------


def test_a_sign_amount_is_a_u64_of_minor_units_and_one_beyond_is_never_sent(rec: Recorder) -> None:
    largest = (1 << 64) - 1
    check_amount(largest, 2)
    for beyond in (1 << 64, -1):
        with pytest.raises(ValueError, match=f"amount {beyond} is not a u64 of minor units"):
            check_amount(beyond, 2)
    running = start_simulator("sign", ack_timeout=0.05)
    driver = SignDriver("sign", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        for beyond in (1 << 64, -1):
            with pytest.raises(ValueError, match="is not a u64 of minor units"):
                driver.show_meter("Jackpot", beyond, 2, "EUR")
            with pytest.raises(ValueError, match="is not a u64 of minor units"):
                driver.show_hit("Jackpot", beyond, 2, "EUR", "3")
        driver.show_meter("Jackpot", largest, 2, "EUR")
        assert running.simulator.commands(sign_wire.ShowMeter) == [sign_wire.ShowMeter("Jackpot", largest, 2, "EUR")]
        assert running.simulator.commands(sign_wire.ShowHit) == []
    finally:
        driver.stop()
        running.stop()


# -- the serial transport and the device URLs -----------------------------------------------------


def test_reading_a_serial_transport_that_is_not_open_is_a_transport_error() -> None:
    transport = SerialTransport("loop://")
    with pytest.raises(TransportError, match="loop:// is not open"):
        transport.read()
    transport.open()
    transport.close()
    with pytest.raises(TransportError, match="loop:// is not open"):
        transport.read()


def test_a_card_reader_evdev_url_that_does_not_parse_is_a_problem_in_the_parser_s_words() -> None:
    assert url_problem("cardreader", "evdev://zz:9") == "evdev://zz:9: 'zz:9' is not VID:PID in hex (e.g. 0c45:7403)"
    assert url_problem("cardreader", "evdev://0c45:7403") is None


def test_a_device_path_is_told_from_a_malformed_url_by_what_comes_before_its_first_slash() -> None:
    by_path = "/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0"
    assert url_problem("shoe", by_path) is None
    assert url_problem("shoe", "COM3") is None
    assert url_problem("shoe", "host:4000") == "'host:4000' is neither a device path nor a URL (scheme://...)"
    assert url_problem("shoe", "host:4000/x") == "'host:4000/x' is neither a device path nor a URL (scheme://...)"

