"""Ways the journal guard's tests damage a journal file or work it from another thread."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def damage_the_index(path: Path, kind: str = "Note") -> None:
    """The file's index no longer matches its rows (its condition edited in the schema to name
    ``kind``, a kind the journal holds): every record reads as written, only SQLite's own
    integrity check sees it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'records_by_kind'",
                 ("'Configuration'", f"'{kind}'"))
    conn.close()


def in_another_thread(work: Callable[[], T]) -> T:
    """``work()`` run on a thread of its own: its result, or what it raised, raised here."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed back to the test
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if failed:
        raise failed[0]
    assert done, "the thread did not finish within 30 s"
    return done[0]
