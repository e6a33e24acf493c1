"""The serial dealer button box over a pty: short and long presses, faults."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.devices import ButtonBoxDriver, DeviceRefused
from drivers.simulators import ButtonBoxSimulator, start_simulator
from station import events as ev

from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def box(rec: Recorder) -> Iterator[tuple[ButtonBoxSimulator, ButtonBoxDriver]]:
    running = start_simulator("buttonbox", ack_timeout=0.05, long_press_ms=150)
    sim: ButtonBoxSimulator = running.simulator
    driver = ButtonBoxDriver("buttons", sim.url, rec, buttons={1: "deal", 2: "confirm"}, settings=FAST)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)  # the power-on notice has been delivered
    yield sim, driver
    driver.stop()
    running.stop()


def presses(rec: Recorder) -> list[tuple[str, bool]]:
    return [(e.button, e.long_press) for e in rec.of(ev.ButtonPressed)]


def test_short_and_long_presses(box, rec: Recorder) -> None:
    sim, _ = box
    sim.press(1)
    sim.long_press(2)
    sim.press(3)
    rec.wait_kind(ev.ButtonPressed, 3)
    assert sim.wait_idle(WAIT)
    assert presses(rec) == [("deal", False), ("confirm", True), ("button3", False)]


def test_real_time_hold_becomes_one_long_press(box, rec: Recorder) -> None:
    sim, driver = box
    sim.button_down(1)
    rec.wait_kind(ev.ButtonPressed)
    assert driver.status().held == ("deal",)
    sim.button_up(1)
    assert sim.wait_idle(WAIT)
    assert presses(rec) == [("deal", True)]


def test_presses_survive_lost_acks_and_garbage_without_doubling(box, rec: Recorder) -> None:
    sim, driver = box
    sim.ignore_acks(2)
    sim.inject_garbage(b"\x02\x02\x10\xff")
    sim.press(1)
    sim.corrupt_next_frames(1)
    sim.press(2)
    rec.wait_kind(ev.ButtonPressed, 2)
    assert sim.wait_idle(WAIT)
    assert presses(rec) == [("deal", False), ("confirm", False)]
    assert driver.stats.duplicates >= 1


def test_long_press_time_is_configurable_within_range(box) -> None:
    sim, driver = box
    driver.set_long_press(1200)
    assert driver.status().long_press_ms == 1200 and sim.long_press_ms == 1200
    with pytest.raises(DeviceRefused):
        driver.set_long_press(20)


def test_unplugged_box_reconnects_and_delivers_a_press_made_meanwhile(box, rec: Recorder) -> None:
    sim, _ = box
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    sim.press(1)
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    rec.wait_kind(ev.ButtonPressed)
    assert sim.wait_idle(WAIT)
    assert presses(rec) == [("deal", False)]
