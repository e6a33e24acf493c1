"""Fixtures of the pit page's tests: a real journal for the feed replayers (the real mosquitto
per test is tests/conftest.py's ``broker``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .helpers import make_journal, stop_all


@pytest.fixture(scope="session")
def recorded_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole shoe dealt by ``station demo`` on simulated hardware: the feed replayers replay it."""
    return make_journal(tmp_path_factory.mktemp("recorded") / "journal.sqlite3")


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[Any]]]:
    """Every child the test starts; whatever is still running at the end is stopped."""
    started: list[subprocess.Popen[Any]] = []
    yield started
    stop_all(started)
