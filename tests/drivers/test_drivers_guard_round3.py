"""Guard tests of the drivers, third set (the ``drivers`` mutation guard, docs/testing.md): codecs
through their encode and decode, the display board against its simulator on a pseudo-terminal
(made to answer wrongly on purpose), the USB pedals on the simulated pyusb bus and through the
remote backend, the input listing on a sysfs of files, and a process left with a driver that is
still reconnecting.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers2.log``):

* a frame's type code outside a byte is refused by name, not by whatever ``bytes()`` says
  (``drivers/codec/framing.py``, ``encode_frame_with_crc``);
* a message class that sets no type code of its own cannot join a protocol, and says its code is
  the base's unset -1 (``drivers/codec/protocol.py``, ``Message.TYPE``);
* ``python -m drivers.codec.examples <device>`` prints the device's page of messages and
  examples, and with no device the common messages' (docs/protocols/README.md;
  ``drivers/codec/examples.py``, its ``__main__``);
* a message whose own checks refuse the values its payload holds is a ``PayloadError`` naming
  the message, never ``None`` (``drivers/codec/protocol.py``, ``Message.unpack``);
* a display command answered by anything but an ``Ack`` is refused, and a result shown without
  saying so has no player pair (``drivers/devices/display.py``);
* a pedal report or self-test of a protocol version the station does not speak is refused as
  such (``drivers/usb/codec.py``, ``_known``);
* reports lost in the unit are logged once, when their loss is seen, never for a report that
  lost nothing (``drivers/devices/pedals.py``, ``_handle_report``);
* the pedals are sent no heartbeat while they have been heard from within ``heartbeat_s``, however
  many reads come back empty (``drivers/devices/pedals.py``, ``_idle``);
* the vendor requests are docs/protocols/pedals.md's table's (``wValue`` 0), and a self-test is
  one frame out (``drivers/devices/pedals.py``, ``_ask_version`` and ``_self_test``);
* a driver connected at its first attempt has made one attempt (``drivers/devices/stats.py``:
  the count starts at 0);
* the pedals' control requests wait 500 ms unless told, as docs/drivers.md says, from the port
  as from the driver (``drivers/transport/usb_port.py``);
* a host-to-device request that the unit takes crosses the remote wire and gives back how many
  bytes were sent (``drivers/usb/remote.py``, ``ctrl_transfer``);
* a serial write that finds no room before its timeout says it timed out, not that it failed
  (``drivers/transport/serial_port.py``, ``write``);
* each keypad digit a reader types is that digit (``drivers/input/wedge.py``, ``_KEYPAD``), and a
  Shift is no typing: a line that paused longer than ``idle_s`` between characters is dropped,
  a Shift pressed in the pause or not (``feed``);
* python-evdev that cannot be loaded is ``EvdevUnavailable`` (``drivers/input/backend.py``);
* an input device whose sysfs leaves a file out lists that part as empty text
  (``drivers/input/listing.py``, ``_read``);
* a process can end while a driver is still trying to reach its device: the reconnect thread
  never holds it up (``drivers/devices/reconnect.py``, a daemon thread).
"""

from __future__ import annotations

import array
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
import usb.core
from structlog.testing import capture_logs

from drivers.codec import display as display_wire
from drivers.codec.examples import render, render_common
from drivers.codec.fields import U8, PayloadError
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import COMMON_MESSAGES, Message, Protocol
from drivers.devices import Backoff, DisplayDriver, PedalDriver
from drivers.devices.errors import DeviceProtocolError
from drivers.input.backend import EvdevUnavailable, PythonEvdevBackend
from drivers.input.keys import key_code
from drivers.input.listing import input_devices
from drivers.input.wedge import KeyboardWedge
from drivers.simulators import DisplaySimulator, start_simulator
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.transport.serial_port import SerialTransport, TransportError
from drivers.transport.usb_port import UsbPort
from drivers.usb import protocol as p
from drivers.usb.codec import (
    PedalReport,
    ReportError,
    SelfTestReply,
    decode_report,
    decode_self_test,
    encode_report,
    encode_self_test,
)
from drivers.usb.locator import simulated_locator
from drivers.usb.remote import RemoteBackend
from tests.devices.rigs import EventLog

from ..waiting import wait_until
from .helpers import FAST, WAIT, Recorder

FAST_BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
REPO = Path(__file__).resolve().parents[2]
_GET_DESCRIPTOR = 0x06  # USB 2.0, 9.4.3


# --- codecs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("type_code", [-1, 256])
def test_a_type_code_outside_a_byte_is_refused_by_name(type_code: int) -> None:
    with pytest.raises(ValueError, match=f"message type {type_code} is outside 0-255"):
        encode_frame(1, type_code, b"")


@pytest.mark.e2e  # starts a process (tests/conftest.py)
def test_the_examples_module_run_prints_a_device_s_page_or_the_common_one() -> None:
    for args, page in ((["shoe"], render("shoe")), ([], render_common())):
        done = subprocess.run([sys.executable, "-m", "drivers.codec.examples", *args], cwd=REPO, capture_output=True,
                              text=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, page + "\n", "")


@dataclass(frozen=True)
class _Percent(Message):
    """A message of the test's own whose constructor refuses more than 100."""

    TYPE: ClassVar[int] = 0x85
    value: Annotated[int, U8]

    def __post_init__(self) -> None:
        if self.value > 100:
            raise ValueError(f"{self.value} is more than 100")


def test_a_payload_the_message_itself_refuses_is_a_payload_error_naming_it() -> None:
    assert _Percent.unpack(bytes((100,))) == _Percent(100)
    with pytest.raises(PayloadError, match=r"^_Percent: 101 is more than 100$"):
        _Percent.unpack(bytes((101,)))


@dataclass(frozen=True)
class _NoType(Message):
    """A message of the test's own that forgot its type code."""

    value: Annotated[int, U8] = 0


def test_a_message_class_without_a_type_code_of_its_own_cannot_join_a_protocol() -> None:
    with pytest.raises(TypeError, match=r"^_NoType has type code -0x1 outside every range$"):
        Protocol("test", [_NoType], current=max(cls.newest_part() for cls in COMMON_MESSAGES))


@pytest.mark.parametrize("version", [0, p.PROTOCOL_VERSION + 1])
def test_a_pedal_protocol_version_the_station_does_not_speak_is_refused_as_such(version: int) -> None:
    report = PedalReport(1, p.EventType.DOWN, 0, 1)
    for raw in (encode_report(report), encode_report(report, p.OLDEST_PROTOCOL_VERSION)):
        with pytest.raises(ReportError, match=f"pedal protocol version {version} is not one this station speaks"):
            decode_report(raw, version)
    with pytest.raises(ReportError, match=f"pedal protocol version {version} is not"):
        encode_report(report, version)
    reply = decode_self_test(encode_self_test(_a_self_test_reply()))
    with pytest.raises(ReportError, match=f"pedal protocol version {version} is not"):
        encode_self_test(reply, version)
    with pytest.raises(ReportError, match=f"pedal protocol version {version} is not"):
        decode_self_test(encode_self_test(reply), version)


def _a_self_test_reply() -> SelfTestReply:
    unit = SimulatedPedal("PED-ST", timed_long_press=False)
    bus = SimulatedBackend([unit])
    port = UsbPort(simulated_locator(bus, "PED-ST"))
    port.open()
    try:
        raw = port.control_in(p.VENDOR_IN_INTERFACE, p.REQUEST_SELF_TEST, 0, p.INTERFACE_NUMBER,
                              p.self_test_length())
    finally:
        port.close(give_back=True)
    return decode_self_test(raw)


# --- the display board --------------------------------------------------------------------------


@pytest.fixture
def board(rec: Recorder) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    running = start_simulator("display", ack_timeout=0.05)
    sim: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        yield sim, driver
    finally:
        driver.stop()
        running.stop()


def test_a_board_command_answered_by_a_status_is_refused(board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    sim, display = board
    sim.answer_wrongly(display_wire.ShowMessage, display_wire.DisplayStatus(50, 0))
    with pytest.raises(DeviceProtocolError, match="ShowMessage answered by DisplayStatus"):
        display.show_message("Place your bets")
    display.show_message("Place your bets")  # the next answer is an Ack again


def test_a_result_shown_without_pairs_has_none(board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    sim, display = board
    display.show_result("P", 8, 7, ["5H", "3D"], ["4C", "3S"])
    [shown] = [c for c in sim.commands(display_wire.ShowResult) if isinstance(c, display_wire.ShowResult)]
    assert (shown.natural, shown.player_pair, shown.banker_pair) == (False, False, False)


# --- the USB pedals -----------------------------------------------------------------------------



def test_reports_lost_are_logged_once_when_their_loss_is_seen(drivers: list[PedalDriver]) -> None:
    events = EventLog()
    pedal = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    with capture_logs() as logs:
        driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0001"), events,
                             backoff=FAST_BACKOFF, read_timeout_ms=50)
        drivers.append(driver)
        assert driver.start(WAIT)
        pedal.click("centre")  # the first report of a connection sets the sequence baseline
        pedal.drop_next(2)  # a whole press (DOWN and UP) never leaves the unit
        pedal.click("left")
        pedal.click("right")
        assert events.wait_presses(2) == [("centre", False), ("right", False)]
        assert pedal.wait_drained(WAIT)
    lost = [(entry["count"], entry["log_level"]) for entry in logs if entry["event"] == "pedals.reports_lost"]
    assert lost == [(2, "warning")]
    assert driver.stats.lost == 2


class _CountedReads(SimulatedBackend):
    """The simulated bus, counting the interrupt reads and the GET_STATUS requests it is given."""

    def __init__(self, pedals: list[SimulatedPedal]) -> None:
        super().__init__(pedals)
        self.reads = 0
        self.statuses = 0

    def intr_read(self, dev_handle: Any, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        self.reads += 1
        return super().intr_read(dev_handle, ep, intf, buff, timeout)

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> int:
        if bRequest == p.REQUEST_GET_STATUS and bmRequestType == p.STANDARD_IN_DEVICE:
            self.statuses += 1
        return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)


def test_no_heartbeat_is_sent_within_heartbeat_s_however_many_reads_come_back_empty(
        drivers: list[PedalDriver]) -> None:
    bus = _CountedReads([SimulatedPedal("PED-SIM-0001", timed_long_press=False)])
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), EventLog(), backoff=FAST_BACKOFF,
                         read_timeout_ms=10, heartbeat_s=600.0)
    drivers.append(driver)
    assert driver.start(WAIT)
    greeted = bus.statuses
    reads = bus.reads
    wait_until(lambda: bus.reads >= reads + 20, WAIT, "twenty more reads, each empty")
    assert (driver.stats.heartbeats, bus.statuses) == (0, greeted)


class _VendorRequests(SimulatedBackend):
    """The simulated bus, keeping every vendor request as the table of docs/protocols/pedals.md
    writes it: (``bmRequestType``, ``bRequest``, ``wValue``, ``wIndex``, ``wLength``)."""

    def __init__(self, pedals: list[SimulatedPedal]) -> None:
        super().__init__(pedals)
        self.vendor: list[tuple[int, int, int, int, int]] = []

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> int:
        if bmRequestType == p.VENDOR_IN_INTERFACE:
            self.vendor.append((bmRequestType, bRequest, wValue, wIndex, len(data) * data.itemsize))
        return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)


def test_the_vendor_requests_are_the_table_s_and_a_self_test_is_one_frame_out(drivers: list[PedalDriver]) -> None:
    """Also: the driver, connected at its first attempt, has made one."""
    bus = _VendorRequests([SimulatedPedal("PED-SIM-0001", timed_long_press=False)])
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), EventLog(), backoff=FAST_BACKOFF,
                         read_timeout_ms=50, heartbeat_s=600.0)
    drivers.append(driver)
    assert driver.start(WAIT)
    assert driver.stats.connect_attempts == 1  # connected at the first attempt (docs/diagnostics.md)
    before = driver.stats.frames_out
    assert driver.self_test().passed
    assert driver.stats.frames_out == before + 1
    assert bus.vendor == [(0xC1, 0x02, 0, 0, 1), (0xC1, 0x01, 0, 0, 9)]  # GET_PROTOCOL_VERSION, SELF_TEST


class _TimedBackend(SimulatedBackend):
    """The simulated bus, keeping the timeout of every control request the station's code makes
    (not pyusb's own reads of descriptors, which have pyusb's timeout)."""

    def __init__(self, pedals: list[SimulatedPedal]) -> None:
        super().__init__(pedals)
        self.control_timeouts: list[int] = []

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> int:
        if bRequest != _GET_DESCRIPTOR:
            self.control_timeouts.append(timeout)
        return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)


def test_the_control_requests_wait_500_ms_unless_told(drivers: list[PedalDriver]) -> None:
    """docs/drivers.md: ``control_timeout_ms`` (500), the driver's and so its port's."""
    bus = _TimedBackend([SimulatedPedal("PED-SIM-0001", timed_long_press=False)])
    port = UsbPort(simulated_locator(bus, "PED-SIM-0001"))
    port.open()
    try:
        port.heartbeat()
    finally:
        port.close(give_back=True)
    assert bus.control_timeouts and set(bus.control_timeouts) == {500}
    bus.control_timeouts.clear()
    driver = PedalDriver("pedals", simulated_locator(bus, "PED-SIM-0001"), EventLog(), backoff=FAST_BACKOFF)
    drivers.append(driver)
    assert driver.start(WAIT)
    driver.stop()
    assert bus.control_timeouts and set(bus.control_timeouts) == {500}


class _TakesWrites(SimulatedBackend):
    """A bus whose unit takes host-to-device requests (the pedals define none: a unit that
    differs on purpose), keeping the data of each."""

    def __init__(self, pedals: list[SimulatedPedal]) -> None:
        super().__init__(pedals)
        self.written: list[bytes] = []

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> int:
        if bmRequestType & 0x80:
            return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)
        self.written.append(data.tobytes())
        return len(data) * data.itemsize


def test_a_host_to_device_request_taken_says_over_the_remote_wire_how_much_was_sent(tmp_path: Path) -> None:
    bus = _TakesWrites([SimulatedPedal("PED-R-1", timed_long_press=False)])
    server = PedalSimServer(str(tmp_path / "p.sock"), bus).start()
    backend = RemoteBackend(str(tmp_path / "p.sock"))
    try:
        device = usb.core.find(idVendor=p.VENDOR_ID, idProduct=p.PRODUCT_ID, backend=backend)
        assert device is not None
        assert device.ctrl_transfer(0x41, 0x7F, 0, p.INTERFACE_NUMBER, b"\x01\x02\x03") == 3
        assert bus.written == [b"\x01\x02\x03"]
        usb.util.dispose_resources(device)
    finally:
        backend.close()
        server.stop()


# --- the serial port ----------------------------------------------------------------------------


def test_a_serial_write_that_finds_no_room_in_time_says_it_timed_out() -> None:
    master, slave = os.openpty()  # nobody reads the master: the port's buffer fills and stays full
    port = SerialTransport(os.ttyname(slave), write_timeout=0.05)
    try:
        port.open()
        with pytest.raises(TransportError, match=r"^\S+ write timed out after 0\.05 s$"):
            port.write(bytes(1 << 20))
    finally:
        port.close()
        os.close(slave)
        os.close(master)


# --- input --------------------------------------------------------------------------------------


@pytest.mark.parametrize("digit", "0123456789")
def test_each_keypad_digit_a_reader_types_is_that_digit(digit: str) -> None:
    wedge = KeyboardWedge()
    code, enter = key_code(f"KEY_KP{digit}"), key_code("KEY_ENTER")
    lines = [wedge.feed(key, value, now / 1000) for now, (key, value) in
             enumerate([(code, 1), (code, 0), (enter, 1), (enter, 0)], start=1)]
    assert [line for line in lines if line is not None] == [digit]


def test_a_shift_in_a_pause_is_no_typing_the_pause_still_drops_the_line() -> None:
    wedge = KeyboardWedge(idle_s=0.5)
    a, b, shift, enter = (key_code(name) for name in ("KEY_A", "KEY_B", "KEY_LEFTSHIFT", "KEY_ENTER"))
    typed = [(a, 1, 0.0), (a, 0, 0.01), (shift, 1, 0.4), (b, 1, 0.8), (b, 0, 0.81), (shift, 0, 0.82),
             (enter, 1, 0.83), (enter, 0, 0.84)]
    lines = [wedge.feed(code, value, now) for code, value, now in typed]
    assert [line for line in lines if line is not None] == ["B"]
    assert (wedge.counts.lines, wedge.counts.dropped_idle) == (1, 1)


def test_python_evdev_that_cannot_be_loaded_is_evdev_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "evdev", None)  # an import of it now fails, as a broken install's
    with pytest.raises(EvdevUnavailable, match="python-evdev cannot be loaded"):
        PythonEvdevBackend()


def test_an_input_device_whose_sysfs_leaves_parts_out_lists_them_as_empty(tmp_path: Path) -> None:
    device = tmp_path / "sys" / "event4" / "device"
    (device / "capabilities").mkdir(parents=True)
    (device / "capabilities" / "key").write_text("10000000000000 0\n")  # one key, nothing else said
    (tmp_path / "dev").mkdir()
    [found] = input_devices(tmp_path / "sys", tmp_path / "dev")
    assert (found.name, found.vid_pid, found.serial, found.phys) == ("", ":", "", "")
    assert found.url == "evdev://" + str(tmp_path / "dev" / "event4")


# --- a process with a driver still reconnecting -------------------------------------------------

_STILL_RECONNECTING = textwrap.dedent("""
    import sys
    import threading
    from drivers.devices import Backoff, PedalDriver
    from drivers.simulators.pedals.backend import SimulatedBackend
    from drivers.usb.locator import simulated_locator

    seen = []
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([]), "PED-GONE"), seen.append,
                         backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2))
    assert not driver.start(30.0)  # no unit: the driver keeps trying in the background
    assert threading.active_count() > 1
    print("reconnecting", file=sys.stderr, flush=True)  # the driver's log lines go to stdout
    # the script ends here, the driver never stopped
""")


@pytest.mark.e2e  # starts a process (tests/conftest.py)
def test_a_process_ends_while_a_driver_is_still_reconnecting() -> None:
    done = subprocess.run([sys.executable, "-c", _STILL_RECONNECTING], cwd=REPO, capture_output=True, text=True,
                          timeout=60)  # only a deadline: with the loop's thread holding it, it never ends
    assert (done.returncode, done.stderr) == (0, "reconnecting\n")
