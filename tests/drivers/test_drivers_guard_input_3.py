"""Guard tests of the input devices' listing and locator, third set (the ``drivers`` mutation
guard, docs/testing.md), through ``input_devices`` on a sysfs tree written as the kernel writes it
and through ``parse_evdev_locator``.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* ``station diag ports`` says a device sends F13-F24 (what a foot switch is programmed to) when
  it can send any one of those twelve keys, the first (F13) and the last (F24) included, and
  not for the keys either side of the range (``drivers/input/listing.py``, ``input_devices``);
* an ``evdev:`` locator's option (``serial``, ``phys``, ``name``) takes exactly one value: an
  option given empty or twice is refused with a message naming it, never read as "the device
  whose serial is empty" or as the first of the two (``drivers/input/locator.py``,
  ``parse_evdev_locator``).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from drivers.input.keys import key_code
from drivers.input.listing import input_devices
from drivers.input.locator import EvdevLocatorError, parse_evdev_locator

#: The kernel writes ``capabilities/key`` in words of its ``long``: this platform's C long.
WORD_BITS = struct.calcsize("l") * 8


def _bitmap(keys: set[int]) -> str:
    """``capabilities/key`` as sysfs shows it: hex words, the highest first, without leading zeros."""
    value = sum(1 << key for key in keys)
    words = [(value >> (WORD_BITS * i)) & ((1 << WORD_BITS) - 1) for i in range(max(keys) // WORD_BITS + 1)]
    return " ".join(f"{word:x}" for word in reversed(words))


def _device(root: Path, number: int, keys: set[int]) -> None:
    device = root / "sys" / f"event{number}" / "device"
    (device / "capabilities").mkdir(parents=True)
    (device / "name").write_text(f"keypad {number}\n")
    (device / "capabilities" / "key").write_text(_bitmap(keys) + "\n")
    (root / "dev").mkdir(exist_ok=True)


def test_a_device_that_can_send_f13_or_f24_is_listed_as_sending_f13_to_f24(tmp_path: Path) -> None:
    letter_a, f12, f13, f24 = (key_code(name) for name in ("KEY_A", "KEY_F12", "KEY_F13", "KEY_F24"))
    assert (f13, f24) == (183, 194)  # linux/input-event-codes.h: the twelve codes 183-194
    _device(tmp_path, 1, {letter_a, f24})  # the last key of the range only
    _device(tmp_path, 2, {letter_a, f13})  # the first only
    _device(tmp_path, 3, {letter_a, f12, f13 - 1, f24 + 1})  # the keys either side, none inside
    found = input_devices(tmp_path / "sys", tmp_path / "dev")
    assert [(d.name, d.keys, d.f13_f24) for d in found] == [
        ("keypad 1", 2, True), ("keypad 2", 2, True), ("keypad 3", 4, False)]


@pytest.mark.parametrize(("query", "option"), [
    ("serial=", "serial"),
    ("serial=FS-1&serial=FS-2", "serial"),
    ("phys=", "phys"),
    ("name=", "name"),
])
def test_an_evdev_locator_option_needs_exactly_one_value(query: str, option: str) -> None:
    with pytest.raises(EvdevLocatorError, match=f"option '{option}' needs exactly one value"):
        parse_evdev_locator(f"evdev://0c45:7403?{query}")


def test_an_evdev_locator_option_with_one_value_is_kept() -> None:
    locator = parse_evdev_locator("evdev://0c45:7403?serial=FS-1&phys=usb-1/input0&name=FootSwitch")
    assert (locator.vendor_id, locator.product_id) == (0x0C45, 0x7403)
    assert (locator.serial, locator.phys, locator.name) == ("FS-1", "usb-1/input0", "FootSwitch")
