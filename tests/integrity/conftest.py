"""Fixtures of the integrity tests: a real core loop on a real journal (as in tests/core), and
helpers to play the table's shuffler."""

from __future__ import annotations

from typing import Self

import pytest

from station.cards import FULL_DECK
from station.events import DeckCheck

from ..core_table import SUPERVISOR
from ..core_table import Table as CoreTable

__all__ = ["SUPERVISOR", "Table"]


class Table(CoreTable):
    """The core's test table, with the shuffler's count of its set."""

    def counted(self, device: str = "shuffler", change: dict[str, int] | None = None) -> Self:
        """The shuffler's count of its set: complete, or with ``change`` (card code -> count)."""
        decks = self.options.decks
        counts = {c.code: decks for c in FULL_DECK} | (change or {})
        self.post(DeckCheck(device, decks, tuple((code, n) for code, n in counts.items() if n)))
        return self


@pytest.fixture
def table_kind() -> type[Table]:
    """``make_table`` (tests/conftest.py) makes these tables here."""
    return Table
