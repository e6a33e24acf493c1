"""Guard tests of the serial link and the serial drivers' own rules (the ``drivers`` mutation
guard, docs/testing.md), each against a simulator on a pseudo-terminal or a driver not started.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the link's sequence numbers run 1..255 and then start again at 1: a link that has sent 255
  commands still has the next one answered (``drivers/devices/link.py``, the wrap);
* a device that answers the handshake's ``Identify`` with something else is an outage named
  ``handshake_failed`` that says what came back, and the next handshake is tried (link.py);
* a serial driver built without a speed opens its port at 115200 baud, the protocols' speed
  (docs/protocols/README.md; ``drivers/devices/base.py``);
* the chip reader's mode: a period that is not a whole number is refused as such, in either
  mode, before anything is sent (``drivers/devices/chipreader.py``, ``_check_mode``), and a
  reader nobody started or gave anything has nothing to re-send (``wait_synced`` at once).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec.protocol import Ack, Identify
from drivers.devices import ChipReaderDriver, ShoeDriver
from drivers.simulators import ShoeSimulator, start_simulator
from station import events as ev

from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def sim() -> Iterator[ShoeSimulator]:
    running = start_simulator("shoe", ack_timeout=0.05)
    yield running.simulator
    running.stop()


def test_the_sequence_numbers_start_again_at_1_after_255(sim: ShoeSimulator, rec: Recorder) -> None:
    """More than 255 commands on one connection: each is answered at once (a seq that the
    link waits for but never sent would leave a command unanswered through every retry)."""
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        for _ in range(300):
            driver.ping()
        assert driver.link.stats.retransmissions == 0
        assert driver.connected and rec.of(ev.DeviceFault) == []
    finally:
        driver.stop()


def test_a_handshake_answered_by_the_wrong_message_is_an_outage_that_says_so(sim: ShoeSimulator,
                                                                             rec: Recorder) -> None:
    sim.answer_wrongly(Identify, Ack())  # firmware with a bug, or another device behind the port
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        driver.start(WAIT)
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert (fault.code, fault.reason) == ("handshake_failed", "handshake failed: Identify answered by Ack")
        rec.wait_kind(ev.DeviceRecovered)  # the next handshake is answered rightly
        assert driver.identify().model == sim.identity.model
        assert [type(e).__name__ for e in rec.events] == ["DeviceFault", "DeviceRecovered"]
    finally:
        driver.stop()


def test_a_serial_driver_opens_its_port_at_115200_baud_unless_told(rec: Recorder) -> None:
    assert ShoeDriver("shoe", "/dev/ttyUSB-none", rec).link.transport.baudrate == 115200  # type: ignore[attr-defined]
    told = ShoeDriver("shoe", "/dev/ttyUSB-none", rec, baudrate=9600)
    assert told.link.transport.baudrate == 9600  # type: ignore[attr-defined]


@pytest.mark.parametrize("continuous", [True, False])
@pytest.mark.parametrize("period", [100.0, True, "250", None])
def test_a_chip_reader_period_that_is_no_whole_number_is_refused_in_either_mode(rec: Recorder, continuous: bool,
                                                                               period: object) -> None:
    """Refused as a type, before the driver looks at the reader: even in the on-request mode,
    where the period is not sent (a caller's mistake is said, not passed over)."""
    driver = ChipReaderDriver("chipreader", "/dev/ttyUSB-none", rec, settings=FAST)
    with pytest.raises(TypeError, match="whole number of milliseconds"):
        driver.set_mode(continuous, period)  # type: ignore[arg-type]
    assert driver.wanted_mode is None


def test_a_chip_reader_nobody_started_or_set_has_nothing_to_sync(rec: Recorder) -> None:
    driver = ChipReaderDriver("chipreader", "/dev/ttyUSB-none", rec, settings=FAST)
    assert driver.wait_synced(0)  # nothing given, nothing under way
    assert driver.set_mode(True, 100) is False  # not connected: kept for when it answers ...
    assert driver.wanted_mode == (True, 100)
    assert not driver.wait_synced(0.05)  # ... and that is now to do
