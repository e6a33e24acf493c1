"""What someone with write access to a journal file can do to it, for the tests that must catch it.

Each change drops the append-only triggers for the work and creates them again afterwards, so
the file looks as the station left it: a record changed with the whole chain after it and the
head re-hashed (a consistent forgery: plain ``verify`` cannot tell, only an anchor or the deep
replay of ``verify --deep``), or a tail cut off with the head moved back to match.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from station.journal.chain import GENESIS_HASH, canonical_json, record_hash


def rewrite_journal(path: Path, seq: int, change: Callable[[dict[str, Any]], None]) -> None:
    """What someone with write access to the file can do: change record ``seq``'s payload and
    recompute the whole chain after it and the head, with the append-only triggers dropped
    for the work and created again afterwards. ``verify`` without anchors cannot tell."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        triggers = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        conn.execute("BEGIN")
        conn.execute("DROP TRIGGER records_are_append_only_update")
        conn.execute("DROP TRIGGER records_are_append_only_delete")
        before = conn.execute("SELECT hash FROM records WHERE seq = ?", (seq - 1,)).fetchone()
        prev = before[0] if before else GENESIS_HASH
        rows = conn.execute("SELECT seq, time, kind, payload FROM records WHERE seq >= ? ORDER BY seq",
                            (seq,)).fetchall()
        for number, time_, kind, payload_text in rows:
            payload = json.loads(payload_text)
            if number == seq:
                change(payload)
            text = canonical_json(payload)
            digest = record_hash(number, time_, kind, text, prev)
            conn.execute("UPDATE records SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                         (text, prev, digest, number))
            prev = digest
        conn.execute("UPDATE head SET last_seq = ?, last_hash = ? WHERE id = 1", (rows[-1][0], prev))
        for (sql,) in triggers:
            conn.execute(sql)
        conn.execute("COMMIT")
    finally:
        conn.close()


def cut_journal(path: Path, keep: int) -> None:
    """Cut the records after ``keep`` and move the head back to match (triggers dropped and
    created again): the tail is gone and nothing inside the file says so."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        triggers = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        conn.execute("BEGIN")
        conn.execute("DROP TRIGGER records_are_append_only_update")
        conn.execute("DROP TRIGGER records_are_append_only_delete")
        conn.execute("DELETE FROM records WHERE seq > ?", (keep,))
        (digest,) = conn.execute("SELECT hash FROM records WHERE seq = ?", (keep,)).fetchone()
        conn.execute("UPDATE head SET last_seq = ?, last_hash = ? WHERE id = 1", (keep, digest))
        for (sql,) in triggers:
            conn.execute(sql)
        conn.execute("COMMIT")
    finally:
        conn.close()
