"""Guard tests of the serial link and the serial devices' drivers (the ``drivers`` mutation
guard, docs/testing.md), answering what survived in ``drivers/devices``:

* a command whose link is lost before it returns reports the link lost, even when its answer
  had already come in: nothing is taken from a link that is gone (``link.py``, ``request``);
* a Boot resent exactly at the edge of the resend window is still a resend, dropped and
  counted: only a Boot *past* the window is a new power-up (``link.py``, the Boot resend window);
* an idle link's supervisor sleeps until its heartbeat is due, never polling the link between
  (``link.py``, ``serve``);
* the chip reader takes the longest period of continuous reading and the full RF power (100 %):
  the ranges' ends are in them (``chipreader.py``);
* an amount for the progressive sign that is not a whole number of minor units is refused as
  the caller's mistake before anything else, even while the sign is away (``sign.py``);
* a version-1 display board is shown table limits in whole units of the currency, never the
  version-2 command it cannot decode (``display_v1.py``, ``BoardV1.translate``);
* a card reader is configured only with an ``evdev:`` locator: anything else is refused at once,
  by name (``cardreader.py``, ``from_config``).
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from drivers.codec import chipreader as chip_wire
from drivers.codec import display as display_wire
from drivers.codec import get_protocol
from drivers.codec.protocol import Ack, Identify, IdentityReport, Ping
from drivers.devices import ChipReaderDriver, DisplayDriver, ShoeDriver
from drivers.devices.cardreader import CardReaderDriver
from drivers.devices.errors import DeviceUnavailable
from drivers.devices.link import BOOT_RESEND_WINDOW_S, DeviceLink
from drivers.devices.reconnect import Outage
from drivers.devices.sign import SignDriver
from drivers.simulators import ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from drivers.usb.locator import PedalLocator
from station import events as ev

from ..waiting import stays_false
from .helpers import FAST, WAIT, Recorder

# -- the link -----------------------------------------------------------------------------------


class _PulledAfterTheAnswer(SerialTransport):
    """A real serial port whose cable is pulled once the device's answer has been read: the
    read after the one that brought the answer fails."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.answered = threading.Event()  # the answer is being handed over by the link's reader
        self.pulled = threading.Event()
        self.reader: threading.Thread | None = None  # the thread the failed read was made on

    def read(self) -> bytes:
        if self.answered.is_set():  # the reader is done with the read that brought the answer
            self.reader = threading.current_thread()
            self.pulled.set()
            raise TransportError("cable pulled")
        return super().read()


def test_a_command_whose_link_is_lost_before_it_returns_reports_the_link_lost(shoe: ShoeSimulator) -> None:
    """The Ping's ACK comes in, then the cable is pulled before the command has returned (its
    sender is held in a frame monitor after the Ping went out): the command says the link was
    lost, never that the device answered."""
    transport = _PulledAfterTheAnswer(shoe.url)
    link = DeviceLink("shoe", transport, get_protocol("shoe"), on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    held: list[str] = []

    def monitor(direction: str, raw: bytes, decoded: object) -> None:
        if direction == "rx" and isinstance(decoded, Ack):
            transport.answered.set()
        if direction == "tx" and isinstance(decoded, Ping):  # on the sender's thread, the Ping written
            held.append("ping")
            if not transport.pulled.wait(WAIT) or transport.reader is None:
                held.append("the cable was never pulled")
                return
            transport.reader.join(WAIT)  # the reader has told the link of its loss and ended

    try:
        assert link.open() is None
        assert isinstance(link.request(Identify()), IdentityReport)
        link.add_tap(monitor)
        with pytest.raises(DeviceUnavailable, match="link lost during Ping"):
            link.request(Ping())
        assert held == ["ping"]
        assert link.serve() == Outage("cable pulled", "link_lost")
    finally:
        link.stop()


class _TickingClock:
    """The link's clock, moved on by the test, and by ``tick`` more at each reading (the link
    reads it once for each copy of a Boot it takes)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.tick = 0.0

    def __call__(self) -> float:
        now = self.now
        self.now += self.tick
        return now


def test_a_boot_resent_exactly_at_the_window_s_edge_is_a_resend(shoe: ShoeSimulator, rec: Recorder) -> None:
    clock = _TickingClock()
    driver = ShoeDriver("shoe", shoe.url, rec, settings=FAST, clock=clock)
    try:
        assert driver.start(WAIT)
        assert shoe.wait_idle(WAIT)  # the power-on Boot (seq 1) is in
        clock.now += 10 * BOOT_RESEND_WINDOW_S  # the restart's first Boot is a new power-up
        clock.tick = BOOT_RESEND_WINDOW_S  # each copy comes the whole window after the one before
        before = driver.stats.duplicates
        shoe.ignore_acks(1)  # the restarted shoe misses the ACK of its Boot (seq 1 again) and resends it
        shoe.reboot("watchdog reset")
        assert shoe.wait_idle(WAIT)
        assert shoe.stats.retransmissions >= 1
        assert driver.stats.duplicates >= before + 1
        assert driver.stats.events_delivered == 2  # the power-on Boot and the restart's, once each
    finally:
        driver.stop()


def _sleeps(thread: threading.Thread) -> int:
    """How many times ``thread`` has gone to sleep (the kernel's voluntary context switches)."""
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("voluntary_ctxt_switches")))


def test_an_idle_link_s_supervisor_sleeps_until_the_heartbeat_is_due(shoe: ShoeSimulator) -> None:
    """A link with nothing to say wakes for its heartbeat, not every few milliseconds."""
    if not Path("/proc/self/task").is_dir():
        pytest.skip("the kernel's per-thread counts (/proc) are Linux's")
    settings = dataclasses.replace(FAST, heartbeat=60.0)  # not due while the test watches
    link = DeviceLink("shoe", SerialTransport(shoe.url), get_protocol("shoe"), on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=settings)
    outcome: list[Outage] = []
    supervisor = threading.Thread(target=lambda: outcome.append(link.serve()), name="shoe-serve", daemon=True)
    try:
        assert link.open() is None
        assert shoe.wait_idle(WAIT)  # the power-on Boot is acknowledged: the link is quiet now
        supervisor.start()
        first = _sleeps(supervisor)
        # a deliberate window, the length being what is tested: a polling loop sleeps ~100 times a second
        stays_false(lambda: _sleeps(supervisor) - first > 5, 1.0, "the idle link's supervisor kept waking")
    finally:
        link.close(final=False)
        supervisor.join(WAIT)
        link.stop()
    assert outcome == [Outage("closed", "link_lost")]
    assert link.stats.heartbeats == 0


# -- the devices --------------------------------------------------------------------------------


def test_the_chip_reader_takes_the_ends_of_its_period_and_power_ranges(rec: Recorder) -> None:
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    driver = ChipReaderDriver("chipreader", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert driver.wait_synced(WAIT)
        assert driver.set_rf_power(100)
        assert driver.set_mode(True, chip_wire.MAX_PERIOD_MS)  # a pass a minute
        info = driver.status()
        assert (info.continuous, info.period_ms, info.rf_power) == (True, chip_wire.MAX_PERIOD_MS, 100)
        assert driver.set_rf_power(1) and driver.set_mode(True, chip_wire.MIN_PERIOD_MS)
        info = driver.status()
        assert (info.period_ms, info.rf_power) == (chip_wire.MIN_PERIOD_MS, 1)
        assert driver.set_mode(False)  # only when asked: the period means nothing and goes as 0
        assert running.simulator.commands()[-1] == chip_wire.SetMode(False, 0)
        assert (driver.status().continuous, driver.status().period_ms) == (False, 0)
    finally:
        driver.stop()
        running.stop()


def test_a_sign_amount_of_the_wrong_type_is_the_caller_s_mistake_even_while_the_sign_is_away(
        rec: Recorder) -> None:
    running = start_simulator("sign", ack_timeout=0.05)
    driver = SignDriver("sign", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        running.simulator.unplug()
        rec.wait_kind(ev.DeviceFault)
        for amount, digits, wrong in ((1000.0, 2, "amount"), (True, 2, "amount"), (1000, 2.0, "digits")):
            with pytest.raises(TypeError, match=f"a sign's {wrong} is an integer"):
                driver.show_meter("Jackpot", amount, digits, "EUR")  # type: ignore[arg-type]  # the wrong types tested
            with pytest.raises(TypeError, match=f"a sign's {wrong} is an integer"):
                driver.show_hit("Jackpot", amount, digits, "EUR", "3")  # type: ignore[arg-type]
    finally:
        driver.stop()
        running.stop()


def test_a_version_1_board_is_shown_limits_in_whole_units(rec: Recorder) -> None:
    """10.50 to 5,000.00 (a tie 5.00 to 500.99) is shown 11 to 5,000 (5 to 500): whole units,
    never wider than what the table takes."""
    running = start_simulator("display", ack_timeout=0.05, protocol_version=1)
    driver = DisplayDriver("display", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        driver.show_limits(1050, 500000, tie_min=500, tie_max=50099, currency="EUR", minor_digits=2)
        shown = running.simulator.commands(display_wire.ShowLimits)
        assert shown == [display_wire.ShowLimits(11, 5000, 5, 500, 0, 0, "EUR")]
    finally:
        driver.stop()
        running.stop()


def test_a_card_reader_is_configured_only_with_an_evdev_locator() -> None:
    with pytest.raises(TypeError, match="cardreader: a card reader is opened by an evdev: locator, not "):
        CardReaderDriver.from_config("cardreader", PedalLocator(serial="PED-0001"), lambda event: None,
                                     baudrate=9600)
