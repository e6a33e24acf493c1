"""The progressive sign over a pty: the real driver (and the station's feed) against the sign's
simulator, read from the sign's side: what it was sent, in order, and what it shows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from drivers.codec import sign as wire
from drivers.codec.protocol import Ack, NakCode
from drivers.devices import DeviceProtocolError, DeviceRefused, DeviceTimeout, SignDriver
from drivers.devices.link import BOOT_RESEND_WINDOW_S
from drivers.simulators import SignSimulator, start_simulator
from station import events as ev
from station.service.sign_picture import SignFeed, SignPicture

from ..waiting import Sink, wait_until
from .helpers import FAST, WAIT, Recorder

Rig = tuple[SignSimulator, SignDriver, Sink[str]]


class SteppedClock:
    """The link's clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def past_the_boot_window(self) -> None:
        """A sign restarted after its last Boot numbers its next Boot the same (1): past this
        window the link takes it for a new power-up, not a resend (docs/protocols/README.md)."""
        self.now += BOOT_RESEND_WINDOW_S + 0.1


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def sign(rec: Recorder, clock: SteppedClock) -> Iterator[Rig]:
    """The sign's simulator and a started driver; the third item hears the driver's repaint calls."""
    running = start_simulator("sign", ack_timeout=0.05)
    sim: SignSimulator = running.simulator
    driver = SignDriver("sign", sim.url, rec, settings=FAST, clock=clock)
    repaints: Sink[str] = Sink()
    driver.on_needs_repaint(repaints)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)  # the power-on Boot has been delivered (and asked for a repaint)
    assert repaints.items == ["boot"]
    yield sim, driver, repaints
    driver.stop()
    running.stop()


def names(sim: SignSimulator, start: int = 0) -> list[str]:
    return [c.WIRE_NAME for c in sim.commands()[start:]]


def test_every_command_arrives_decoded_and_in_order(sign: Rig) -> None:
    sim, driver, _ = sign
    driver.show_meter("Mega Jackpot", 123_456_789, 2, "EUR")
    assert sim.showing() == "Mega Jackpot 1,234,567.89 EUR"
    driver.show_message("Closed")
    assert sim.showing() == "Closed"  # a line hides the meter
    driver.show_hit("Mega Jackpot", 123_456_789, 2, "EUR", "5")
    assert sim.showing() == "*** Mega Jackpot: BOX 5 WINS 1,234,567.89 EUR ***"
    driver.end_hit()
    driver.show_message("")
    assert sim.showing() == "Mega Jackpot 1,234,567.89 EUR"  # the meter was there all along
    driver.brightness(40)
    driver.clear()
    assert names(sim) == ["ShowMeter", "ShowMessage", "ShowHit", "EndHit", "ShowMessage", "SetBrightness", "Clear"]
    assert sim.commands()[0] == wire.ShowMeter("Mega Jackpot", 123_456_789, 2, "EUR")
    assert sim.commands(wire.ShowHit) == [wire.ShowHit("Mega Jackpot", 123_456_789, 2, "EUR", "5")]
    assert sim.showing() == "" and sim.face.brightness == 40  # cleared, brightness kept
    info = driver.status()
    assert (info.commands_shown, info.error, info.failed_rows) == (7, 0, ())


def test_amounts_past_32_bits_arrive_whole(sign: Rig) -> None:
    sim, driver, _ = sign
    for amount in (2**32, 5_000_000_000, 2**64 - 1):
        driver.show_meter("Jackpot", amount, 0, "VND")
        assert sim.face.meter is not None and sim.face.meter.amount == amount
    assert sim.showing() == "Jackpot 18,446,744,073,709,551,615 VND"


@pytest.mark.parametrize(("amount", "digits", "error"), [
    (1000.0, 2, TypeError), (True, 2, TypeError), (-1, 2, ValueError), (2**64, 0, ValueError),
    (1000, 5, ValueError), (1000, 2.0, TypeError),
])
def test_amounts_are_integers_of_minor_units_checked_before_sending(sign: Rig, amount: object, digits: object,
                                                                    error: type[Exception]) -> None:
    sim, driver, _ = sign
    with pytest.raises(error):
        driver.show_meter("Jackpot", amount, digits, "EUR")  # type: ignore[arg-type]  # the wrong types tested
    with pytest.raises(error):
        driver.show_hit("Jackpot", amount, digits, "EUR", "1")  # type: ignore[arg-type]
    assert sim.commands() == []


def test_the_sign_refuses_what_it_cannot_show_and_shows_nothing_cut(sign: Rig) -> None:
    sim, driver, _ = sign
    with pytest.raises(DeviceRefused) as refused:
        driver.send(wire.ShowMeter("Jackpot", 1000, 5, "EUR"))  # past the driver's own check
    assert refused.value.code is NakCode.OUT_OF_RANGE
    with pytest.raises(DeviceRefused):
        driver.brightness(150)
    sim.positions = 6  # a narrow sign: 999,999 at most
    driver.show_meter("Jackpot", 999_999, 0, "JPY")
    with pytest.raises(DeviceRefused, match="7 digits; the sign has 6"):
        driver.show_meter("Jackpot", 1_000_000, 0, "JPY")
    assert sim.showing() == "Jackpot 999,999 JPY"  # the last amount it could show, never a cut one
    assert sim.stats.naks == {"out_of_range": 3}


def test_a_lost_answer_is_retransmitted_and_shown_once(sign: Rig) -> None:
    sim, driver, _ = sign
    sim.drop_replies(1)
    driver.show_meter("Jackpot", 500, 2, "EUR")
    assert sim.commands() == [wire.ShowMeter("Jackpot", 500, 2, "EUR")]
    assert sim.stats.duplicate_commands >= 1 and driver.stats.retransmissions >= 1


def test_a_command_lost_on_the_way_is_sent_again(sign: Rig) -> None:
    sim, driver, _ = sign
    sim.lose_commands(2)
    driver.show_message("Meter offline")
    assert sim.lost_commands == 2 and driver.stats.retransmissions == 2
    assert sim.commands() == [wire.SignShowMessage("Meter offline")]


def test_garbled_frames_are_counted_and_skipped(sign: Rig, rec: Recorder) -> None:
    sim, driver, _ = sign
    sim.corrupt_next_frames(1)  # the ACK of the next command
    driver.show_meter("Jackpot", 700, 2, "EUR")
    assert driver.stats.errors_by_kind["bad_crc"] == 1
    assert sim.commands() == [wire.ShowMeter("Jackpot", 700, 2, "EUR")]  # resent, answered from the cache
    sim.inject_garbage(b"\x00\xffnoise on the line")
    wait_until(lambda: driver.stats.noise_bytes > 0, WAIT, "the noise counted")
    sim.corrupt_next_frames(1)  # the event: dropped, then resent intact
    sim.fail_row(2)
    rec.wait_kind(ev.DeviceFault)
    assert sim.wait_idle(WAIT)
    assert driver.stats.errors_by_kind["bad_crc"] == 2
    assert [(e.code, e.reason) for e in rec.of(ev.DeviceFault)] == [("led_row", "LED row 2 does not light")]
    driver.show_message("still here")
    assert sim.showing() == "still here"


def test_a_wrong_answer_is_refused(sign: Rig) -> None:
    sim, driver, _ = sign
    sim.answer_wrongly(wire.SignGetStatus, Ack())
    with pytest.raises(DeviceProtocolError, match="expected SignStatus, device answered Ack"):
        driver.status()
    sim.answer_wrongly(wire.ShowMeter, wire.SignStatus(80, 0))
    with pytest.raises(DeviceProtocolError, match="ShowMeter answered by SignStatus"):
        driver.show_meter("Jackpot", 100, 2, "EUR")
    assert driver.status().brightness == 80  # the next answers are right again


def test_a_dark_led_row_is_a_fault_and_fails_the_self_test(sign: Rig, rec: Recorder) -> None:
    sim, driver, _ = sign
    assert driver.self_test().passed
    sim.fail_row(3)
    assert rec.wait_kind(ev.DeviceFault)[0].code == "led_row"
    report = driver.self_test()
    assert not report.passed and report.code == wire.SignErrorCode.LED_ROW
    assert report.detail == "LED row 3 does not light"
    assert driver.status().failed_rows == (3,)
    sim.reboot()  # a restart does not light a dead row
    assert not driver.self_test().passed and driver.status().error == wire.SignErrorCode.LED_ROW
    sim.repair_rows()
    assert driver.self_test().passed


def test_the_driver_asks_for_a_repaint_on_return_and_on_boot(sign: Rig, rec: Recorder, clock: SteppedClock) -> None:
    sim, _, repaints = sign
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    repaints.wait_for(lambda reasons: reasons[-1:] == ["connected"], what="a repaint on return")
    clock.past_the_boot_window()
    sim.reboot("watchdog reset")
    repaints.wait_for(lambda reasons: reasons[-1:] == ["boot"], what="a repaint on boot")
    assert repaints.items == ["boot", "connected", "boot"]


def test_a_sign_that_does_not_answer_times_out(sign: Rig) -> None:
    sim, driver, _ = sign
    sim.drop_replies(10)
    with pytest.raises(DeviceTimeout):
        driver.show_message("hello")


def test_a_whole_session_from_the_signs_side(sign: Rig, rec: Recorder, clock: SteppedClock) -> None:
    """The station's feed drives the sign through a session: the meter, a hit, an unplugged
    cable and a reboot in the middle; the sign is sent only what changed, and in full after it
    comes back and after it restarts."""
    sim, driver, _ = sign
    feed = SignFeed(driver, retry_s=0.05)
    feed.start()
    try:
        meter = SignPicture("Mega Jackpot", 100_000, 2, "EUR")
        feed.show(meter)
        assert feed.wait_idle(WAIT)
        for amount in (100_500, 101_000):  # wagers: the meter only
            feed.show(replace(meter, amount=amount))
            assert feed.wait_idle(WAIT)
        hit = replace(meter, amount=10_000, hit=(101_000, "5"))  # paid, and the meter back at its seed
        feed.show(hit)
        assert feed.wait_idle(WAIT)
        assert sim.showing() == "*** Mega Jackpot: BOX 5 WINS 1,010.00 EUR ***"
        assert names(sim) == ["Clear", "ShowMeter", "ShowMeter", "ShowMeter", "ShowHit", "ShowMeter"]
        before_unplug = len(sim.commands())

        sim.unplug()
        rec.wait_kind(ev.DeviceFault)
        feed.show(replace(hit, amount=10_500))  # the sign is away: noted, never raised
        assert not feed.wait_idle(0.2)
        sim.replug()
        rec.wait_kind(ev.DeviceRecovered)
        # The station hears the sign is back before the feed is told to repaint it (both on the
        # link's thread, in that order): the repaint is waited for, not assumed begun.
        wait_until(lambda: any(isinstance(c, wire.SignClear) for c in sim.commands()[before_unplug:])
                   and feed.wait_idle(0.1), WAIT, "the repaint after the sign came back")
        after = sim.commands()[before_unplug:]
        # (an update may slip in during the handshake, before the repaint it is part of)
        first_clear = next(i for i, c in enumerate(after) if isinstance(c, wire.SignClear))
        assert all(c == wire.ShowMeter("Mega Jackpot", 10_500, 2, "EUR") for c in after[:first_clear])
        assert after[first_clear:] == [wire.SignClear(), wire.ShowHit("Mega Jackpot", 101_000, 2, "EUR", "5"),
                                       wire.ShowMeter("Mega Jackpot", 10_500, 2, "EUR")]

        feed.show(replace(hit, amount=10_500, hit=None, message="Closed"))
        assert feed.wait_idle(WAIT)
        assert sim.showing() == "Closed"
        before_reboot, repaints = len(sim.commands()), feed.repaints
        clock.past_the_boot_window()
        sim.reboot("watchdog reset")
        wait_until(lambda: feed.repaints > repaints and feed.wait_idle(0.1), WAIT, "the repaint after the reboot")
        assert sim.commands()[before_reboot:] == [wire.SignClear(), wire.SignShowMessage("Closed"),
                                                  wire.ShowMeter("Mega Jackpot", 10_500, 2, "EUR")]
        assert sim.showing() == "Closed" and sim.boots == 1
        assert feed.failures >= 1 and [type(e).__name__ for e in rec.events] == ["DeviceFault", "DeviceRecovered"]
    finally:
        feed.stop()
