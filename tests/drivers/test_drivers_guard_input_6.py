"""Guard tests of the foot switch's locator, sixth set (the ``drivers`` mutation guard,
docs/testing.md), through ``parse_evdev_locator``.

Each test answers a mutant that survived the guard's tests:

* an ``evdev:`` locator names the foot switch either by its node path
  (``evdev:///dev/input/by-id/...``) or by VID:PID (``evdev://0c45:7403``), never both: a
  locator giving both is refused with a message saying so, not read as the VID:PID alone with
  the path silently dropped (``drivers/input/locator.py``, ``parse_evdev_locator``).
"""

from __future__ import annotations

import pytest

from drivers.input.locator import EvdevLocatorError, parse_evdev_locator


@pytest.mark.parametrize("url", [
    "evdev://0c45:7403/dev/input/by-id/usb-PCsensor_FootSwitch-event-kbd",
    "evdev://0c45:7403/dev/input/event3?serial=FS-1",
])
def test_a_foot_switch_locator_giving_both_a_node_path_and_vid_pid_is_refused(url: str) -> None:
    with pytest.raises(EvdevLocatorError,
                       match=r"give either a node path \(evdev:///dev/input/\.\.\.\) or VID:PID, not both"):
        parse_evdev_locator(url)


@pytest.mark.parametrize("url", ["evdev://0c45:7403", "evdev://0c45:7403/"])
def test_a_foot_switch_locator_by_vid_pid_alone_is_accepted(url: str) -> None:
    locator = parse_evdev_locator(url)
    assert (locator.path, locator.vendor_id, locator.product_id) == (None, 0x0C45, 0x7403)
