"""Helpers for the journal tests: build real journals and tamper with them as an attacker would."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from station.journal import Journal


def marker(seq: int) -> str:
    """Text unique to one record's payload, so a test can find its bytes in the file."""
    return f"MARKER-{seq:05d}-PAYLOAD"


def build_journal(path: Path, count: int) -> Path:
    """A journal of ``count`` records whose payloads carry :func:`marker` text."""
    with Journal(path) as journal:
        journal.append_many(
            [("CardDrawn", {"device": "shoe", "card": "9H", "note": marker(n)}) for n in range(1, count + 1)]
        )
    return path


@contextmanager
def tampering(path: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection with the append-only guards dropped, committed on exit."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP TRIGGER IF EXISTS records_are_append_only_update")
        conn.execute("DROP TRIGGER IF EXISTS records_are_append_only_delete")
        yield conn
        conn.commit()
    finally:
        conn.close()


@pytest.fixture
def journal_of(tmp_path: Path) -> Callable[[int], Path]:
    def make(count: int) -> Path:
        return build_journal(tmp_path / "journal.sqlite3", count)

    return make


@pytest.fixture
def tamper() -> Callable[[Path], AbstractContextManager[sqlite3.Connection]]:
    """The :func:`tampering` context manager (test modules cannot import conftest directly)."""
    return tampering


@pytest.fixture
def marker_of() -> Callable[[int], str]:
    return marker
