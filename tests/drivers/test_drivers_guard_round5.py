"""Guard tests of the drivers' full mutation set (the ``drivers`` guard, docs/testing.md),
each answering a mutant that survived the guard's tests:

* the link counts noise bytes for noise only: a frame with a bad CRC is a bad frame, not noise,
  and bytes outside any frame are noise, not a bad frame (``drivers/devices/link.py``);
* the pedals' press tracker counts each press it gives, short or long, once
  (``drivers/usb/presses.py``);
* a sign's jackpot meter given no digits is shown in whole units and sends 0 for them
  (``drivers/codec/sign.py``, docs/protocols/sign.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec import get_protocol
from drivers.codec.framing import encode_frame
from drivers.codec.sign import ShowMeter
from drivers.devices import ShoeDriver
from drivers.simulators import ShoeSimulator, start_simulator
from drivers.usb.codec import PedalReport
from drivers.usb.presses import Press, PressTracker
from drivers.usb.protocol import EventType
from station.cards import parse_cards

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def sim() -> Iterator[ShoeSimulator]:
    running = start_simulator("shoe", ack_timeout=0.05)
    yield running.simulator
    running.stop()


def test_a_bad_frame_is_not_noise_and_noise_is_not_a_bad_frame(sim: ShoeSimulator, rec: Recorder) -> None:
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)
        sim.corrupt_next_frames(1)
        sim.load(parse_cards("AS"))  # its first copy has a wrong CRC; the resend is good
        assert sim.wait_idle(WAIT)
        assert (driver.stats.bad_frames, driver.stats.noise_bytes) == (1, 0)
        sim.inject_garbage(b"xyz")
        wait_until(lambda: driver.stats.noise_bytes == 3, WAIT, "the noise counted")
        assert driver.stats.bad_frames == 1
    finally:
        driver.stop()


def test_the_press_tracker_counts_each_press_it_gives_once() -> None:
    tracker = PressTracker()
    held = {0: 0b01, 1: 0b10}
    given: list[Press] = []
    for seq, (event, button, long) in enumerate([(EventType.DOWN, 0, False), (EventType.UP, 0, False),
                                                 (EventType.DOWN, 1, False), (EventType.LONG, 1, False),
                                                 (EventType.UP, 1, True)]):
        given += tracker.feed(PedalReport(seq, event, button, 0 if event is EventType.UP else held[button],
                                          long=long))
    assert given == [Press(0, long=False), Press(1, long=True)]
    assert tracker.counts.presses == 2


def test_a_meter_given_no_digits_is_in_whole_units() -> None:
    meter = ShowMeter("Jackpot", 1500)
    assert meter == ShowMeter("Jackpot", 1500, 0, "")
    # docs/protocols/sign.md: title (text), amount (u64), digits (u8), currency (text)
    payload = bytes([7]) + b"Jackpot" + (1500).to_bytes(8, "big") + bytes([0]) + bytes([0])
    assert get_protocol("sign").encode(meter, 1) == encode_frame(1, ShowMeter.TYPE, payload)
