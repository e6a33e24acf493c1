"""Guard tests of the foot switch, the card reader and the input parts, round 22 (the ``drivers``
mutation guard, docs/testing.md), through evdev's stand-in (drivers/simulators/footswitch.py,
drivers/simulators/cardreader.py), a sysfs tree written in a temporary folder, and the input
parts' public functions.

Each test answers a mutant that survived the guard's tests:

* a line the card reader typed that holds no card's number is a bad read and only that: no
  ``PlayerCardRead`` is emitted for it and it is not counted a card, so the next good swipe is
  the first and only card (``drivers/devices/cardreader.py``, ``_typed``);
* a foot switch on a PC where python-evdev cannot be loaded is the fault ``no-backend`` saying
  why, never a driver error (``drivers/devices/footswitch.py``, ``_find``);
* a foot switch named by its node that the service user may not read is the fault
  ``access-denied`` naming the node and the udev rule to install (``_find``);
* an input device whose key bitmap in sysfs cannot be read (a word that is not hexadecimal)
  sends no keys: ``station diag ports`` does not list it, and never makes keys up from the other
  words (``drivers/input/listing.py``, ``_key_bits``);
* a switch that bounces once as it opens is counted as one bounce, and the press is one press
  (``drivers/input/presses.py``, ``KeyPresses.feed``);
* text with a character a card reader cannot type is a ValueError saying which character, from
  ``keys_for`` (``drivers/input/wedge.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drivers.devices import Backoff, FootSwitchDriver
from drivers.devices.cardreader import CardReaderDriver
from drivers.input.backend import EvdevUnavailable
from drivers.input.listing import input_devices
from drivers.input.locator import EvdevLocator
from drivers.input.presses import KeyPress, KeyPresses
from drivers.input.wedge import keys_for
from drivers.simulators.cardreader import StandInCardReader
from drivers.simulators.footswitch import StandInFootSwitch
from station.events import DeviceFault, PlayerCardRead
from tests.devices.rigs import EventLog

from ..waiting import wait_until
from .helpers import WAIT

BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
KEY_F13 = 183


# --- the card reader: a bad read is no card ------------------------------------------------------


def test_a_line_with_no_card_number_emits_nothing_and_the_next_swipe_is_the_only_card(
        events: EventLog, drivers: list[Any]) -> None:
    """A swipe read badly (half a track, no number to take) is counted a bad read; no
    PlayerCardRead goes out for it and it is not a card read. The good swipe after it is the
    first and only card the station hears of."""
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=BACKOFF)
    drivers.append(driver)
    assert driver.start(WAIT)
    reader.type("%B4000123456789")  # half a track 1: no card's number in it
    wait_until(lambda: driver.bad_reads == 1, WAIT, "the half track counted a bad read")
    reader.swipe("5555444433")
    assert [e.card for e in events.wait_kind(PlayerCardRead, 1)] == ["5555444433"]
    assert [e.card for e in events.events if isinstance(e, PlayerCardRead)] == ["5555444433"]
    assert driver.cards_read == 1 and driver.bad_reads == 1
    assert driver.stats.events_delivered == 1 and driver.stats.bad_frames == 1


# --- the foot switch: why it cannot be used --------------------------------------------------------


def test_a_foot_switch_without_python_evdev_is_the_fault_no_backend_saying_why(
        events: EventLog, drivers: list[Any]) -> None:
    """When python-evdev cannot be loaded the foot switch is unusable for that reason: one
    DeviceFault with the code ``no-backend`` and the loader's words, not a driver error."""
    def no_evdev() -> Any:
        raise EvdevUnavailable("python-evdev cannot be loaded: no module named 'evdev'")

    locator = EvdevLocator(None, 0x0C45, 0x7403, backend_factory=no_evdev, url="evdev://0c45:7403 (no evdev)")
    driver = FootSwitchDriver("footswitch", locator, events, backoff=BACKOFF)
    drivers.append(driver)
    assert not driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "no-backend"
    assert "python-evdev cannot be loaded" in fault.reason


def test_a_node_named_by_path_that_may_not_be_read_is_access_denied_naming_the_udev_rule(
        events: EventLog, drivers: list[Any]) -> None:
    """A foot switch configured by its node, which the service user may not open, is the fault
    ``access-denied`` naming the node and the udev rule that grants access."""
    switch = StandInFootSwitch(readable=False)
    path = switch.device.path
    driver = FootSwitchDriver("footswitch", switch.locator(path=path), events, backoff=BACKOFF)
    drivers.append(driver)
    assert not driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "access-denied"
    assert path in fault.reason and "61-dealing-station-input.rules" in fault.reason


# --- the input devices listed from sysfs ---------------------------------------------------------------


def _event_node(sysfs: Path, number: int, name: str, key_bitmap: str) -> None:
    device = sysfs / f"event{number}" / "device"
    (device / "capabilities").mkdir(parents=True)
    (device / "id").mkdir()
    (device / "name").write_text(f"{name}\n")
    (device / "id" / "vendor").write_text("0c45\n")
    (device / "id" / "product").write_text("7403\n")
    (device / "capabilities" / "key").write_text(f"{key_bitmap}\n")


def test_a_device_whose_key_bitmap_cannot_be_read_sends_no_keys_and_is_not_listed(tmp_path: Path) -> None:
    """A capabilities bitmap with a word that is not hexadecimal says nothing about the device's
    keys: the device is not listed, and no keys are made up from its readable words. A device
    with a readable bitmap beside it is listed."""
    sysfs, dev = tmp_path / "sys", tmp_path / "dev"
    sysfs.mkdir()
    dev.mkdir()
    _event_node(sysfs, 3, "Garbled Device", "nothex 2")  # the low word alone would be KEY_ESC
    _event_node(sysfs, 4, "Foot Switch", "1e00000000000000 0 0")  # KEY_F13-F16: bits 185-188 = 128+57..60
    found = input_devices(sysfs, dev)
    assert [info.name for info in found] == ["Foot Switch"]
    assert found[0].node == str(dev / "event4")


# --- presses: a bounce is one bounce ---------------------------------------------------------------------


def test_one_bounce_on_release_is_counted_once_and_the_press_is_one_press() -> None:
    """The switch opens, bounces closed within the debounce time, and opens for good: one
    bounce counted, one (short) press reported once the key has stayed up."""
    presses = KeyPresses(frozenset({KEY_F13}), debounce_s=0.030, long_press_s=0.800)
    got: list[KeyPress] = []
    got += presses.feed(KEY_F13, 1, 0.000)
    got += presses.feed(KEY_F13, 0, 0.100)
    got += presses.feed(KEY_F13, 1, 0.105)  # back down 5 ms after the up: a bounce
    got += presses.feed(KEY_F13, 0, 0.110)
    got += presses.due(0.500)
    assert got == [KeyPress(KEY_F13, long=False)]
    assert presses.counts.bounces == 1 and presses.counts.presses == 1


# --- the wedge: what a reader cannot type ------------------------------------------------------------------


def test_text_with_a_character_no_reader_types_is_a_value_error_naming_it() -> None:
    """A simulated reader types only what a US-layout keyboard types: a character outside it
    is refused with a ValueError that names it."""
    with pytest.raises(ValueError, match="a reader does not type 'é'"):
        keys_for("PC-é01")
