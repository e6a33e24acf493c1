"""A commodity foot switch through evdev, from the device's side: every pedal one press, the
device grabbed so that no other reader sees a press, repeats and chatter ignored, long presses,
unplug and replug through the shared reconnect engine, the wrong device refused in one line.

Each test runs on the rigs that this machine has:

* ``uinput``: a real virtual input device made with ``evdev.UInput`` (a PCsensor-like foot
  switch sending F13-F15), where ``/dev/uinput`` exists and may be written;
* ``stand-in``: where it does not (this machine and CI have no ``/dev/uinput``), the same tests
  against a stand-in at python-evdev's ``InputDevice`` boundary
  (``drivers/simulators/footswitch.py``): real file descriptors and ``select``, the kernel's
  rules for grabs (``EBUSY``, one reader only), unplug (``ENODEV``) and permissions. This is a
  stand-in, not the kernel: the uinput rig and the hardware contract test below check the
  same things on the real one.

The contract test against real hardware runs when ``STATION_CONTRACT_EVDEV=/dev/input/eventN``
(or an ``evdev://`` URL) names a foot switch, as the other contract tests do; with
``STATION_CONTRACT_INTERACTIVE=1`` and ``pytest -s`` it asks a person to press the pedals.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.devices import Backoff, FootSwitchDriver
from drivers.input.locator import parse_evdev_locator
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch, UInputFootSwitch, uinput_available
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

from ..waiting import wait_until

FAST = Backoff(0.02, 2.0, 0.2)
RIGS = ["stand-in", "uinput"]


@pytest.fixture(params=RIGS)
def switch(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "uinput":
        if not uinput_available():
            pytest.skip("no writable /dev/uinput here: the stand-in rig runs these tests instead")
        real = UInputFootSwitch()
        yield real
        real.close()
        return
    yield StandInFootSwitch()


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def make_driver(events: EventLog) -> Iterator[Callable[..., FootSwitchDriver]]:
    made: list[FootSwitchDriver] = []

    def make(locator: Any, start: bool = True, **options: Any) -> FootSwitchDriver:
        driver = FootSwitchDriver("pedals", locator, events, backoff=FAST, **options)
        made.append(driver)
        if start:
            driver.start(10.0)
        return driver

    yield make
    for driver in made:
        driver.stop()


def sees_nothing(reader: Any) -> bool:
    """A second reader of the node got no key event."""
    try:
        got = list(reader.read())
    except BlockingIOError:
        return True
    return not [e for e in got if e.type == 1]


def test_each_pedal_is_one_press_and_no_other_reader_sees_it(switch: Any, make_driver: Any, events: EventLog) -> None:
    driver = make_driver(switch.locator())
    assert driver.connected and driver.refused is None
    other = switch.other_reader()  # the kiosk's X server, a console: anyone else reading the node
    try:
        for pedal in ("left", "centre", "right"):
            switch.click(pedal)
        assert events.wait_presses(3) == [("left", False), ("centre", False), ("right", False)]
        assert sees_nothing(other), "the grab must keep every press from other readers"
    finally:
        other.close()
    assert [type(e).__name__ for e in events.events] == ["ButtonPressed"] * 3


def test_key_repeat_and_a_chattering_switch_are_one_press_each(switch: Any, make_driver: Any,
                                                               events: EventLog) -> None:
    driver = make_driver(switch.locator())
    switch.press("left")
    switch.repeat("left", 12)  # the kernel's autorepeat while the pedal is held
    switch.release("left")
    switch.chatter("right", bounces=4)
    switch.release("right")
    assert events.wait_presses(2) == [("left", False), ("right", False)]
    switch.click("centre")  # and the next press is a press
    assert events.wait_presses(3)[-1] == ("centre", False)
    assert driver.stats.duplicates >= 12 + 4  # repeats ignored and bounces merged, counted


def test_a_pedal_held_down_is_one_long_press_at_the_threshold(switch: Any, make_driver: Any,
                                                              events: EventLog) -> None:
    make_driver(switch.locator(), long_press_s=0.2)
    switch.press("centre")
    assert events.wait_presses(1) == [("centre", True)]  # while still held
    switch.release("centre")
    switch.click("left")
    assert events.wait_presses(2) == [("centre", True), ("left", False)]  # the release added nothing


def test_unplug_is_one_fault_and_replug_one_recovery(switch: Any, make_driver: Any, events: EventLog) -> None:
    driver = make_driver(switch.locator())
    switch.unplug()
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "disconnected" and fault.device == "pedals"
    # looking for it: no fault per attempt
    events.wait_for(lambda _: driver.stats.connect_attempts >= 3, what="3 attempts")
    switch.replug()  # a new node, found again by VID:PID (and its phys)
    events.wait_kind(DeviceRecovered)
    switch.click("right")
    events.wait_presses(1)
    assert [type(e).__name__ for e in events.events] == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]
    assert driver.stats.faults == 1 and driver.stats.reconnections == 1


def test_stop_gives_the_device_back_to_the_other_programs(switch: Any, make_driver: Any, events: EventLog) -> None:
    driver = make_driver(switch.locator())
    driver.stop()
    other = switch.other_reader()
    try:
        other.grab()  # would be EBUSY if the station still held it
        other.ungrab()
        switch.click("left")
        wait_until(lambda: not sees_nothing(other), 10, "the other reader to see the press", poll=0.01)
    finally:
        other.close()
    assert events.presses() == []


def test_a_pedal_stood_on_while_plugged_in_is_not_a_press(switch: Any, make_driver: Any, events: EventLog) -> None:
    switch.press("left")
    driver = make_driver(switch.locator())
    assert not driver.self_test().passed and "left (KEY_F13) is held down" in driver.self_test().detail
    switch.release("left")
    switch.click("right")
    assert events.wait_presses(1) == [("right", False)]
    assert driver.self_test().passed


def test_identity_status_and_self_test(switch: Any, make_driver: Any) -> None:
    driver = make_driver(switch.locator())
    identity = driver.identify()
    assert (identity.vendor_id, identity.product_id) == (0x0C45, 0x7403) and "FootSwitch" in identity.model
    assert identity.path.startswith("/dev/input/event")
    status = driver.status()
    assert status.ok and status.grabbed and status.keys == {"KEY_F13": "left", "KEY_F14": "centre", "KEY_F15": "right"}
    assert driver.self_test().passed


# --- the stand-in's own checks: what a real machine cannot be made to show on demand ---------


def test_the_wrong_device_is_refused_in_one_line(make_driver: Any, events: EventLog) -> None:
    backend = StandInBackend()
    StandInFootSwitch({"KEY_A": "a", "KEY_B": "b"}, backend=backend, name="Dell USB Keyboard")
    driver = make_driver(StandInFootSwitch.locator_for(backend, 0x0C45, 0x7403))
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "wrong-device"
    assert driver.refused == fault.reason
    assert "'Dell USB Keyboard'" in fault.reason and "has none of the keys KEY_F13, KEY_F14, KEY_F15" in fault.reason
    assert "it sends KEY_A, KEY_B" in fault.reason
    assert len(events.events) == 1


def test_two_units_alike_are_named_apart_by_their_place(make_driver: Any, events: EventLog) -> None:
    backend = StandInBackend()
    StandInFootSwitch(backend=backend, path="/dev/input/event5", phys="usb-0000:00:14.0-1/input0")
    second = StandInFootSwitch(backend=backend, path="/dev/input/event9", phys="usb-0000:00:14.0-4/input0")
    driver = make_driver(StandInFootSwitch.locator_for(backend, 0x0C45, 0x7403))
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "ambiguous" and "2 input devices are 0c45:7403" in fault.reason
    assert "/dev/input/event5 phys usb-0000:00:14.0-1/input0" in fault.reason and "?phys=" in fault.reason
    driver.stop()
    chosen = make_driver(StandInFootSwitch.locator_for(backend, 0x0C45, 0x7403, phys="usb-0000:00:14.0-4/input0"))
    assert chosen.connected and chosen.identify().path == "/dev/input/event9"
    second.click("left")
    assert events.wait_presses(1) == [("left", False)]


def test_a_node_the_service_user_may_not_read_names_the_udev_rule(make_driver: Any, events: EventLog) -> None:
    backend = StandInBackend()
    StandInFootSwitch(backend=backend, readable=False)
    make_driver(StandInFootSwitch.locator_for(backend, 0x0C45, 0x7403))
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "access-denied" and "systemd/61-dealing-station-input.rules" in fault.reason


def test_a_node_another_program_has_grabbed_is_busy_until_it_lets_go(make_driver: Any, events: EventLog) -> None:
    switch = StandInFootSwitch()
    other = switch.other_reader()
    other.grab()
    driver = make_driver(switch.locator())
    assert events.wait_kind(DeviceFault)[0].code == "busy"
    other.close()
    events.wait_kind(DeviceRecovered)
    assert driver.connected


def test_the_stand_in_keeps_the_kernels_grab_rules() -> None:
    """The stand-in is only worth its tests if it behaves as the kernel does where they look."""
    switch = StandInFootSwitch()
    first, second = switch.other_reader(), switch.other_reader()
    switch.click("left")
    assert not sees_nothing(first) and not sees_nothing(second)  # ungrabbed: every reader gets it
    first.grab()
    with pytest.raises(OSError) as busy:
        second.grab()
    assert busy.value.errno == errno.EBUSY
    switch.click("left")
    assert not sees_nothing(first) and sees_nothing(second)  # grabbed: only the grabber
    switch.unplug()
    with pytest.raises(OSError) as gone:
        first.read()
    assert gone.value.errno == errno.ENODEV
    first.close()
    second.close()


# --- real hardware --------------------------------------------------------------------------


def _hardware() -> str:
    named = os.environ.get("STATION_CONTRACT_EVDEV", "")
    if not named:
        pytest.skip("no foot switch named in STATION_CONTRACT_EVDEV (/dev/input/eventN or evdev://VID:PID)")
    return named if named.startswith("evdev:") else f"evdev://{named}"


def test_contract_a_real_foot_switch_is_found_grabbed_and_read(make_driver: Any, events: EventLog) -> None:
    url = _hardware()
    driver = make_driver(parse_evdev_locator(url))
    assert driver.connected, f"could not open {url}: {list(events.events)}"
    identity = driver.identify()
    assert identity.model and identity.path.startswith("/dev/input/")
    import evdev

    other = evdev.InputDevice(identity.path)
    try:
        with pytest.raises(OSError) as busy:
            other.grab()  # the station holds it: nobody else can take it, nor read its presses
        assert busy.value.errno == errno.EBUSY
        if os.environ.get("STATION_CONTRACT_INTERACTIVE") != "1":
            return
        print(f"\n>>> Press each pedal once, briefly: {', '.join(driver.buttons)}", file=sys.stderr, flush=True)
        got = events.wait_presses(len(driver.buttons))
        assert sorted(b for b, _ in got) == sorted(driver.buttons)
        assert other.read_one() is None, "another reader saw a press"
    finally:
        other.close()
