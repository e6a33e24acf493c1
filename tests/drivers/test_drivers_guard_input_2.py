"""Guard tests of the foot switch's driver and its locator, second set (the ``drivers``
mutation guard, docs/testing.md), through evdev's stand-in (drivers/simulators/footswitch.py)
and nodes that fail to open on purpose.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* a foot switch says who it is as its node says: name, serial (``uniq``), place
  (``drivers/devices/footswitch.py``, ``identify``);
* its status names the pedals held down now, and only those (``status``);
* a node named by its path that is not there is the outage ``not-found`` naming the path; one
  that fails to open otherwise (an I/O error) is the outage of that error, not a driver error,
  and is tried again (``_find``, ``open`` and ``_close_device`` with nothing open yet);
* a locator naming a node path matches whatever device is found there
  (``drivers/input/locator.py``, ``EvdevLocator.matches``).
"""

from __future__ import annotations

import errno

from drivers.devices import Backoff, FootSwitchDriver
from drivers.input.locator import EvdevLocator, parse_evdev_locator
from drivers.simulators.footswitch import NAME, StandInBackend, StandInFootSwitch, StandInHandle
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

FAST = Backoff(0.02, 2.0, 0.2)
WAIT = 10.0




def test_a_foot_switch_says_who_it_is_as_its_node_does(events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch(uniq="FS-0042", phys="usb-0000:00:14.0-3/input0")
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    who = driver.identify()
    assert (who.model, who.serial, who.phys, who.path) == (NAME, "FS-0042", "usb-0000:00:14.0-3/input0",
                                                           "/dev/input/event7")
    assert (who.vendor_id, who.product_id, who.firmware) == (0x0C45, 0x7403, "0110")
    assert who.protocol_version == 1  # a keyboard speaks no station protocol: 1, as any device that does not say


def test_the_status_names_the_pedals_held_down_now(events: EventLog, drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    status = driver.status()
    assert (status.ok, status.held, status.problems) == (True, (), ())
    switch.press("right")
    status = driver.status()
    assert (status.ok, status.held) == (False, ("right",))
    assert len(status.problems) == 1 and status.problems[0].startswith("right (") and "held down" in status.problems[0]
    switch.release("right")
    assert driver.status().held == ()


def test_a_node_path_that_is_not_there_is_the_outage_not_found(events: EventLog,
                                                              drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch()
    driver = FootSwitchDriver("pedals", switch.locator(path="/dev/input/event99"), events, backoff=FAST)
    drivers.append(driver)
    driver.start(0)
    fault = events.wait_kind(DeviceFault)[0]
    assert (fault.code, fault.reason) == ("not-found", "no input device /dev/input/event99")


class _OpenFailsOnce(StandInBackend):
    """A node whose first open fails with an I/O error (a hub browning out); later opens work."""

    def __init__(self, switch: StandInFootSwitch) -> None:
        super().__init__(switch.backend.devices)
        self.failed = False

    def open(self, path: str) -> StandInHandle:
        if not self.failed:
            self.failed = True
            raise OSError(errno.EIO, "Input/output error", path)
        return super().open(path)


def test_a_node_that_fails_to_open_is_the_outage_of_its_error(events: EventLog,
                                                             drivers: list[FootSwitchDriver]) -> None:
    switch = StandInFootSwitch()
    backend = _OpenFailsOnce(switch)
    locator = EvdevLocator(switch.device.path, backend_factory=lambda: backend, url="evdev:///dev/input/event7")
    driver = FootSwitchDriver("pedals", locator, events, backoff=FAST)
    drivers.append(driver)
    driver.start(0)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "io-error" and fault.reason.startswith("/dev/input/event7: ")
    events.wait_kind(DeviceRecovered)
    switch.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_a_locator_naming_a_node_path_matches_whatever_is_there() -> None:
    by_path = parse_evdev_locator("evdev:///dev/input/by-id/usb-PCsensor_FootSwitch-event-kbd")
    assert by_path.matches(0x0C45, 0x7403, "", "", NAME)
    assert by_path.matches(0x1234, 0x5678, "X", "usb-1", "another keyboard")
    by_ids = parse_evdev_locator("evdev://0c45:7403")
    assert by_ids.matches(0x0C45, 0x7403, "", "", NAME) and not by_ids.matches(0x1234, 0x5678, "", "", NAME)
