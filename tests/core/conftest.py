"""Fixtures for the core tests: a real core loop on a real temporary journal.

``table`` is a :class:`~tests.core_table.Table`: it posts events, runs the loop until the queue
is empty, and keeps every output, so each test drives the real code path (journal first, then
apply).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from station.cards import parse_card

from ..core_table import Table


@pytest.fixture
def table(make_table: Callable[..., Table]) -> Table:
    """A table of ``make_table`` (tests/conftest.py)."""
    return make_table()


def card(code: str) -> Any:
    return parse_card(code)
