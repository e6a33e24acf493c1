"""Guard tests of the keyboard-like input devices (the ``drivers`` mutation guard,
docs/testing.md): the player-card reader and the foot switch through evdev's stand-in
(drivers/simulators/cardreader.py, drivers/simulators/footswitch.py), and the keyboard wedge
that turns a reader's keys into text.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the card reader's link statistics count each key event once and each card once, and the
  delivery observer is told each count (``drivers/devices/cardreader.py``);
* the wedge reads the kernel's key codes (linux/input-event-codes.h, through python-evdev's
  table, not the wedge's own) as a US keyboard types them: a track 2 begins with the
  semicolon key (``drivers/input/wedge.py``, the punctuation table);
* a line longer than a reader types is counted once when it is dropped (``WedgeCounts``);
* a key that was down when the device was opened is no press, even if a second "down" comes
  for it before its release (``drivers/input/presses.py``);
* a foot switch whose grab fails for another reason than another program holding it (the
  cable going between the open and the grab, an I/O error) is an outage named by that error,
  and is tried again (``drivers/devices/footswitch.py``, ``_grab``).
"""

from __future__ import annotations

import errno
from typing import Any

import pytest

from drivers.devices import Backoff, FootSwitchDriver
from drivers.devices.cardreader import CardReaderDriver
from drivers.input.keys import key_code
from drivers.input.presses import DOWN, UP, KeyPress, KeyPresses
from drivers.input.wedge import MAX_LINE, KeyboardWedge, WedgeCounts, card_number, keys_for
from drivers.simulators.cardreader import StandInCardReader
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch, StandInHandle
from station.events import DeviceFault, DeviceRecovered, PlayerCardRead
from tests.devices.rigs import EventLog

from ..waiting import Sink, wait_until

FAST = Backoff(0.02, 2.0, 0.2)
WAIT = 10.0

#: A US keyboard as the kernel numbers its keys: (key name, the character, with Shift).
US_KEYS = [
    *[(f"KEY_{d}", d, s) for d, s in zip("1234567890", "!@#$%^&*()", strict=True)],
    *[(f"KEY_{c.upper()}", c, c.upper()) for c in "abcdefghijklmnopqrstuvwxyz"],
    ("KEY_MINUS", "-", "_"), ("KEY_EQUAL", "=", "+"), ("KEY_SEMICOLON", ";", ":"), ("KEY_COMMA", ",", "<"),
    ("KEY_DOT", ".", ">"), ("KEY_SLASH", "/", "?"), ("KEY_SPACE", " ", " "),
]
SHIFT, ENTER = key_code("KEY_LEFTSHIFT"), key_code("KEY_ENTER")




def typed(keys: list[tuple[int, bool]]) -> list[str]:
    """What a wedge makes of ``keys`` (code, with Shift) typed at a reader's pace, then Enter."""
    wedge = KeyboardWedge()
    now, lines = 0.0, []
    for code, shifted in [*keys, (ENTER, False)]:
        shift_down, shift_up = ([(SHIFT, 1)], [(SHIFT, 0)]) if shifted else ([], [])
        for key, value in [*shift_down, (code, 1), (code, 0), *shift_up]:
            now += 0.001
            line = wedge.feed(key, value, now)
            if line is not None:
                lines.append(line)
    return lines


@pytest.mark.parametrize(("name", "plain", "shifted"), US_KEYS)
def test_each_key_a_reader_types_is_the_kernel_s_key_of_that_character(name: str, plain: str, shifted: str) -> None:
    code = key_code(name)
    assert typed([(code, False)]) == [plain]
    assert typed([(code, True)]) == [shifted]
    assert keys_for(plain) == [(code, False)]


def test_a_track_2_typed_with_the_kernel_s_key_codes_is_the_card_s_number() -> None:
    keys = [(key_code("KEY_SEMICOLON"), False), *[(key_code(f"KEY_{d}"), False) for d in "4000123456789"],
            (key_code("KEY_EQUAL"), False), *[(key_code(f"KEY_{d}"), False) for d in "2912"],
            (key_code("KEY_SLASH"), True)]
    assert typed(keys) == [";4000123456789=2912?"]
    assert card_number(typed(keys)[0]) == "4000123456789"


def test_a_line_too_long_for_a_reader_is_counted_once_when_dropped() -> None:
    wedge = KeyboardWedge()
    assert wedge.counts == WedgeCounts(lines=0, dropped_idle=0, dropped_long=0)
    digit = key_code("KEY_7")
    now = 0.0
    for _ in range(MAX_LINE + 3):
        now += 0.001
        assert wedge.feed(digit, 1, now) is None
    assert wedge.feed(ENTER, 1, now + 0.001) == "777"  # what came after the drop
    assert wedge.counts == WedgeCounts(lines=1, dropped_idle=0, dropped_long=1)


def test_the_card_reader_counts_each_key_event_and_each_card_once(events: EventLog, drivers: list[Any]) -> None:
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=FAST)
    drivers.append(driver)
    delivered: Sink[int] = Sink()
    driver.observe_deliveries(delivered)
    assert driver.start(WAIT)
    reader.scan("12345")  # 5 digits and Enter, each down and up: 12 key events
    assert [e.card for e in events.wait_kind(PlayerCardRead)] == ["12345"]
    wait_until(lambda: driver.stats.frames_in >= 12, WAIT, "the Enter's release counted")
    assert delivered.wait_for(lambda seen: len(seen) >= 1) == [1]
    reader.scan("PC-000123")  # P and C with Shift: 9 characters, 2 Shifts, Enter: 24 key events
    assert [e.card for e in events.wait_kind(PlayerCardRead, 2)] == ["12345", "PC-000123"]
    assert delivered.wait_for(lambda seen: len(seen) >= 2) == [1, 2]
    wait_until(lambda: driver.stats.frames_in >= 12 + 24, WAIT, "the second card's keys counted")
    assert (driver.stats.frames_in, driver.stats.events_delivered, driver.cards_read) == (36, 2, 2)


class _GrabFails(StandInBackend):
    """A node whose first grab fails with ``error`` (the cable going between the open and the
    grab: ENODEV; a broken hub: EIO); later grabs work."""

    def __init__(self, switch: StandInFootSwitch, error: int) -> None:
        super().__init__(switch.backend.devices)
        self.switch, self.error, self.failed = switch, error, 0

    def open(self, path: str) -> StandInHandle:
        handle = super().open(path)
        if not self.failed:
            self.failed += 1

            def grab() -> None:
                raise OSError(self.error, errno.errorcode[self.error])

            handle.grab = grab  # type: ignore[method-assign]
        return handle


@pytest.mark.parametrize(("error", "code"), [(errno.EIO, "io-error"), (errno.ENODEV, "disconnected")])
def test_a_grab_that_fails_otherwise_than_busy_is_an_outage_named_by_its_error(
        events: EventLog, drivers: list[Any], error: int, code: str) -> None:
    switch = StandInFootSwitch()
    backend = _GrabFails(switch, error)
    info = switch.device.info
    locator = StandInFootSwitch.locator_for(backend, info.vendor, info.product)
    driver = FootSwitchDriver("pedals", locator, events, backoff=FAST)
    drivers.append(driver)
    driver.start(WAIT)
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == code and errno.errorcode[error] in fault.reason
    events.wait_kind(DeviceRecovered)  # the next open grabs it
    switch.click("left")
    assert events.wait_presses(1) == [("left", False)]
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "ButtonPressed"]


def test_a_key_down_at_open_is_no_press_even_pressed_down_again() -> None:
    left = key_code("KEY_F13")
    presses = KeyPresses(frozenset({left}), debounce_s=0.03, long_press_s=0.8)
    presses.reset(frozenset({left}))  # stood on while the cable went in
    assert presses.feed(left, DOWN, 0.0) == []  # a second "down" for it (a missed up)
    assert presses.feed(left, UP, 0.1) == []
    assert presses.due(5.0) == [] and presses.next_due(5.0) is None and presses.held == frozenset()
    assert presses.feed(left, DOWN, 6.0) == [] and presses.feed(left, UP, 6.1) == []  # then counted from its up
    assert presses.due(6.2) == [KeyPress(left)]


def test_a_card_reader_that_types_digits_and_enter_passes_its_self_test(events: EventLog,
                                                                       drivers: list[Any]) -> None:
    """`station diag selftest` of the card reader: a reader in keyboard mode has every key a card's
    number is typed with (one without them is refused at open as the wrong device)."""
    reader = StandInCardReader()
    driver = CardReaderDriver("cardreader", reader.locator(), events, backoff=FAST)
    drivers.append(driver)
    assert driver.start(WAIT)
    report = driver.self_test()
    assert (report.passed, report.detail) == (True, "digits and Enter present")
