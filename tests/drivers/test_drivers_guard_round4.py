"""Guard tests of the serial link and the key names (the ``drivers`` mutation guard,
docs/testing.md), answering what survived the guard's second sample and its rerun:

* ``stop()`` returns only once the link's reader is done: an event being handed over when a
  link opened on its own is stopped is finished before ``stop()`` returns, never after it
  (``drivers/devices/link.py``, the reader's join);
* a Boot resent because its ACK was lost is a duplicate, dropped and counted, even from a device
  that has just restarted (link.py, the Boot resend window);
* a link lost for one reason keeps that reason, whatever else fails after it (an ACK that cannot
  be written, a close): the fault a technician reads names the first cause (link.py,
  ``_signal_lost``);
* a key the kernel knows by several names is shown by all of them (``drivers/input/keys.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from drivers.codec import get_protocol
from drivers.codec import shoe as wire
from drivers.codec.protocol import Identify, IdentityReport, Message, Ping
from drivers.devices import ShoeDriver
from drivers.devices.errors import DeviceUnavailable
from drivers.devices.link import BOOT_RESEND_WINDOW_S, DeviceLink
from drivers.devices.reconnect import Outage
from drivers.input.keys import key_name
from drivers.simulators import ShoeSimulator, start_simulator
from drivers.transport.serial_port import SerialTransport, TransportError
from station.cards import parse_cards

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def sim() -> Iterator[ShoeSimulator]:
    running = start_simulator("shoe", ack_timeout=0.05)
    yield running.simulator
    running.stop()


class _HeldHandler:
    """A link's event handler that holds the reader in the first card until released."""

    def __init__(self) -> None:
        self.in_card = threading.Event()
        self.release = threading.Event()
        self.card_done = threading.Event()

    def __call__(self, message: Message) -> None:
        if isinstance(message, wire.CardRead) and not self.in_card.is_set():
            self.in_card.set()
            self.release.wait(WAIT)
            self.card_done.set()


def test_stop_returns_once_the_event_being_handed_over_is_done(sim: ShoeSimulator) -> None:
    """A link opened on its own (a one-off probe, not under its reconnect loop): stop() waits
    for the reader, so nothing is handed over after it returns."""
    handler = _HeldHandler()
    link = DeviceLink("shoe-held", SerialTransport(sim.url), get_protocol("shoe"), on_event=handler,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    assert link.open() is None
    sim.load(parse_cards("AS"))
    sim.draw()
    assert handler.in_card.wait(WAIT)  # the reader is inside the handler with the card
    releaser = threading.Timer(0.3, handler.release.set)
    releaser.start()
    try:
        link.stop()
        assert handler.card_done.is_set()
        assert not any(t.name == "shoe-held-reader" and t.is_alive() for t in threading.enumerate())
    finally:
        handler.release.set()
        releaser.join()


class _SteppedClock:
    """The link's clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_boot_resent_for_a_lost_ack_after_a_restart_is_dropped_as_a_duplicate(sim: ShoeSimulator,
                                                                                rec: Recorder) -> None:
    clock = _SteppedClock()
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST, clock=clock)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)  # the power-on Boot (seq 1) is in
        clock.now += BOOT_RESEND_WINDOW_S + 0.1  # long enough for the next Boot to be a new power-up
        before = driver.stats.duplicates
        sim.ignore_acks(1)  # the restarted shoe misses the ACK of its Boot (seq 1 again) and resends it
        sim.reboot("watchdog reset")
        assert sim.wait_idle(WAIT)
        assert sim.stats.retransmissions >= 1
        # The first copy is the new power-up (past the window); its resend, at the same clock
        # time, is a duplicate.
        assert driver.stats.duplicates == before + 1
        assert driver.stats.events_delivered == 2  # the power-on Boot and the restart's, once each
    finally:
        driver.stop()


class _FailingWrites(SerialTransport):
    """A real serial port whose writes fail, each with its own numbered reason, once told to."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.failing = False
        self.failed: list[str] = []

    def write(self, data: bytes) -> None:
        if self.failing:
            self.failed.append(f"write {len(self.failed) + 1} failed")
            raise TransportError(self.failed[-1])
        super().write(data)


def test_a_lost_link_keeps_the_first_reason_whatever_fails_after_it(sim: ShoeSimulator) -> None:
    """The command's write fails first; then the ACK of an event that arrives cannot be written
    either, and the link is closed: the outage still names the first failure."""
    transport = _FailingWrites(sim.url)
    heard: list[object] = []
    link = DeviceLink("shoe", transport, get_protocol("shoe"), on_event=heard.append,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=FAST)
    assert link.open() is None
    assert isinstance(link.request(Identify()), IdentityReport)
    assert sim.wait_idle(WAIT)  # the power-on Boot is acknowledged: nothing more to come
    delivered = link.stats.events_delivered
    transport.failing = True
    with pytest.raises(DeviceUnavailable, match="write 1 failed"):
        link.request(Ping())
    sim.load(parse_cards("AS"))  # an event the reader hands over and then cannot acknowledge
    wait_until(lambda: len(transport.failed) == 2, WAIT, "the failed ACK")
    assert link.stats.events_delivered == delivered + 1
    link.close(final=False)
    assert link.serve() == Outage("write 1 failed", "link_lost")


def test_a_key_with_several_kernel_names_is_shown_by_all_of_them() -> None:
    pytest.importorskip("evdev", reason="python-evdev is not installed")
    assert key_name(113) == "KEY_MIN_INTERESTING/KEY_MUTE"  # the kernel's alphabetical order
    assert key_name(304) == "BTN_A/BTN_GAMEPAD/BTN_SOUTH"
    assert key_name(183) == "KEY_F13"
    assert key_name(0x2FE) == "KEY_766"  # no name at all
