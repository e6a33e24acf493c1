"""The progressive sign's picture and its feed: only differences are sent, the whole picture
again after the sign comes back or reboots, and a sign that is away never troubles the caller.

The pure parts (:class:`SignPicture`, :func:`differences`) are checked on their own; the feed
against the sign's simulator on a real pseudo-terminal through the real driver."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from drivers.codec import sign as wire
from drivers.devices import LinkSettings, SignDriver
from drivers.devices.link import BOOT_RESEND_WINDOW_S
from drivers.simulators import RunningSimulator, SignSimulator, start_simulator
from station import events as ev
from station.events import Event
from station.service.sign_picture import BLANK_SIGN, SignFeed, SignPicture, SignShown, differences

from ..waiting import SINK_WAIT_S, Sink, wait_until

FAST = LinkSettings(reply_timeout=0.2, retries=3, reconnect_initial=0.02, reconnect_max=0.2, heartbeat=5.0)
METER = SignPicture("Mega Jackpot", 100_000, 2, "EUR")


def meter(amount: int, title: str = "Mega Jackpot") -> wire.ShowMeter:
    return wire.ShowMeter(title, amount, 2, "EUR")


# --- the picture ------------------------------------------------------------------------------


def test_a_blank_picture_paints_nothing_and_a_full_one_paints_the_hit_first() -> None:
    assert BLANK_SIGN.commands() == [] and BLANK_SIGN.meter() is None and BLANK_SIGN.hit_command() is None
    full = replace(METER, hit=(250_000, "5"), message="Closed")
    assert full.commands() == [wire.ShowHit("Mega Jackpot", 250_000, 2, "EUR", "5"), wire.SignShowMessage("Closed"),
                               meter(100_000)]
    assert SignPicture(amount=0, title="Jackpot").meter() == wire.ShowMeter("Jackpot", 0, 0, "")  # 0 is a meter too


@pytest.mark.parametrize(("fields", "error"), [
    ({"amount": 1000.0}, TypeError), ({"amount": True}, TypeError), ({"amount": -5}, ValueError),
    ({"amount": 2**64}, ValueError), ({"digits": 5}, ValueError), ({"hit": (10.5, "1")}, TypeError),
    ({"hit": (-1, "1")}, ValueError), ({"title": "x" * 256}, ValueError), ({"message": "\u20ac" * 86}, ValueError),
    ({"hit": (100, 5)}, TypeError),
])
def test_a_picture_takes_only_integer_minor_units_and_text_that_fits(fields: dict[str, Any],
                                                                     error: type[Exception]) -> None:
    with pytest.raises(error):
        replace(METER, **fields)


def test_differences_are_only_what_changed_hit_first() -> None:
    shown = SignShown()
    for command in METER.commands():
        shown = shown.after(command)
    assert differences(METER, shown) == []
    assert differences(replace(METER, amount=100_500), shown) == [meter(100_500)]
    hit = replace(METER, amount=10_000, hit=(100_000, "3"))
    assert differences(hit, shown) == [wire.ShowHit("Mega Jackpot", 100_000, 2, "EUR", "3"), meter(10_000)]
    with_hit = shown.after(differences(hit, shown)[0]).after(meter(10_000))
    assert differences(replace(hit, hit=None), with_hit) == [wire.EndHit()]
    assert differences(replace(hit, message="Meter offline"), with_hit) == [wire.SignShowMessage("Meter offline")]
    assert differences(replace(METER, title="Grand"), shown) == [meter(100_000, "Grand")]
    # No command takes the meter alone down: the sign is cleared and the rest painted again.
    assert differences(SignPicture(message="Closed"), shown) == [wire.SignClear(), wire.SignShowMessage("Closed")]
    assert SignShown(message="x").after(wire.SignClear()) == SignShown()


# --- the feed, against the sign -----------------------------------------------------------------


class SteppedClock:
    """The link's clock, stepped past the window in which a Boot with the last one's SEQ is its
    resend (a restarted sign numbers its Boot 1 again) instead of waiting it out."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def past_the_boot_window(self) -> None:
        self.now += BOOT_RESEND_WINDOW_S + 0.1


Rig = tuple[SignSimulator, SignDriver, SignFeed, Sink[Event], SteppedClock]


@pytest.fixture
def rig() -> Iterator[Rig]:
    """The sign's simulator, the driver (started, the sign's power-on Boot taken) and the feed."""
    clock = SteppedClock()
    events: Sink[Event] = Sink()
    running = start_simulator("sign", ack_timeout=0.05)
    sim: SignSimulator = running.simulator
    driver = SignDriver("sign", sim.url, events, settings=FAST, clock=clock)
    assert driver.start(SINK_WAIT_S)
    assert sim.wait_idle(SINK_WAIT_S)
    feed = SignFeed(driver, retry_s=0.05)
    feed.start()
    yield sim, driver, feed, events, clock
    feed.stop()
    driver.stop()
    running.stop()


def shown_now(feed: SignFeed, picture: SignPicture) -> None:
    feed.show(picture)
    assert feed.wait_idle(SINK_WAIT_S), f"the sign never showed {picture}"


def test_the_feed_clears_at_start_then_sends_only_what_changed(rig: Rig) -> None:
    sim, _, feed, _, _ = rig
    shown_now(feed, METER)
    shown_now(feed, replace(METER, amount=100_500))
    shown_now(feed, replace(METER, amount=100_500, message="Closed"))
    shown_now(feed, replace(METER, amount=100_500))
    shown_now(feed, replace(METER, amount=100_500))  # the same picture: nothing
    assert sim.commands() == [wire.SignClear(), meter(100_000), meter(100_500), wire.SignShowMessage("Closed"),
                              wire.SignShowMessage("")]
    assert feed.repaints == 1 and feed.failures == 0
    assert feed.shown == SignShown(None, "", meter(100_500))


def test_pictures_given_faster_than_the_sign_answers_end_on_the_newest(rig: Rig) -> None:
    sim, _, feed, _, _ = rig
    shown_now(feed, METER)
    sim.reply_delay = 0.01  # a slow sign: the meter ticks faster than it acknowledges
    for amount in range(100_001, 100_201):
        feed.show(replace(METER, amount=amount))
    assert feed.wait_idle(SINK_WAIT_S)
    meters = [m for m in sim.commands() if isinstance(m, wire.ShowMeter)]
    assert meters[-1] == meter(100_200) and sim.showing() == "Mega Jackpot 1,002.00 EUR"
    assert len(meters) < 1 + 200  # not queued: the newest was sent each time
    assert [m.amount for m in meters] == sorted(m.amount for m in meters)  # never backwards


def test_many_threads_may_show_at_once(rig: Rig) -> None:
    sim, _, feed, _, _ = rig
    errors: list[BaseException] = []

    def ticker(start: int) -> None:
        try:
            for step in range(50):
                feed.show(replace(METER, amount=start + step))
        except BaseException as exc:  # any failure of show() is the test's finding
            errors.append(exc)

    threads = [threading.Thread(target=ticker, args=(n * 1000,)) for n in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    shown_now(feed, replace(METER, amount=999_999))
    assert errors == [] and sim.face.meter == meter(999_999)


def test_a_sign_that_comes_back_is_painted_again_in_full(rig: Rig) -> None:
    sim, _, feed, events, _ = rig
    shown_now(feed, replace(METER, hit=(250_000, "5"), message="Closed"))
    sim.unplug()
    events.wait_kind(ev.DeviceFault)
    feed.show(replace(METER, amount=100_900, hit=(250_000, "5"), message="Closed"))  # while it is away
    assert not feed.wait_idle(0.2)
    before = len(sim.commands())
    sim.replug()
    events.wait_kind(ev.DeviceRecovered)
    # The station hears the sign is back before the feed is told to repaint (both on the link's
    # thread, in that order): the repaint is waited for, not assumed begun.
    wait_until(lambda: feed.repaints == 2 and feed.wait_idle(0.1), SINK_WAIT_S, "the repaint after the sign came back")
    after = sim.commands()[before:]
    clear = after.index(wire.SignClear())
    assert after[clear:] == [wire.SignClear(), wire.ShowHit("Mega Jackpot", 250_000, 2, "EUR", "5"),
                             wire.SignShowMessage("Closed"), meter(100_900)]
    assert sim.face.meter == meter(100_900) and feed.repaints == 2


def test_a_rebooted_sign_is_painted_again_in_full(rig: Rig) -> None:
    sim, _, feed, _, clock = rig
    shown_now(feed, replace(METER, message="Meter offline"))
    before = len(sim.commands())
    clock.past_the_boot_window()
    sim.reboot("watchdog reset")
    wait_until(lambda: feed.repaints == 2 and feed.wait_idle(0.1), SINK_WAIT_S, "the repaint after the Boot")
    assert sim.commands()[before:] == [wire.SignClear(), wire.SignShowMessage("Meter offline"), meter(100_000)]
    assert sim.showing() == "Meter offline" and sim.face.meter == meter(100_000)


def test_showing_while_the_sign_is_away_never_raises_and_it_is_painted_when_it_answers(tmp_path: Path) -> None:
    """A sign absent from the start: the caller is never held up or raised at; the first
    answer brings the newest picture."""
    events: Sink[Event] = Sink()
    running: RunningSimulator = start_simulator("sign", ack_timeout=0.05, directory=str(tmp_path))
    sim: SignSimulator = running.simulator
    sim.unplug()
    driver = SignDriver("sign", sim.url, events, settings=FAST)
    feed = SignFeed(driver, retry_s=0.05)
    try:
        assert not driver.start(0.2)
        feed.start()
        started = time.monotonic()
        for amount in range(1, 101):
            feed.show(replace(METER, amount=amount))
        assert time.monotonic() - started < 1.0  # show() only takes note
        assert not feed.wait_idle(0.3)
        sim.replug()
        events.wait_kind(ev.DeviceRecovered)
        assert feed.wait_idle(SINK_WAIT_S)
        assert sim.face.meter == meter(100) and wire.SignClear() in sim.commands()
    finally:
        feed.stop()
        driver.stop()
        running.stop()


def test_a_picture_the_sign_refuses_is_not_sent_again(rig: Rig) -> None:
    sim, _, feed, _, _ = rig
    shown_now(feed, METER)
    sim.positions = 6  # a narrow sign: 9,999.99 at most
    shown_now(feed, replace(METER, amount=1_000_000))  # refused: NAK is final
    shown_now(feed, replace(METER, amount=1_000_000, message="Closed"))  # the rest still goes
    assert sim.stats.naks == {"out_of_range": 1}
    assert sim.showing() == "Closed" and sim.face.meter == meter(100_000)
    shown_now(feed, replace(METER, amount=999_999, message="Closed"))
    assert sim.face.meter == meter(999_999)
