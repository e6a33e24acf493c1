"""``station journal verify --anchors``: a journal rewritten before an anchored point fails,
naming the first anchored record that cannot match; an untouched journal passes.

The journals here are written with the journal's own API (no station, no broker): the
anchors are what the station publishes, made from the records as written. The end-to-end
version, with anchors collected from a real broker by ``station floor watch``, is in
test_anchors_e2e.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from station.journal import Journal, JournalReader
from station.journal.anchors import check_anchors, journal_id, parse_anchor, sign

from ..forgery import cut_journal, rewrite_journal
from .helpers import station, station_env

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

TABLE = "BAC-07"
KEY = b"0123456789abcdef0123456789abcdef"


def _journal(path: Path, records: int = 300) -> Path:
    with Journal(path) as journal:
        for number in range(records):
            journal.append("BetPlaced", {"type": "BetPlaced", "box": "1", "player": "P1", "region": "banker",
                                         "amount": 2000 + number})
    return path


def _anchors(path: Path, seqs: list[int], key: bytes | None = None) -> list[dict[str, Any]]:
    with JournalReader(path) as reader:
        first = reader.get(1)
        assert first is not None
        anchors = []
        for seq in seqs:
            record = reader.get(seq)
            assert record is not None
            anchor: dict[str, Any] = {"v": 1, "kind": "anchor", "table": TABLE, "journal_id": journal_id(first.hash),
                                      "seq": seq, "head": record.hash, "time": record.time, "reason": "records"}
            if key is not None:
                anchor["mac"] = sign(key, anchor)
            anchors.append(anchor)
    return anchors


def _write(path: Path, anchors: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(a) + "\n" for a in anchors))
    return path


def _verify(tmp_path: Path, journal: Path, *extra: str) -> tuple[int, str]:
    result = station("journal", "verify", "--journal", str(journal), *extra, env=station_env(tmp_path))
    return result.returncode, result.stdout + result.stderr


def test_an_untouched_journal_matches_its_anchors(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", _anchors(journal, [1, 100, 200, 300]))
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors))
    assert status == 0, out
    assert "matches 4 anchors" in out


def test_a_full_chain_rewrite_before_an_anchor_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", _anchors(journal, [100, 200, 300]))

    def raise_the_bet(payload: dict[str, Any]) -> None:
        payload["amount"] = 100000

    rewrite_journal(journal, 150, raise_the_bet)
    status, out = _verify(tmp_path, journal)  # the chain alone: consistent, so "intact"
    assert status == 0 and "intact" in out, out
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors))
    assert status == 1, out
    assert "record 200: hash differs from the anchor on line 2" in out
    assert "rewritten after record 100, whose anchor still matches, and at or before record 200" in out
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors), "--json")
    report = json.loads(out)
    assert report["ok"] is False and report["first_bad_seq"] == 200


def test_a_rewrite_after_the_last_anchor_is_beyond_what_anchors_can_say(tmp_path: Path) -> None:
    """Honest limits: anchors cover what they name; a record after the last one is covered by
    the next anchor (every N records, every T seconds, at shoe end and at stop)."""
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", _anchors(journal, [100, 200]))
    rewrite_journal(journal, 250, lambda p: p.update(amount=1))
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors))
    assert status == 0, out


def test_a_cut_tail_with_the_head_moved_back_fails(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", _anchors(journal, [100, 300]))
    cut_journal(journal, 250)
    assert _verify(tmp_path, journal)[0] == 0
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors))
    assert status == 1 and "record 300 missing (the anchor names it; records end at 250)" in out, out


def test_a_rewritten_record_1_changes_the_journal_id_and_no_anchor_matches(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", _anchors(journal, [50, 300]))
    rewrite_journal(journal, 1, lambda p: p.update(amount=999999))
    status, out = _verify(tmp_path, journal, "--anchors", str(anchors))
    assert status == 1, out
    assert "record 1: this journal's id is" in out and "no anchor names it" in out


def test_with_the_key_a_forged_or_unsigned_anchor_fails(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    key = tmp_path / "anchor.key"
    key.write_bytes(KEY + b"\n")
    signed = _anchors(journal, [100, 200], KEY)
    good = _write(tmp_path / "good.jsonl", signed)
    assert _verify(tmp_path, journal, "--anchors", str(good), "--anchor-key", str(key))[0] == 0
    # Whoever rewrote the journal writes anchors to match it: without the key they cannot sign.
    rewrite_journal(journal, 150, lambda p: p.update(amount=100000))
    forged = _write(tmp_path / "forged.jsonl", _anchors(journal, [100, 200], b"another key, not the station's"))
    status, out = _verify(tmp_path, journal, "--anchors", str(forged), "--anchor-key", str(key))
    assert status == 1 and "line 1: the signature of the anchor of record 100 does not match the key" in out, out
    unsigned = _write(tmp_path / "unsigned.jsonl", _anchors(journal, [100]))
    status, out = _verify(tmp_path, journal, "--anchors", str(unsigned), "--anchor-key", str(key))
    assert status == 1 and "is not signed" in out, out


def test_feed_messages_count_as_anchors_and_disagreeing_anchors_fail(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    anchors = _anchors(journal, [120])
    with JournalReader(journal) as reader:
        record = reader.get(60)
        assert record is not None
        message = {"kind": "round", "table": TABLE, "journal_id": anchors[0]["journal_id"], "seq": 60,
                   "hash": record.hash}
    path = _write(tmp_path / "mixed.jsonl", [message, *anchors])
    assert _verify(tmp_path, journal, "--anchors", str(path))[0] == 0
    rewrite_journal(journal, 50, lambda p: p.update(amount=5))
    status, out = _verify(tmp_path, journal, "--anchors", str(path))
    assert status == 1 and "record 60: hash differs from the anchor on line 1" in out, out
    other = dict(anchors[0], head="f" * 64)
    status, out = _verify(tmp_path, journal, "--anchors", str(_write(tmp_path / "two.jsonl", [anchors[0], other])))
    assert status == 1 and "the anchors disagree" in out


def test_anchors_of_other_tables_are_ignored_with_table(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3")
    mine = _anchors(journal, [10, 20])
    theirs = [dict(a, table="WAR-02", journal_id="0123456789abcdef") for a in mine]
    path = _write(tmp_path / "floor.jsonl", [*theirs, *mine])
    status, out = _verify(tmp_path, journal, "--anchors", str(path))
    assert status == 0 and "2 anchors of other journals ignored" in out, out
    status, out = _verify(tmp_path, journal, "--anchors", str(path), "--table", "WAR-02")
    assert status == 1 and "no anchor names it" in out


@pytest.mark.parametrize(("line", "words"), [
    ("not json", "not JSON"),
    ("[1]", "not a JSON object"),
    ('{"journal_id": "ab", "seq": 0, "head": "' + "a" * 64 + '"}', "seq must be a whole number"),
    ('{"seq": 3, "head": "' + "a" * 64 + '"}', "journal_id is missing"),
    ('{"journal_id": "ab", "seq": 3, "head": "xyz"}', "head (or hash) must be at least 16 hex digits"),
])
def test_a_bad_anchor_line_is_named(tmp_path: Path, line: str, words: str) -> None:
    journal = _journal(tmp_path / "j.sqlite3", 5)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + line + "\n")
    status, out = _verify(tmp_path, journal, "--anchors", str(path))
    assert status == 2 and f"{path}: line 2: {words}" in out, out  # the file named, and the line


def test_the_api_reads_what_the_cli_reads(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite3", 20)
    lines = [parse_anchor(json.dumps(a), i + 1) for i, a in enumerate(_anchors(journal, [5, 20]))]
    check = check_anchors(journal, [a for a in lines if a is not None])
    assert check.ok and check.used == 2 and check.report.last_seq == 20


def test_an_anchor_key_is_at_least_sixteen_bytes_whitespace_aside(tmp_path: Path) -> None:
    """A key an attacker could guess is refused, naming the file; its surrounding newline does
    not count towards the length."""
    from station.journal.anchors import AnchorFileError, read_key

    short, enough = tmp_path / "short.key", tmp_path / "enough.key"
    short.write_bytes(b"0123456789abcde\n")  # 15 bytes and a newline
    enough.write_bytes(b" 0123456789abcdef\n")  # 16
    with pytest.raises(AnchorFileError, match=f"the anchor key {short} is too short: use at least 16 bytes"):
        read_key(short)
    assert read_key(enough) == b"0123456789abcdef"
