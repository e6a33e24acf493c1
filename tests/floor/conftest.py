"""Fixtures of the floor feed's tests: a real mosquitto per test (see helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import MOSQUITTO, Broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if not MOSQUITTO.exists():
        pytest.skip("needs Debian's mosquitto (/usr/sbin/mosquitto; `apt-get install mosquitto`, as .ci/run does)")
    folder = tmp_path / "broker"
    folder.mkdir()
    running = Broker(folder, persistence=True).start()
    yield running
    running.stop()


