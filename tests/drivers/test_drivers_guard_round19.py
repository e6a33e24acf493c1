"""Guard tests of the chip reader, the display boards, the serial link, the foot switch and the
USB pedals' locator, round 19 (the ``drivers`` mutation guard, docs/testing.md), each through the
driver against its simulator, the stand-in evdev backend, or the parser.

Each test answers a mutant that survived the guard's tests:

* an antenna is a number: ``True`` is refused as one (a TypeError), never taken for antenna 1
  and sent to the reader (``drivers/devices/chipreader.py``, ``_check_antenna``);
* a requested round whose next part comes back as a part of another round is no read: it is
  ``IncompleteRead`` naming both, counted discarded, and the stray part's chips are never
  handed over as a read (``chipreader.py``, ``inventory``);
* a Casino War round's dealer war card reaches the board, and a round without a war has none
  (``drivers/devices/display.py``, ``show_war_result``);
* a version-1 board is shown every minimum rounded up to whole units, the tie minimum too: the
  sign never invites a tie bet below the table's (``drivers/devices/display_v1.py``,
  ``limits_v1``);
* a foot switch found but not yet taken (its grab under way) is not connected: ``identify`` says
  it is unavailable instead of describing a device the station does not hold
  (``drivers/devices/footswitch.py``, ``_current``);
* only a command is sent as a request: an event message handed to ``request`` is a TypeError
  and nothing is written (``drivers/devices/link.py``, ``request``);
* a program that ends without stopping an open link still exits: the link's reader thread never
  keeps the interpreter alive (``link.py``, ``open``);
* a bare ``VID:PID`` is a pedal locator of that unit, written ``usb://vid:pid`` in lower case
  (``drivers/usb/locator.py``, ``parse_locator``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import drivers
from drivers.codec import chipreader as wire
from drivers.codec import display as display_wire
from drivers.codec.protocol import Boot, Message, Ping
from drivers.devices import (
    Backoff,
    ChipReaderDriver,
    DeviceUnavailable,
    DisplayDriver,
    FootSwitchDriver,
    IncompleteRead,
)
from drivers.simulators import ChipReaderSimulator, DisplaySimulator, start_simulator
from drivers.simulators.footswitch import StandInBackend, StandInDevice, StandInFootSwitch, StandInHandle
from drivers.usb.locator import parse_locator
from station.cards import Card, parse_card
from station.chip_events import ChipsRead
from tests.devices.rigs import EventLog

from .helpers import FAST, WAIT, Recorder

#: The tree under test (the mutation tool's copy when it runs these tests).
ROOT = Path(drivers.__file__).resolve().parents[1]
#: How long a program that ends is given to exit: generous (it takes about a second; a loaded
#: machine must not fail it), and under the mutation tool's own bound of a minute, so that a
#: program that hangs fails this test by its message rather than the whole run by its timeout.
PROGRAM_TIMEOUT_S = 30

Rig = tuple[ChipReaderSimulator, ChipReaderDriver]


def _display(rec: Recorder, version: int | None = None) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    options = {} if version is None else {"protocol_version": version}
    running = start_simulator("display", ack_timeout=0.05, **options)
    sim: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)
        yield sim, driver
    finally:
        driver.stop()
        running.stop()


@pytest.fixture
def board(rec: Recorder) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    """A display board of the current version and its started driver."""
    yield from _display(rec)


@pytest.fixture
def board_v1(rec: Recorder) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    """A display board that announces version 1 and its started driver."""
    yield from _display(rec, 1)


# -- the chip reader ------------------------------------------------------------------------------


def test_true_is_not_an_antenna_and_nothing_is_asked_of_the_reader(reader: Rig) -> None:
    """``True`` is an int in Python, but not an antenna number: the driver refuses it as a
    TypeError before the reader hears anything, as it refuses any other non-number."""
    sim, driver = reader
    sim.place(1, "E004015012345678")
    with pytest.raises(TypeError, match="an antenna is a number from 1, not True"):
        driver.inventory(True)
    with pytest.raises(TypeError, match="an antenna is a number from 1, not '1'"):
        driver.inventory("1")  # type: ignore[arg-type]  # what is tested: a caller's mistake
    assert sim.commands(wire.Inventory) == []


def test_a_part_of_another_round_is_no_read_and_its_chips_are_never_handed_over(reader: Rig,
                                                                               rec: Recorder) -> None:
    """A stack in parts; the reader answers the request for part 2 with a part of some other
    round (a firmware bug). Half a stack glued to a stranger is never a read: inventory raises
    IncompleteRead naming what it asked for and what came, the round is counted discarded, and
    no read carries the stray chip."""
    sim, driver = reader
    stack = sim.stack(4, 40)
    sim.report_in_parts(16)
    stray = 0xE004_0150_DEAD_BEEF
    sim.answer_wrongly(wire.InventoryPart, wire.InventoryReport(4, 999_999, 2, True, 0, (stray,)))
    with pytest.raises(IncompleteRead, match=r"asked for part 2 of round \d+ of antenna 4, "
                                             r"got part 2 of round 999999 of antenna 4"):
        driver.inventory(4)
    assert driver.parts.discarded == 1
    assert rec.of(ChipsRead) == []
    read = driver.inventory(4)  # a new round reads it whole, without the stray chip
    assert read.uids == tuple(sorted(stack))


# -- the display boards ---------------------------------------------------------------------------


def test_a_war_round_s_dealer_war_card_reaches_the_board_and_a_round_without_war_has_none(
        board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    sim, display = board
    box = display_wire.WarBox(2, parse_card("7C"), display_wire.WarBoxOutcome.WAR_WIN, (parse_card("QS"),))
    display.show_war_result(8, "7D", [box], dealer_war_card="5H")
    display.show_war_result(9, Card.parse("KH"), [])
    war, plain = sim.commands(display_wire.ShowWarResult)
    assert isinstance(war, display_wire.ShowWarResult) and isinstance(plain, display_wire.ShowWarResult)
    assert (war.round_no, war.dealer_card, war.dealer_war_card) == (8, parse_card("7D"), (parse_card("5H"),))
    assert war.boxes == (box,)
    assert (plain.round_no, plain.dealer_card, plain.dealer_war_card) == (9, parse_card("KH"), ())


def test_a_version_1_board_shows_every_minimum_rounded_up_the_tie_minimum_too(
        board_v1: tuple[DisplaySimulator, DisplayDriver]) -> None:
    """10.50-5,000.00, ties 5.50-500.99, pairs 2.01-100.50 (EUR, 2 digits) on a version-1
    board: minimums up, maximums down, so no bet shown is one the table refuses."""
    sim, display = board_v1
    display.show_limits(1050, 500000, tie_min=550, tie_max=50099, pair_min=201, pair_max=10050,
                        currency="EUR", minor_digits=2)
    (shown,) = sim.commands(display_wire.ShowLimits)
    assert isinstance(shown, display_wire.ShowLimits)
    assert (shown.table_min, shown.table_max, shown.tie_min, shown.tie_max, shown.pair_min, shown.pair_max) == (
        11, 5000, 6, 500, 3, 100)
    assert shown.currency == "EUR"


# -- the foot switch ------------------------------------------------------------------------------


class _SlowGrabBackend(StandInBackend):
    """The stand-in's nodes, whose grab waits until the test lets it go on: ``grabbing`` is set
    when a grab has begun, ``release`` lets it finish."""

    def __init__(self) -> None:
        super().__init__()
        self.grabbing = threading.Event()
        self.release = threading.Event()

    def open(self, path: str) -> StandInHandle:
        for device in self.devices:
            if device.path == path and device.plugged:
                handle = _SlowGrabHandle(device, self)
                with device.lock:
                    device.handles.append(handle)
                return handle
        raise FileNotFoundError(path)


class _SlowGrabHandle(StandInHandle):
    def __init__(self, device: StandInDevice, backend: _SlowGrabBackend) -> None:
        super().__init__(device)
        self._backend = backend

    def grab(self) -> None:
        self._backend.grabbing.set()
        assert self._backend.release.wait(WAIT), "the test never let the grab finish"
        super().grab()


def test_a_foot_switch_found_but_not_yet_grabbed_is_unavailable_to_identify(events: EventLog) -> None:
    """While the driver is still taking the device (found and opened, its grab under way) the
    station does not hold it: identify raises DeviceUnavailable saying it is not connected.
    Once grabbed, identify describes it."""
    backend = _SlowGrabBackend()
    switch = StandInFootSwitch(backend=backend)
    driver = FootSwitchDriver("footswitch", switch.locator(), events,
                              backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2))
    starter = threading.Thread(target=driver.start, args=(WAIT,), daemon=True)
    try:
        starter.start()
        assert backend.grabbing.wait(WAIT), "the driver never began to grab the device"
        with pytest.raises(DeviceUnavailable, match="footswitch is not connected"):
            driver.identify()
        assert not driver.connected
        backend.release.set()
        assert driver.wait_connected(WAIT)
        assert driver.identify().path == switch.device.path
    finally:
        backend.release.set()
        starter.join(WAIT)
        driver.stop()


# -- the serial link ------------------------------------------------------------------------------


def test_an_event_message_handed_to_request_is_refused_and_nothing_is_written(
        board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    """A request carries a command; a Boot is an event, which the device sends, never the
    station: request raises TypeError saying so, writes nothing, and the link carries on."""
    sim, display = board
    link = display.link
    sent = link.stats.frames_out
    heard = len(sim.commands())
    with pytest.raises(TypeError, match="Boot is not a command"):
        link.request(Boot("power on"))
    assert link.stats.frames_out == sent
    assert len(sim.commands()) == heard
    assert isinstance(link.request(Ping()), Message)
    assert link.connected


_LEAVES_A_LINK_OPEN = textwrap.dedent("""
    import sys
    from drivers.codec import get_protocol
    from drivers.devices.link import DeviceLink, LinkSettings
    from drivers.transport.serial_port import SerialTransport

    link = DeviceLink("display", SerialTransport(sys.argv[1]), get_protocol("display"),
                      on_event=lambda message: None, on_down=lambda reason, code: None,
                      on_up=lambda identity: None, settings=LinkSettings(heartbeat=60.0))
    outage = link.open()
    print("open" if outage is None else f"not open: {outage}", flush=True)
    # returns without link.stop(): the reader thread is still running
""")


@pytest.mark.e2e
def test_a_program_that_ends_without_stopping_an_open_link_still_exits(
        board: tuple[DisplaySimulator, DisplayDriver]) -> None:
    """A short program opens a link to a display board (the simulator, here) and ends without
    stopping it. It exits: the link's reader never keeps the interpreter alive."""
    sim, display = board
    display.stop()  # the board is the program's now
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    try:
        done = subprocess.run([sys.executable, "-c", _LEAVES_A_LINK_OPEN, sim.url], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a program that left a link open did not exit within {PROGRAM_TIMEOUT_S} s")
    assert done.stdout.splitlines()[-1:] == ["open"], done.stdout + done.stderr
    assert done.returncode == 0, done.stderr


# -- the USB pedals' locator ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1209:ABCD", " 1209:abcd "])
def test_a_bare_vid_pid_is_a_pedal_locator_of_that_unit(text: str) -> None:
    locator = parse_locator(text)
    assert (locator.vendor_id, locator.product_id, locator.serial) == (0x1209, 0xABCD, None)
    assert str(locator) == "usb://1209:abcd"

