"""Fixtures of the pit page's tests: a real journal for the feed replayers (the real mosquitto
per test is tests/conftest.py's ``broker``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import make_journal


@pytest.fixture(scope="session")
def recorded_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole shoe dealt by ``station demo`` on simulated hardware: the feed replayers replay it."""
    return make_journal(tmp_path_factory.mktemp("recorded") / "journal.sqlite3")
