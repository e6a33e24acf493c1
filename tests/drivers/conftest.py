"""Fixtures shared by the driver tests."""

from __future__ import annotations

import pytest

from .helpers import Recorder


@pytest.fixture
def rec() -> Recorder:
    """The driver's emit sink, fresh for each test."""
    return Recorder()
