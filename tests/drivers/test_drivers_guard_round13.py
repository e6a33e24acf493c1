"""Guard tests of the serial devices' drivers (the ``drivers`` mutation guard, docs/testing.md),
answering what survived in ``drivers/devices``:

* table limits for the display board are integers in the currency's minor units: a float or a
  bool is refused as the caller's mistake, by name, and nothing goes to the board
  (``display.py``, ``show_limits``);
* an intact event the station cannot decode is acknowledged and reported, but it is no Boot:
  a Boot that comes next with the same sequence number is a new power-up, handed over, never
  taken for a resend of that event (``link.py``, ``_handle_error``);
* the progressive sign takes every number of minor digits ISO 4217 has, 4 included: an amount
  with the most digits the wire carries is shown (``sign.py``, ``check_amount``).
"""

from __future__ import annotations

import pytest

from drivers.codec import display as display_wire
from drivers.codec import get_protocol
from drivers.codec import shoe as shoe_wire
from drivers.codec import sign as sign_wire
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import Boot
from drivers.devices import DisplayDriver, ShoeDriver
from drivers.devices.sign import SignDriver, check_amount
from drivers.simulators import DisplaySimulator, ShoeSimulator, SignSimulator, start_simulator
from station import events as ev

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

# -- the display board's limits -----------------------------------------------------------------


def test_display_limits_that_are_not_whole_minor_units_are_refused_before_the_board_sees_them(
        rec: Recorder) -> None:
    """A float (10.5) or a bool (True) in any of the limits is the caller's mistake: a TypeError
    naming the value, and the board is sent no ShowLimits at all."""
    running = start_simulator("display", ack_timeout=0.05)
    sim: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        with pytest.raises(TypeError, match=r"limits are integers in minor units, got 10\.5"):
            driver.show_limits(10.5, 500000)  # type: ignore[arg-type]  # the wrong type tested
        with pytest.raises(TypeError, match="limits are integers in minor units, got True"):
            driver.show_limits(1000, 500000, tie_max=True)
        with pytest.raises(TypeError, match=r"limits are integers in minor units, got 2\.0"):
            driver.show_limits(1000, 500000, minor_digits=2.0)  # type: ignore[arg-type]
        assert sim.commands(display_wire.ShowLimits) == []
        driver.show_limits(1050, 500000, minor_digits=2)  # whole minor units go through
        assert len(sim.commands(display_wire.ShowLimits)) == 1
    finally:
        driver.stop()
        running.stop()


# -- the link: an undecodable event and a Boot ---------------------------------------------------


def test_a_boot_numbered_as_an_undecodable_event_before_it_is_a_new_power_up(rec: Recorder) -> None:
    """The shoe sends an intact event the station cannot decode (seq 7): it is ACKed and
    reported as a protocol fault. The shoe then announces a Boot with that same seq 7, inside
    the Boot resend window of its power-on Boot (the link's clock stands still): only a Boot's
    own copies are resends, so this Boot is handed over, never dropped as a duplicate."""
    running = start_simulator("shoe", ack_timeout=0.05)
    sim: ShoeSimulator = running.simulator
    driver = ShoeDriver("shoe", running.url, rec, settings=FAST, clock=lambda: 1000.0)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)  # the power-on Boot (seq 1) is in
        wait_until(lambda: driver.stats.events_delivered == 1, WAIT, "the power-on Boot handed over")
        sim.inject_garbage(encode_frame(7, shoe_wire.CardRead.TYPE, b"\xe0"))  # 0xE0 is no card
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "protocol_error"
        sim.inject_garbage(get_protocol("shoe").encode(Boot("watchdog reset"), 7))
        wait_until(lambda: driver.stats.events_delivered + driver.stats.duplicates >= 2, WAIT,
                   "the second Boot taken")
        assert (driver.stats.events_delivered, driver.stats.duplicates) == (2, 0)
    finally:
        driver.stop()
        running.stop()


# -- the sign's minor digits --------------------------------------------------------------------


def test_the_sign_shows_an_amount_with_the_most_minor_digits_the_wire_carries(rec: Recorder) -> None:
    """4 minor digits (the most ISO 4217 has, wire.MAX_DIGITS) is a valid amount: checked, sent
    and shown as given; 5 is refused."""
    check_amount(123456789, sign_wire.MAX_DIGITS)
    with pytest.raises(ValueError, match="5 minor digits"):
        check_amount(123456789, sign_wire.MAX_DIGITS + 1)
    running = start_simulator("sign", ack_timeout=0.05)
    sim: SignSimulator = running.simulator
    driver = SignDriver("sign", running.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        driver.show_meter("Jackpot", 123456789, sign_wire.MAX_DIGITS, "CLF")
        driver.show_hit("Jackpot", 123456789, sign_wire.MAX_DIGITS, "CLF", "3")
        assert sim.commands(sign_wire.ShowMeter) == [
            sign_wire.ShowMeter("Jackpot", 123456789, sign_wire.MAX_DIGITS, "CLF")]
        assert sim.commands(sign_wire.ShowHit) == [
            sign_wire.ShowHit("Jackpot", 123456789, sign_wire.MAX_DIGITS, "CLF", "3")]
    finally:
        driver.stop()
        running.stop()
