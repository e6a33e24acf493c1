"""Guard tests of the USB pedals' button names, round 30 (the ``drivers`` mutation guard,
docs/testing.md): the pedals driver against the simulated unit on the simulated pyusb bus.

Each test answers a mutant that survived the guard's tests:

* the station names a button by its configured name, and a button beyond the configured names
  by its 1-based number, starting with the very first button past the last name (a unit with
  four buttons, three of them named: its fourth is ``button4``); such a press is delivered like
  any other, and the link is not lost over it (``drivers/devices/pedals.py``, ``button_name``);
* the pedals keep their last 32 reports for the fault report, as a serial link keeps its last
  32 frames (``history``).
"""

from __future__ import annotations

from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.locator import simulated_locator
from tests.devices.rigs import EventLog


def test_the_first_button_past_the_configured_names_is_named_by_its_number(
    events: EventLog, drivers: list[PedalDriver]
) -> None:
    """Three names for a four-button unit: the fourth button's click is a short press of
    ``button4``, and a named button's click after it is delivered on the same link."""
    pedal = SimulatedPedal("PED-SIM-0030", buttons=("a", "b", "c", "d"), timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0030"), events,
                         buttons=("a", "b", "c"), backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2),
                         read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    pedal.click("d")
    pedal.click("a")
    assert events.wait_presses(2) == [("button4", False), ("a", False)]
    assert driver.stats.faults == 0
    assert driver.stats.reconnections == 0


def test_the_pedals_keep_their_last_32_reports_for_the_fault_report(events: EventLog,
                                                                    drivers: list[PedalDriver]) -> None:
    pedal = SimulatedPedal("PED-SIM-0031", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0031"), events,
                         backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2), read_timeout_ms=50,
                         heartbeat_s=600.0)
    drivers.append(driver)
    driver.start()
    for count in range(1, 18):  # 34 reports: a down and an up each, each press taken before the next
        pedal.click(driver.buttons[0])
        events.wait_presses(count)
    kept = driver.recent_frames()
    assert len(kept) == 32 and driver.stats.frames_in == 34
    assert all(direction == "in" for _, direction, _, _ in kept)
