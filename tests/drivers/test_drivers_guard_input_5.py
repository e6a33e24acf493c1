"""Guard tests of the foot switch and the input parts, fifth set (the ``drivers`` mutation guard,
docs/testing.md), through the foot switch driver against evdev's stand-in
(drivers/simulators/footswitch.py), ``KeyPresses`` with exact times, and ``input_devices`` on a
sysfs tree written as the kernel writes it.

Each test answers a mutant that survived the guard's tests:

* a foot switch built as the configuration builds it (no back-off given: the default one) keeps
  trying after its first failed attempt, and recovers once the device can be had
  (``drivers/devices/footswitch.py``, the reconnect loop's back-off);
* stopping the driver while a pedal is held down, its long press still hours away, lets go of
  the device at once: the reader never sleeps past its polling interval waiting for a press to
  come due (``serve``);
* the driver's ``events_delivered`` counts each press once, and the delivery observer is told
  each count (``_deliver``);
* a release of a key that is not down (its press already taken, or never seen) is ignored, and
  a second release while the first waits out the debounce time does not push the press back
  (``drivers/input/presses.py``, ``feed``);
* ``station diag ports`` lists the event nodes by their number whatever order the directory gives
  them, and a node whose name carries no number is listed first, with ``event0``'s place, not
  among the numbered ones (``drivers/input/listing.py``, ``input_devices``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path, PosixPath
from typing import Any

import pytest

from drivers.devices import Backoff, FootSwitchDriver
from drivers.input.keys import key_code
from drivers.input.listing import input_devices
from drivers.input.presses import DOWN, UP, KeyPress, KeyPresses
from drivers.simulators.footswitch import StandInFootSwitch
from station.events import ButtonPressed, DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

from ..waiting import Sink, wait_until

FAST = Backoff(0.02, 2.0, 0.2)
WAIT = 10.0
F13 = key_code("KEY_F13")


# --- the foot switch driver ----------------------------------------------------------------------


def test_a_foot_switch_built_from_the_configuration_keeps_trying_until_it_can_have_the_device(
        events: EventLog, drivers: list[Any]) -> None:
    switch = StandInFootSwitch()
    other = switch.other_reader()
    other.grab()  # another program holds it when the station starts
    try:
        driver = FootSwitchDriver.from_config("pedals", switch.locator(), events, baudrate=0)
        drivers.append(driver)
        driver.start(WAIT)
        assert events.wait_kind(DeviceFault)[0].code == "busy"
    finally:
        other.close()  # it lets go: the next attempt, after the default back-off, takes it
    events.wait_kind(DeviceRecovered)
    switch.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_stopping_while_a_pedal_is_held_lets_go_of_the_device_at_once(events: EventLog,
                                                                     drivers: list[Any]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST, long_press_s=3600.0)
    drivers.append(driver)
    assert driver.start(WAIT)
    switch.press("left")  # held: its long press is an hour away
    wait_until(lambda: driver.stats.frames_in >= 1, WAIT, "the driver to read the key going down")
    driver.stop(WAIT)
    other = switch.other_reader()
    try:
        other.grab()  # EBUSY if the station still held it
        other.ungrab()
    finally:
        other.close()
    assert events.presses() == []


def test_each_press_is_counted_delivered_once_and_the_observer_told_each_count(events: EventLog,
                                                                              drivers: list[Any]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    delivered: Sink[int] = Sink()
    driver.observe_deliveries(delivered)
    assert driver.start(WAIT)
    for pedal in ("left", "centre", "right"):
        switch.click(pedal)
    assert events.wait_presses(3) == [("left", False), ("centre", False), ("right", False)]
    assert delivered.wait_for(lambda seen: len(seen) >= 3) == [1, 2, 3]
    assert driver.stats.events_delivered == 3 == len(events.wait_kind(ButtonPressed, 3))


# --- key presses ------------------------------------------------------------------------------------


def test_a_release_of_a_key_that_is_not_down_is_ignored() -> None:
    keys = KeyPresses(frozenset({F13}), debounce_s=0.030, long_press_s=0.800)
    assert keys.feed(F13, UP, 1.000) == []  # never seen down (its down lost before the grab)
    assert keys.feed(F13, DOWN, 2.000) == [] and keys.feed(F13, UP, 2.100) == []
    assert keys.due(2.200) == [KeyPress(F13)]
    assert keys.feed(F13, UP, 2.300) == []  # its press already taken: a stray second release
    assert keys.due(5.0) == [] and keys.next_due(5.0) is None and keys.held == frozenset()
    assert keys.counts.presses == 1


def test_a_second_release_during_the_debounce_time_does_not_push_the_press_back() -> None:
    keys = KeyPresses(frozenset({F13}), debounce_s=0.030, long_press_s=0.800)
    assert keys.feed(F13, DOWN, 1.000) == []
    assert keys.feed(F13, UP, 1.100) == []
    assert keys.feed(F13, UP, 1.120) == []  # a second "up" (a reader that sends one twice)
    assert keys.next_due(1.120) == pytest.approx(0.010)  # counted from the first release
    assert keys.due(1.131) == [KeyPress(F13)]  # 30 ms after the first release


# --- the listing of input devices --------------------------------------------------------------------

#: The kernel writes ``capabilities/key`` in words of its ``long``: this platform's C long.
WORD_BITS = struct.calcsize("l") * 8


class _ListedInReverse(PosixPath):
    """A sysfs directory that lists its entries in reverse order of their names (a directory
    gives them in no set order: ext4 by hash, tmpfs by creation)."""

    def glob(self, pattern: str) -> Iterator[Path]:  # type: ignore[override]
        return iter(sorted(super().glob(pattern), key=lambda p: p.name, reverse=True))


def _device(sysfs: Path, entry: str, name: str, key: int) -> None:
    device = sysfs / entry / "device"
    (device / "capabilities").mkdir(parents=True)
    (device / "name").write_text(f"{name}\n")
    value = 1 << key
    words = [(value >> (WORD_BITS * i)) & ((1 << WORD_BITS) - 1) for i in range(key // WORD_BITS + 1)]
    (device / "capabilities" / "key").write_text(" ".join(f"{w:x}" for w in reversed(words)) + "\n")


def test_nodes_are_listed_by_number_and_a_node_without_a_number_first(tmp_path: Path) -> None:
    sysfs = tmp_path / "sys"
    for entry in ("event2", "event10", "event1", "event-test"):
        _device(sysfs, entry, f"keypad {entry}", F13)
    found = input_devices(_ListedInReverse(sysfs), tmp_path / "dev")
    # the directory gives event2, event10, event1, event-test
    assert [d.node for d in found] == [str(tmp_path / "dev" / e) for e in ("event-test", "event1", "event2",
                                                                           "event10")]
