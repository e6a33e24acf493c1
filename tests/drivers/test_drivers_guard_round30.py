"""Guard tests of the USB pedals' button names, round 30 (the ``drivers`` mutation guard,
docs/testing.md): the pedals driver against the simulated unit on the simulated pyusb bus.

Each test answers a mutant that survived the guard's tests:

* the station names a button by its configured name, and a button beyond the configured names
  by its 1-based number, starting with the very first button past the last name (a unit with
  four buttons, three of them named: its fourth is ``button4``); such a press is delivered like
  any other, and the link is not lost over it (``drivers/devices/pedals.py``, ``button_name``).
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
