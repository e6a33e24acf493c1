"""Guard tests of the drivers' full mutation set (the ``drivers`` guard, docs/testing.md),
each answering a mutant that survived the guard's tests:

* the link counts noise bytes for noise only: a frame with a bad CRC is a bad frame, not noise,
  and bytes outside any frame are noise, not a bad frame (``drivers/devices/link.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.devices import ShoeDriver
from drivers.simulators import ShoeSimulator, start_simulator
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
