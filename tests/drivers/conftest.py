"""Fixtures shared by the driver tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from drivers.devices import ChipReaderDriver
from drivers.simulators import ChipReaderSimulator, ShoeSimulator, start_simulator
from tests.devices.rigs import EventLog

from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def rec() -> Recorder:
    """The driver's emit sink, fresh for each test."""
    return Recorder()


@pytest.fixture
def events() -> EventLog:
    """What a driver under test emits, for the guard tests that start drivers themselves."""
    return EventLog()


@pytest.fixture
def drivers() -> Iterator[list[Any]]:
    """The drivers a test starts: each stopped when the test ends, however it ends."""
    made: list[Any] = []
    yield made
    for driver in made:
        driver.stop()


@pytest.fixture
def shoe() -> Iterator[ShoeSimulator]:
    """A shoe's simulator on a pseudo-terminal, quick to resend (the guard tests' shoe)."""
    running = start_simulator("shoe", ack_timeout=0.05)
    yield running.simulator
    running.stop()


@pytest.fixture
def reader(rec: Recorder) -> Iterator[tuple[ChipReaderSimulator, ChipReaderDriver]]:
    """The chip reader's simulator (8 antennas) and a started driver, its start-up re-sync done."""
    running = start_simulator("chipreader", ack_timeout=0.05, seed=7)
    sim: ChipReaderSimulator = running.simulator
    driver = ChipReaderDriver("chipreader", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        assert sim.wait_idle(WAIT)
        assert driver.wait_synced(WAIT)
        yield sim, driver
    finally:
        driver.stop()
        running.stop()
