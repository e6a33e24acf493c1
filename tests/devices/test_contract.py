"""The device contract: what every device does, serial or USB, run on every rig (conftest.py).

Like python-can running one suite over every bus, each check here holds for the shoe, the
shuffler, the display board, the progressive sign, the chip reader, the button box and the
pedals, over their simulators and over real hardware, and uses nothing but the contract
(``drivers/devices/contract.py``). What only one transport has (the serial link's bytes, the
pedals' USB interface) is checked in ``test_serial_link.py`` and ``test_usb_pedals.py`` beside
this file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.devices.contract import FROM_DEVICE_DIRECTIONS, Device, Identity, SelfTestReport
from drivers.devices.stats import DeviceStats
from station.events import DeviceBooted, DeviceFault, DeviceRecovered, Event

from .rigs import WAIT_S, EventLog, Rig


def _stimulus(rig: Rig) -> None:
    rig.act("make the device send an event", rig.profile.instruction, rig.profile.stimulus)


def _link_events(rig: Rig, events: list[Event]) -> list[Event]:
    """Faults and recoveries of the link itself (a display's panel fault, a sign's dark LED row,
    a chip reader's lost antenna, is its stimulus, not one)."""
    return [e for e in events if isinstance(e, (DeviceFault, DeviceRecovered)) and not rig.profile.expected(e)]


def test_identifies_itself_and_answers_the_contract(rig: Rig, device: Device) -> None:
    identity = device.identify()
    assert isinstance(identity, Identity)
    assert identity.model and identity.serial and identity.firmware
    if rig.simulator is not None:  # the version it was built to, as the handshake told it
        assert identity.protocol_version == rig.simulator.protocol_version
    assert device.refused is None
    assert isinstance(device.stats, DeviceStats) and device.stats.connect_attempts >= 1
    assert device.status() is not None
    assert device.wait_connected(0.0)


def test_a_healthy_idle_unit_passes_its_self_test(device: Device) -> None:
    report = device.self_test()
    assert isinstance(report, SelfTestReport) and isinstance(report.passed, bool)
    assert report.passed, report
    assert report.detail


def test_an_idle_unit_gives_no_events_and_answers_heartbeats(device: Device, events: EventLog) -> None:
    enough = device.stats.heartbeats + 3
    events.wait_for(lambda _: device.stats.heartbeats >= enough, what=f"{enough} heartbeats")
    # A shuffler passes its power-up report on (the station then asks its state); nothing else comes.
    assert [e for e in events.events if not isinstance(e, DeviceBooted)] == []
    assert device.stats.bad_frames == 0 and device.stats.faults == 0


def test_a_device_event_reaches_the_station_once_and_is_counted(rig: Rig, device: Device, events: EventLog) -> None:
    counts: list[int] = []
    device.observe_deliveries(counts.append)
    before = device.stats.events_delivered
    _stimulus(rig)
    events.wait_matching(rig.profile.expected, timeout=60)
    if rig.simulator is not None:
        assert rig.profile.wait_idle(rig.simulator, WAIT_S)  # every resend answered, every report read
    assert len([e for e in events.events if rig.profile.expected(e)]) == 1
    # the observer saw the running count, each device event once, on the way to the station
    assert counts and counts[0] == before + 1
    assert counts == list(range(before + 1, device.stats.events_delivered + 1))
    device.observe_deliveries(None)


def test_a_long_press_is_one_long_press(rig: Rig, device: Device, events: EventLog) -> None:
    profile = rig.profile
    if profile.long_press is None or profile.expected_long is None:
        return  # a device without buttons has nothing to hold
    rig.act("hold a button", profile.long_instruction, profile.long_press)
    events.wait_matching(profile.expected_long, timeout=60)
    if rig.simulator is not None:
        assert profile.wait_idle(rig.simulator, WAIT_S)
    assert [type(e).__name__ for e in events.events] == ["ButtonPressed"]


def test_unplug_is_one_fault_and_replug_recovers(rig: Rig, device: Device, events: EventLog) -> None:
    rig.act("pull the cable", f"Unplug the {rig.device}'s cable.", lambda sim: sim.unplug())
    fault = events.wait_kind(DeviceFault, timeout=60)[-1]
    assert fault.device == rig.device and fault.code in rig.profile.unplug_codes
    rig.act("plug the cable back", f"Plug the {rig.device} back in.", lambda sim: sim.replug())
    events.wait_kind(DeviceRecovered, timeout=60)
    _stimulus(rig)
    events.wait_matching(rig.profile.expected, timeout=60)
    assert [type(e).__name__ for e in events.events][:2] == ["DeviceFault", "DeviceRecovered"]
    assert len(_link_events(rig, events.events)) == 2  # one fault for the outage, however many attempts failed
    assert len([e for e in events.events if rig.profile.expected(e)]) == 1
    assert device.stats.faults == 1 and device.stats.reconnections == 1


def test_stop_lets_go_of_the_device_for_other_programs(device: Device, make_device: Callable[..., Device]) -> None:
    device.stop()
    assert not device.connected
    other = make_device()  # would find the port locked or the interface claimed if still held
    assert other.connected


def test_taps_see_the_frames_and_can_be_removed(rig: Rig, device: Device, events: EventLog) -> None:
    seen: list[tuple[str, bytes, Any]] = []
    remove = device.add_tap(lambda direction, raw, decoded: seen.append((direction, raw, decoded)))
    _stimulus(rig)
    events.wait_matching(rig.profile.expected, timeout=60)
    assert any(direction in FROM_DEVICE_DIRECTIONS and raw for direction, raw, _ in seen)
    remove()
    count = len(seen)
    device.remove_tap(lambda *frame: None)  # removing a tap that is not there is harmless
    events.wait_for(lambda _: device.stats.heartbeats >= 2, what="2 heartbeats")  # traffic goes on, unseen
    assert len(seen) == count
    assert device.recent_frames() and all(len(frame) == 4 for frame in device.recent_frames())


def test_a_damaged_frame_is_counted_and_never_an_event(rig: Rig, device: Device, events: EventLog) -> None:
    simulator = rig.simulated()
    rig.profile.damage_next(simulator)
    rig.profile.stimulus(simulator)  # what the damaged frame carried: resent on a serial link, lost on USB
    events.wait_for(lambda _: device.stats.bad_frames >= 1, what="a bad frame")
    assert rig.profile.wait_idle(simulator, WAIT_S)
    rig.profile.stimulus(simulator)
    assert rig.profile.wait_idle(simulator, WAIT_S)
    events.wait_matching(rig.profile.expected)
    assert 1 <= len([e for e in events.events if rig.profile.expected(e)]) <= 2
    assert _link_events(rig, events.events) == [] and device.stats.faults == 0  # damage is not an outage


def test_a_hung_unit_is_a_fault_until_it_answers_again(
    rig: Rig, make_device: Callable[..., Device], events: EventLog
) -> None:
    simulator = rig.simulated()
    quick = {} if rig.profile.transport == "serial" else {"control_timeout_ms": 50}
    device = make_device(**quick)
    assert device.connected
    rig.profile.hang(simulator)
    assert events.wait_kind(DeviceFault)[-1].code == rig.profile.hang_code
    rig.profile.unhang(simulator)
    events.wait_kind(DeviceRecovered)
    rig.profile.stimulus(simulator)
    events.wait_matching(rig.profile.expected)
    # The link's own events, in order (a shuffler's power-on report may come before the hang).
    assert [type(e).__name__ for e in _link_events(rig, events.events)] == ["DeviceFault", "DeviceRecovered"]
    assert device.stats.faults == 1


def test_start_on_an_absent_device_is_a_fault_then_a_recovery(
    rig: Rig, make_device: Callable[..., Device], events: EventLog
) -> None:
    simulator = rig.simulated()
    simulator.unplug()
    device = make_device(start=False)
    assert not device.start(0.2)
    assert events.wait_kind(DeviceFault)[0].device == rig.device
    simulator.replug()
    events.wait_kind(DeviceRecovered)
    assert device.wait_connected(WAIT_S)
    assert device.stats.connect_attempts >= 2 and device.stats.faults == 1
