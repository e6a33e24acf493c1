"""Fixtures shared by the driver tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.devices.rigs import EventLog

from .helpers import Recorder


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
