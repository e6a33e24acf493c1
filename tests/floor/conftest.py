"""Fixtures of the floor feed's tests: a real mosquitto per test (see helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import Broker, broker_in


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    with broker_in(tmp_path / "broker") as running:
        yield running


