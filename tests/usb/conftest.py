"""Fixtures for the USB pedal tests: a simulated pedal on a simulated pyusb bus, an event sink
that tests wait on (with generous timeouts, never timing assertions), and a driver factory
that always stops what it started."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.locator import PedalLocator, simulated_locator
from station.events import ButtonPressed, DeviceFault, DeviceRecovered

from ..devices.rigs import EventLog

FAST_BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)


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


__all__ = ["ButtonPressed", "DeviceFault", "DeviceRecovered", "EventLog"]
