"""The pedal driver over the real pyusb path: presses, faults, reconnection, taps, self-test.

Every test waits for events with generous timeouts; none asserts how long anything took.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.devices import Backoff, DeviceUnavailable, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.faults import CORRUPTIONS
from drivers.usb.codec import PedalReport, ReportError
from drivers.usb.locator import simulated_locator
from station.events import ButtonPressed, DeviceFault, DeviceRecovered

from ..waiting import wait_until

MakeDriver = Callable[..., PedalDriver]


def test_short_and_long_presses(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    assert driver.connected
    pedal.click("left")
    pedal.long_press("right")
    pedal.click("2")
    pedal.hold_long("centre")
    assert events.wait_presses(4) == [("left", False), ("right", True), ("centre", False), ("centre", True)]
    pedal.release("centre")  # the UP after a long press emits nothing more
    pedal.click("left")
    assert events.wait_presses(5)[-1] == ("left", False)
    assert events.presses().count(("centre", True)) == 1
    assert events.kinds() == ["ButtonPressed"] * 5


def test_press_then_release_later_is_one_short_press(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.press("left")
    assert pedal.wait_drained(10)
    assert events.presses() == []  # nothing until the release
    pedal.release("left")
    assert events.wait_presses(1) == [("left", False)]


def test_device_side_timer_makes_a_held_button_a_long_press(make_driver: MakeDriver, events: Any) -> None:
    pedal = SimulatedPedal("PED-T", long_press_ms=30, timed_long_press=True)
    make_driver(simulated_locator(SimulatedBackend([pedal]), "PED-T"))
    pedal.press("right")
    assert events.wait_presses(1) == [("right", True)]  # fired while still held
    pedal.release("right")
    pedal.click("left")
    assert events.wait_presses(2) == [("right", True), ("left", False)]


def test_duplicated_reports_give_one_press_each(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.duplicate_next(4)
    pedal.click("left")
    pedal.long_press("right")
    pedal.click("centre")
    assert events.wait_presses(3) == [("left", False), ("right", True), ("centre", False)]
    assert pedal.wait_drained(10)
    assert driver.stats.duplicates == 4
    assert events.presses() == [("left", False), ("right", True), ("centre", False)]


def test_reports_lost_in_the_device_are_counted(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.click("centre")  # the first report of a connection sets the sequence baseline
    pedal.drop_next(2)  # a whole press (DOWN and UP) never leaves the device
    pedal.click("left")
    pedal.click("right")
    assert events.wait_presses(2) == [("centre", False), ("right", False)]
    assert driver.stats.lost == 2


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_each_corruption_is_counted_and_never_a_press(
    driver: PedalDriver, pedal: SimulatedPedal, events: Any, how: str
) -> None:
    seen: list[tuple[str, bytes, Any]] = []
    driver.add_tap(lambda direction, raw, decoded: seen.append((direction, raw, decoded)))
    pedal.corrupt_next(2, how)  # both reports of the first press are damaged
    pedal.click("left")
    pedal.click("right")
    assert events.wait_presses(1) == [("right", False)]
    assert pedal.wait_drained(10)
    assert driver.stats.bad_frames == 2
    assert events.kinds() == ["ButtonPressed"]  # corruption is not a device fault
    errors = [decoded for _, _, decoded in seen if isinstance(decoded, ReportError)]
    assert len(errors) == 2


def test_corrupt_up_loses_that_press_but_not_the_next(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.drop_next(0)
    pedal.press("left")
    pedal.corrupt_next(1, "checksum")
    pedal.release("left")
    pedal.click("centre")
    assert events.wait_presses(1) == [("centre", False)]
    assert driver.stats.bad_frames == 1 and driver.stats.lost == 1


def test_transient_stall_is_cleared_without_a_fault(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.stall()
    pedal.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert pedal.counters.clear_halts >= 1 and driver.stats.errors_by_kind["stalled"] >= 1
    assert events.kinds() == ["ButtonPressed"]


def test_persistent_stall_is_a_fault_until_it_ends(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.stall(persistent=True)
    fault = events.wait_kind(DeviceFault)[-1]
    assert fault.code == "stalled"
    pedal.unstall()
    events.wait_kind(DeviceRecovered)
    pedal.click("right")
    events.wait_presses(1)
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_slow_device_delivers_late_without_a_fault(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    make_driver(simulated_locator(bus, "PED-SIM-0001"), heartbeat_s=0.05)
    pedal.set_latency(0.3)
    pedal.click("left")
    pedal.long_press("centre")
    assert events.wait_presses(2) == [("left", False), ("centre", True)]
    assert events.kinds() == ["ButtonPressed", "ButtonPressed"]


def test_hung_device_is_found_by_the_heartbeat(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    driver = make_driver(simulated_locator(bus, "PED-SIM-0001"), heartbeat_s=0.05, control_timeout_ms=50)
    pedal.hang()
    fault = events.wait_kind(DeviceFault)[-1]
    assert fault.code == "no-response"
    assert not driver.connected or driver.stats.faults == 1
    pedal.unhang()
    events.wait_kind(DeviceRecovered)
    pedal.click("left")
    events.wait_presses(1)
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_unplug_mid_stream_and_replug(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.click("left")
    pedal.hold_long("right")
    events.wait_presses(2)
    pedal.unplug()  # with the right pedal still held
    fault = events.wait_kind(DeviceFault)[-1]
    assert fault.code == "disconnected" and fault.device == "pedals"
    pedal.replug()
    # Pressed straight after replug: buffered by the device until the station reconnects.
    pedal.click("centre")
    pedal.long_press("left")
    pedal.click("right", times=3)
    presses = events.wait_presses(7)
    events.wait_kind(DeviceRecovered)
    assert presses == [
        ("left", False), ("right", True),
        ("centre", False), ("left", True), ("right", False), ("right", False), ("right", False),
    ]
    kinds = events.kinds()
    assert kinds[2:4] == ["DeviceFault", "DeviceRecovered"]
    assert kinds.count("DeviceFault") == 1 and kinds.count("DeviceRecovered") == 1
    assert pedal.counters.kernel_detaches == 2  # the OS re-bound its driver on replug
    assert driver.stats.reconnections == 1


def test_repeated_unplug_gives_one_fault_per_outage(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    for round_number in range(1, 4):
        pedal.unplug()
        events.wait_kind(DeviceFault, round_number)
        pedal.replug()
        events.wait_kind(DeviceRecovered, round_number)
        pedal.click("left")
        events.wait_presses(round_number)
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"] * 3


def test_absent_at_start_then_plugged_in(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    pedal.unplug()
    driver = make_driver(simulated_locator(bus, "PED-SIM-0001"))
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "not-found" and "1209:0001 serial PED-SIM-0001" in fault.reason
    assert not driver.connected
    with pytest.raises(DeviceUnavailable):
        driver.identify()
    with pytest.raises(DeviceUnavailable):  # no verdict from a unit that is not there
        driver.self_test()
    pedal.replug()
    events.wait_kind(DeviceRecovered)
    assert driver.stats.connect_attempts >= 2


def test_wrong_serial_is_not_found(make_driver: MakeDriver, bus: SimulatedBackend, events: Any) -> None:
    make_driver(simulated_locator(bus, "PED-OTHER"))
    assert events.wait_kind(DeviceFault)[0].code == "not-found"


def test_interface_held_by_another_program_is_busy(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    import usb.core
    import usb.util

    other = usb.core.find(idVendor=0x1209, idProduct=0x0001, backend=bus)
    other.detach_kernel_driver(0)
    other.set_configuration()
    usb.util.claim_interface(other, 0)
    make_driver(simulated_locator(bus, "PED-SIM-0001"))
    assert events.wait_kind(DeviceFault)[0].code == "busy"
    usb.util.dispose_resources(other)  # the other program exits
    events.wait_kind(DeviceRecovered)


@pytest.mark.e2e
def test_usb_locator_uses_the_real_libusb_backend(make_driver: MakeDriver, events: Any) -> None:
    """usb:// goes through pyusb's libusb-1.0 backend: on this machine it loads and finds no pedals."""
    import usb.backend.libusb1

    if usb.backend.libusb1.get_backend() is None:
        pytest.skip("libusb-1.0 is not installed here")
    driver = make_driver("usb://1209:0001?serial=PED-0001")
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "not-found" and "1209:0001 serial PED-0001" in fault.reason
    assert not driver.connected


def test_missing_libusb_is_a_fault_not_a_crash(make_driver: MakeDriver, events: Any) -> None:
    """A table PC without libusb-1.0: pyusb's get_backend() returns None. The factory here returns
    None the same way (libusb is installed on this machine, so it cannot be made to fail)."""
    from drivers.usb.locator import PedalLocator

    driver = make_driver(PedalLocator(backend_factory=lambda: None, url="usb://1209:0001"))
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "no-backend" and "libusb-1.0" in fault.reason
    assert not driver.connected


def test_stop_gives_the_device_back(driver: PedalDriver, pedal: SimulatedPedal) -> None:
    assert pedal.claimed and not pedal.kernel_driver_bound
    driver.stop()
    assert not pedal.claimed and pedal.kernel_driver_bound
    assert pedal.counters.kernel_attaches == 1


def test_identify_reads_the_descriptors(make_driver: MakeDriver, events: Any) -> None:
    pedal = SimulatedPedal("PED-0042", firmware="2.13", timed_long_press=False)
    driver = make_driver(simulated_locator(SimulatedBackend([pedal]), "PED-0042"))
    identity = driver.identify()
    assert (identity.manufacturer, identity.model) == ("Dealing Station", "Dealer Pedals")
    assert (identity.serial, identity.firmware) == ("PED-0042", "2.13")
    assert (identity.vendor_id, identity.product_id, identity.address) == (0x1209, 0x0001, pedal.address)


def test_self_test_reports_problems(driver: PedalDriver, pedal: SimulatedPedal) -> None:
    seen: list[Any] = []
    driver.add_tap(lambda direction, raw, decoded: seen.append((direction, decoded)))
    healthy = driver.status()
    assert healthy.ok and healthy.installed == ("left", "centre", "right") and healthy.long_press_ms == 800
    assert driver.self_test().passed
    pedal.set_switch_fault(wiring_open=True)
    pedal.press("left")
    broken = driver.status()
    assert not broken.ok
    assert broken.held == ("left",)
    assert "a pedal cable is open" in broken.problems
    assert any("held down" in problem for problem in broken.problems)
    report = driver.self_test()
    assert not report.passed and report.problems[0] == "a pedal cable is open" and "held down" in report.detail
    assert [type(decoded).__name__ for d, decoded in seen if d == "control-in"] == ["SelfTestReply"] * 4


def test_self_test_notices_missing_buttons(make_driver: MakeDriver) -> None:
    pedal = SimulatedPedal("PED-2", buttons=("left", "right"), timed_long_press=False)
    driver = make_driver(simulated_locator(SimulatedBackend([pedal]), "PED-2"), buttons=("left", "centre", "right"))
    result = driver.self_test()
    assert not result.passed and "not fitted: right" in result.problems[0]


def test_taps_see_raw_and_decoded_reports_and_can_be_removed(
    driver: PedalDriver, pedal: SimulatedPedal, events: Any
) -> None:
    seen: list[tuple[str, bytes, Any]] = []
    remove = driver.add_tap(lambda *frame: seen.append(frame))
    pedal.click("left")
    events.wait_presses(1)
    assert [(d, type(x).__name__) for d, _, x in seen] == [("in", "PedalReport"), ("in", "PedalReport")]
    assert isinstance(seen[0][2], PedalReport) and seen[0][1] == bytes.fromhex("020001000100000c4c")
    remove()
    pedal.click("left")
    events.wait_presses(2)
    assert len(seen) == 2


def test_broken_tap_or_sink_does_not_stop_the_reader(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal
) -> None:
    received: list[Any] = []
    got_two = threading.Event()

    def sink(event: Any) -> None:
        received.append(event)
        if len(received) == 1:
            raise RuntimeError("queue full")
        got_two.set()

    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), sink, read_timeout_ms=50)
    def broken_tap(*_: Any) -> None:
        raise ZeroDivisionError("a broken tap")

    driver.add_tap(broken_tap)
    driver.start()
    try:
        pedal.click("left")
        pedal.click("right")
        assert got_two.wait(10)
        assert [e.button for e in received] == ["left", "right"]
    finally:
        driver.stop()


def test_fault_log_carries_the_last_reports(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    pedal.click("left")
    events.wait_presses(1)
    # The press and the release both read before the unplug (a loaded machine may not have
    # read the release yet when the press is heard).
    wait_until(lambda: len(driver.recent_frames()) >= 2, 10, "the click's two reports read")
    with structlog.testing.capture_logs() as logs:
        pedal.unplug()
        events.wait_kind(DeviceFault)
    fault = next(entry for entry in logs if entry["event"] == "device_link_fault")
    reports = [line.split(" ", 1)[1][:26] for line in fault["recent_frames"]]  # "in <hex> <what it said>"
    assert reports == ["02 00 01 00 01 00 00 0c 4c", "02 01 02 00 00 00 00 90 0e"]  # version 2: a CRC-16
    assert fault["code"] == "disconnected" and fault["device"] == "pedals"
    assert fault["recent_frames"] == [f"{d} {h} {t}" for _, d, h, t in driver.recent_frames()]


def test_reconnect_attempts_are_logged_with_growing_capped_delays(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    pedal.unplug()
    with structlog.testing.capture_logs() as logs:
        driver = make_driver(simulated_locator(bus, "PED-SIM-0001"), backoff=Backoff(0.01, 2.0, 0.04))
        events.wait_kind(DeviceFault)
        while driver.stats.connect_attempts < 6:  # the fifth failed attempt is logged before the sixth
            threading.Event().wait(0.01)
        pedal.replug()
        events.wait_kind(DeviceRecovered)
    waits = [entry["retry_in"] for entry in logs if entry["event"] == "reconnect_attempt"]
    assert waits[:4] == [0.01, 0.02, 0.04, 0.04]
    attempts = [entry["attempt"] for entry in logs if entry["event"] == "reconnect_attempt"]
    assert attempts == list(range(1, len(attempts) + 1)) and len(attempts) >= 5


def test_backoff_sequence() -> None:
    delays = Backoff(0.25, 2.0, 3.0).delays()
    assert [next(delays) for _ in range(6)] == [0.25, 0.5, 1.0, 2.0, 3.0, 3.0]


def test_button_numbers_beyond_the_configured_names(make_driver: MakeDriver, events: Any) -> None:
    pedal = SimulatedPedal("PED-5", buttons=("a", "b", "c", "d", "e"), timed_long_press=False)
    make_driver(simulated_locator(SimulatedBackend([pedal]), "PED-5"))
    pedal.click("e")
    assert events.wait_presses(1) == [("button5", False)]


def test_start_twice_does_not_start_a_second_reader(driver: PedalDriver, pedal: SimulatedPedal) -> None:
    assert driver.start()  # already connected: says so, and opens nothing more
    assert pedal.counters.claims == 1 and pedal.counters.opens == 1
    assert len([t for t in threading.enumerate() if t.name == "pedals-pedals"]) == 1


def test_events_round_trip_through_the_journal_format(driver: PedalDriver, pedal: SimulatedPedal, events: Any) -> None:
    from station.event_codec import event_from_dict, event_to_dict

    pedal.long_press("left")
    events.wait_presses(1)
    pedal.unplug()
    events.wait_kind(DeviceFault)
    pedal.replug()
    events.wait_kind(DeviceRecovered)
    for event in events.events:
        assert event_from_dict(event_to_dict(event)) == event
    assert isinstance(events.events[0], ButtonPressed)


press_scripts = st.lists(
    st.tuples(
        st.sampled_from(["left", "centre", "right"]), st.sampled_from(["click", "long", "hold-release"]), st.booleans()
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=press_scripts)
def test_random_press_scripts_arrive_exactly_once_through_the_real_path(script: list[tuple[str, str, bool]]) -> None:
    """Random presses, some reports delivered twice: the station sees each press once, in order."""
    pedal = SimulatedPedal("PED-H", timed_long_press=False)
    received: list[tuple[str, bool]] = []
    done = threading.Condition()

    def sink(event: Any) -> None:
        with done:
            received.append((event.button, event.long_press))
            done.notify_all()

    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-H"), sink, read_timeout_ms=20)
    driver.start()
    try:
        expected = []
        for button, kind, duplicated in script:
            if duplicated:
                pedal.duplicate_next(3)
            if kind == "click":
                pedal.click(button)
            elif kind == "long":
                pedal.long_press(button)
            else:
                pedal.hold_long(button)
                pedal.release(button)
            expected.append((button, kind != "click"))
            assert pedal.wait_drained(10)  # stay inside the device's 32-report buffer
        with done:
            assert done.wait_for(lambda: len(received) >= len(expected), 10)
        assert pedal.wait_drained(10)
        assert received == expected
    finally:
        driver.stop()


def test_device_buffer_overflow_keeps_the_newest_and_the_self_test_says_so(
    make_driver: MakeDriver, bus: SimulatedBackend, pedal: SimulatedPedal, events: Any
) -> None:
    pedal.click("left", times=20)  # 40 reports into a 32-report buffer before anyone reads
    pedal.click("right")
    driver = make_driver(simulated_locator(bus, "PED-SIM-0001"))
    presses = events.wait_presses(16)
    assert presses == [("left", False)] * 15 + [("right", False)]
    assert pedal.wait_drained(10)
    assert len(events.presses()) == 16
    result = driver.self_test()
    assert not result.passed and "reports were dropped (buffer overflow)" in result.problems
    assert driver.self_test().passed  # the flag is cleared once reported


class _FlakyBus(SimulatedBackend):
    """A backend that fails one read with an error no USB backend should raise (a bug)."""

    fail_next_read = False

    def intr_read(self, *args: Any) -> int:
        if self.fail_next_read:
            self.fail_next_read = False
            raise RuntimeError("bug in a backend")
        return int(super().intr_read(*args))


def test_unexpected_error_is_a_fault_and_the_reader_carries_on(
    make_driver: MakeDriver, pedal: SimulatedPedal, events: Any
) -> None:
    flaky = _FlakyBus([pedal])
    make_driver(simulated_locator(flaky, "PED-SIM-0001"))
    flaky.fail_next_read = True
    fault = events.wait_kind(DeviceFault)[-1]
    assert fault.code == "driver-error" and "bug in a backend" in fault.reason
    events.wait_kind(DeviceRecovered)
    pedal.click("left")
    assert events.wait_presses(1) == [("left", False)]
