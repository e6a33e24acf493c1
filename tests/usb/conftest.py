"""Fixtures for the USB pedal tests: a simulated pedal on a simulated pyusb bus, an event sink
that tests wait on (with generous timeouts, never timing assertions), and a driver factory
that always stops what it started."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.locator import PedalLocator, simulated_locator
from station.events import ButtonPressed, DeviceFault, DeviceRecovered, Event

WAIT_S = 10.0  # generous: a loaded CI machine must never fail these by being slow

FAST_BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)


class EventLog:
    """A thread-safe ``emit`` sink; tests wait for what they expect."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._cond = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self._cond:
            self._events.append(event)
            self._cond.notify_all()

    @property
    def events(self) -> list[Event]:
        with self._cond:
            return list(self._events)

    def presses(self) -> list[tuple[str, bool]]:
        return [(e.button, e.long_press) for e in self.events if isinstance(e, ButtonPressed)]

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]

    def wait_for(self, predicate: Callable[[list[Event]], bool], timeout: float = WAIT_S) -> list[Event]:
        deadline = time.monotonic() + timeout
        with self._cond:
            # Re-check now and then too: some predicates look at driver statistics, not events.
            while not predicate(self._events):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting; events so far: {self._events}")
                self._cond.wait(min(left, 0.02))
            return list(self._events)

    def wait_presses(self, count: int, timeout: float = WAIT_S) -> list[tuple[str, bool]]:
        self.wait_for(lambda ev: sum(isinstance(e, ButtonPressed) for e in ev) >= count, timeout)
        return self.presses()

    def wait_kind(self, kind: type[Event], count: int = 1, timeout: float = WAIT_S) -> list[Event]:
        return self.wait_for(lambda ev: sum(isinstance(e, kind) for e in ev) >= count, timeout)


@pytest.fixture
def pedal() -> SimulatedPedal:
    # Long presses are scripted explicitly, so a slow test machine cannot turn a press into one.
    return SimulatedPedal("PED-SIM-0001", timed_long_press=False)


@pytest.fixture
def bus(pedal: SimulatedPedal) -> SimulatedBackend:
    return SimulatedBackend([pedal])


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def make_driver(events: EventLog) -> Iterator[Callable[..., PedalDriver]]:
    started: list[PedalDriver] = []

    def make(locator: PedalLocator | str, start: bool = True, **options: Any) -> PedalDriver:
        options.setdefault("backoff", FAST_BACKOFF)
        options.setdefault("read_timeout_ms", 50)
        driver = PedalDriver("pedals", locator, events, **options)
        started.append(driver)
        if start:
            driver.start()
        return driver

    yield make
    for driver in started:
        driver.stop()


@pytest.fixture
def driver(make_driver: Callable[..., PedalDriver], bus: SimulatedBackend) -> PedalDriver:
    return make_driver(simulated_locator(bus, "PED-SIM-0001"))


__all__ = ["WAIT_S", "ButtonPressed", "DeviceFault", "DeviceRecovered", "EventLog"]
