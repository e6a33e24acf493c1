"""A player-card reader through evdev, from the device's side (docs/ratings.md): a swipe and a
barcode each one ``PlayerCardRead`` with the card's number, nobody else reading the keys; a
swipe read badly, half a track left without its Enter, a line too long: counted, never a card,
never logged; unplug and replug one fault and one recovery, nothing half-typed carried over;
a keyboard without digits refused. Against the stand-in at python-evdev's boundary
(drivers/simulators/cardreader.py), as the foot switch's tests where /dev/uinput is absent;
then through ``build_devices`` and a real core loop: the card read opens a rating."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.devices import Backoff
from drivers.devices.cardreader import CardReaderDriver
from drivers.input.wedge import KeyboardWedge, card_number, keys_for
from drivers.simulators.cardreader import StandInCardReader
from station.events import DeviceFault, DeviceRecovered, PlayerCardRead
from tests.devices.rigs import EventLog

FAST = Backoff(0.02, 2.0, 0.2)


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def make_driver(events: EventLog) -> Iterator[Callable[..., CardReaderDriver]]:
    made: list[CardReaderDriver] = []

    def make(locator: Any, **options: Any) -> CardReaderDriver:
        driver = CardReaderDriver("cardreader", locator, events, backoff=FAST, **options)
        made.append(driver)
        driver.start(10.0)
        return driver

    yield make
    for driver in made:
        driver.stop()


def cards(events: EventLog, count: int) -> list[str]:
    return [e.card for e in events.wait_kind(PlayerCardRead, count)]


@pytest.mark.parametrize(("line", "card"), [
    ("%B4000123456789^PLAYER/ANNA^2912?;4000123456789=2912?", "4000123456789"),
    (";4000123456789=29121010000?", "4000123456789"),
    ("%B77^X/Y^?", "77"),
    ("PC-000123", "PC-000123"),
    ("%B4000123456789", None),  # half a track 1
    (";4000123456789", None),  # half a track 2
    ("12", None),
    ("ann smith", None),
])
def test_a_card_s_number_in_what_a_reader_types(line: str, card: str | None) -> None:
    assert card_number(line) == card


@given(st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz%^;=?/-_ ", max_size=60))
def test_any_text_typed_is_read_back_as_typed(text: str) -> None:
    wedge = KeyboardWedge()
    lines = []
    now = 0.0
    for code, shifted in [*keys_for(text), (28, False)]:
        for key, value in ([(42, 1)] if shifted else []) + [(code, 1), (code, 0)] + ([(42, 0)] if shifted else []):
            now += 0.001
            line = wedge.feed(key, value, now)
            if line is not None:
                lines.append(line)
    assert lines == ([text] if text else [])


def test_swipes_and_scans_are_cards_and_nobody_else_reads_them(make_driver: Any, events: EventLog) -> None:
    reader = StandInCardReader()
    driver = make_driver(reader.locator())
    other = reader.other_reader()  # the kiosk's browser: a swipe must not type into it
    try:
        reader.swipe("4000123456789")
        reader.scan("PC-000123")
        assert cards(events, 2) == ["4000123456789", "PC-000123"]
        with pytest.raises(BlockingIOError):
            other.read()
    finally:
        other.close()
    assert driver.cards_read == 2 and driver.bad_reads == 0
    assert {what for _, _, _, what in driver.recent_frames()} <= {"character down", "character up", "enter down",
                                                                   "enter up"}


def test_bad_reads_are_counted_never_cards_and_never_logged(make_driver: Any, events: EventLog,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    reader = StandInCardReader()
    driver = make_driver(reader.locator(), idle_s=0.05)
    reader.type("%B4000123456789")  # a swipe too fast for the head: half a track
    reader.type(";99887766", enter=False)  # a swipe stopped half way: no Enter ...
    time.sleep(0.1)  # ... and the next swipe comes later than a reader types
    reader.swipe("5555444433")
    assert cards(events, 1) == ["5555444433"]
    assert driver.bad_reads == 1 and driver.stats.bad_frames == 1
    assert "4000123456789" not in capsys.readouterr().out + capsys.readouterr().err


def test_unplug_is_one_fault_and_replug_one_recovery(make_driver: Any, events: EventLog) -> None:
    reader = StandInCardReader()
    make_driver(reader.locator())
    reader.type(";12345", enter=False)  # half a swipe when the cable goes
    reader.unplug()
    assert events.wait_kind(DeviceFault)[0].code == "disconnected"
    reader.replug()
    events.wait_kind(DeviceRecovered)
    reader.swipe("4000123456789")
    assert cards(events, 1) == ["4000123456789"]  # nothing of the half swipe before
    assert events.kinds() == ["DeviceFault", "DeviceRecovered", "PlayerCardRead"]


def test_a_device_without_digits_is_refused_in_one_line(make_driver: Any, events: EventLog) -> None:
    from drivers.input.locator import EvdevLocator

    keypad = StandInCardReader(keys=frozenset({28, 57}))  # Enter and Space: a presenter's clicker
    driver = CardReaderDriver("cardreader", EvdevLocator(None, 0x0801, 0x0001,
                                                         backend_factory=lambda: keypad.backend), events, backoff=FAST)
    driver.start(0.5)  # it does not connect: the refusal says why
    try:
        deadline = time.monotonic() + 10
        while driver.refused is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert driver.refused == ("/dev/input/event9 ('Mag-Tek USB Swipe Reader', 0801:0001) cannot type a card's "
                                  "number: it has no KEY_0, KEY_1, KEY_2, KEY_3, KEY_4, KEY_5, KEY_6, KEY_7, KEY_8, "
                                  "KEY_9 (the wrong device, or a reader not in keyboard mode: docs/ratings.md)")
        assert not driver.connected and events.kinds() in ([], ["DeviceFault"])
    finally:
        driver.stop()


def test_a_card_read_opens_a_rating_through_the_station(tmp_path: Path) -> None:
    """The configured device built as ``station run`` builds it, its card into a real core loop."""
    from station.config.devices import DevicesSection
    from station.core.loop import CoreLoop
    from station.core.options import CoreOptions
    from station.core.outputs import RatingStarted
    from station.events import Actor, RatingOpened
    from station.service.devices import build_devices

    loop = CoreLoop(tmp_path / "journal.sqlite3", CoreOptions())
    started: list[RatingStarted] = []
    loop.subscribe(lambda o: started.append(o) if isinstance(o, RatingStarted) else None)
    reader = StandInCardReader()
    devices = build_devices(DevicesSection.model_validate({"cardreader": {"url": "evdev://0801:0001"}}), loop.post,
                            endpoints={"cardreader": reader.locator()})
    driver = devices.drivers["cardreader"]
    driver.start(10.0)
    try:
        reader.swipe("4000123456789")
        deadline = time.monotonic() + 10
        while loop.published.card_read != "4000123456789" and time.monotonic() < deadline:
            loop.run_pending()
            time.sleep(0.01)
        assert loop.published.card_read == "4000123456789"
        loop.post(RatingOpened("2", "P1", "4000123456789", Actor("dealer", "dana"), "2026-12-06T20:00:00.000000Z",
                               "reader"))
        loop.run_pending()
        assert [(s.box, s.card, s.door) for s in started] == [("2", "4000123456789", "reader")]
    finally:
        driver.stop()
        loop.close()
