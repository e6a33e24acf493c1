"""verify() checks what is stored, byte for byte, not only what it means.

The hash covers a record's payload as canonical JSON, so a change of bytes that keeps the
payload's meaning (a space, another order of keys, an escape) left the hash right; and a key
given twice means one thing to a reader that keeps the last and another to one that keeps the
first. Each of these, made in the file as someone with write access would make it (the hash
left as it was), must be reported as an altered record, deep or not; and so must any change of
any one character of a payload.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.journal import Journal
from station.journal.verify import verify

RECORD = 7


def stored_payload(path: Path, seq: int) -> str:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        (text,) = conn.execute("SELECT payload FROM records WHERE seq = ?", (seq,)).fetchone()
    finally:
        conn.close()
    return str(text)


def _reordered(text: str) -> str:
    payload = json.loads(text)
    return json.dumps(dict(reversed(list(payload.items()))), separators=(",", ":"), ensure_ascii=False)


def _escaped(text: str) -> str:
    return text.replace('"device"', '"\\u0064evice"', 1)


def _first_key_twice(text: str) -> str:
    # {"card":"9H",...} -> {"card":"AS","card":"9H",...}: a first-key reader sees AS
    return text.replace('{"card":"9H"', '{"card":"AS","card":"9H"', 1)


CHANGES = {
    "a trailing space": lambda text: text + " ",
    "a leading space": lambda text: " " + text,
    "a space after a colon": lambda text: text.replace('":', '": ', 1),
    "keys in another order": _reordered,
    "an escape the station does not write": _escaped,
    "a key given twice": _first_key_twice,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_payload_changed_but_meaning_the_same_is_altered(journal_of, tamper, change: str) -> None:
    path = journal_of(10)
    before = stored_payload(path, RECORD)
    after = CHANGES[change](before)
    assert after != before
    with tamper(path) as conn:
        conn.execute("UPDATE records SET payload = ? WHERE seq = ?", (after, RECORD))
    for deep in (False, True):
        report = verify(path, deep=deep)
        assert not report.ok, (change, deep)
        assert report.first_bad_seq == RECORD
        assert report.problem.startswith(f"record {RECORD}: payload ")
        assert "(altered" in report.problem
    if change == "a key given twice":
        assert "names 'card' twice" in verify(path).problem


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.integers(min_value=0, max_value=10_000), character=st.characters(min_codepoint=32,
                                                                                      max_codepoint=126))
def test_any_changed_character_of_a_payload_is_seen(tmp_path: Path, tamper, position: int, character: str) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
        path = Path(folder) / "journal.sqlite3"
        with Journal(path) as journal:
            journal.append_many([("CardDrawn", {"device": "shoe", "card": "9H", "n": n, "note": "déjà vu"})
                                 for n in range(8)])
        text = stored_payload(path, 5)
        at = position % len(text)
        if text[at] == character:
            return
        with tamper(path) as conn:
            conn.execute("UPDATE records SET payload = ? WHERE seq = 5", (text[:at] + character + text[at + 1:],))
        report = verify(path)
        assert not report.ok and report.first_bad_seq == 5, (at, character, report.problem)
