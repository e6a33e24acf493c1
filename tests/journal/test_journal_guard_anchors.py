"""Anchors against a journal, through ``station.journal.anchors`` and ``station journal verify
--anchors`` run in this process (issue 40, the journal guard): what an anchor line must hold
(each refusal naming the file and the line), what a key file must be, a journal's id, and the
verdict of a journal against its anchors: none left, one naming another journal, a signature
that does not match, two anchors of one record that disagree (the fuller one is held), a
rewrite named by the first anchored record that no longer matches and the last that still
does, and the structure of the file checked only when asked (``deep``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.journal import Journal, JournalReader
from station.journal.anchors import (
    AnchorCheck,
    AnchorFileError,
    AnchorLine,
    check_anchors,
    journal_id,
    parse_anchor,
    read_anchors,
    read_key,
    sign,
)

from ..forgery import cut_journal, rewrite_journal
from .damage import damage_the_index

TABLE = "BAC-07"
KEY = b"0123456789abcdef0123456789abcdef"
HEX = "a" * 64


def _journal(path: Path, records: int = 30) -> Path:
    with Journal(path) as journal:
        journal.append_many([("BetPlaced", {"box": "1", "amount": 2000 + n}) for n in range(records)])
    return path


def _hash(path: Path, seq: int) -> str:
    with JournalReader(path) as reader:
        record = reader.get(seq)
    assert record is not None
    return record.hash


def _anchor(path: Path, seq: int, key: bytes | None = None, **changes: Any) -> dict[str, Any]:
    """The anchor the station publishes for record ``seq`` (signed with ``key``)."""
    anchor: dict[str, Any] = {"v": 1, "kind": "anchor", "table": TABLE, "journal_id": journal_id(_hash(path, 1)),
                              "seq": seq, "head": _hash(path, seq), "reason": "records"}
    anchor.update(changes)
    if key is not None:
        anchor["mac"] = sign(key, anchor)
    return anchor


def _lines(anchors: list[dict[str, Any]]) -> list[AnchorLine]:
    parsed = [parse_anchor(json.dumps(anchor), number) for number, anchor in enumerate(anchors, start=1)]
    return [anchor for anchor in parsed if anchor is not None]


def _check(path: Path, anchors: list[dict[str, Any]], **options: Any) -> AnchorCheck:
    return check_anchors(path, _lines(anchors), **options)


def _write(path: Path, anchors: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(anchor) + "\n" for anchor in anchors))
    return path


# --- what a line of an anchor file must hold --------------------------------------------------


@pytest.mark.parametrize(("body", "words"), [
    ("not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ({"journal_id": "ab", "seq": 0, "head": HEX}, "seq must be a whole number from 1"),
    ({"journal_id": "ab", "seq": -4, "head": HEX}, "seq must be a whole number from 1"),
    ({"journal_id": "ab", "seq": "3", "head": HEX}, "seq must be a whole number from 1"),
    ({"journal_id": "ab", "seq": 2.0, "head": HEX}, "seq must be a whole number from 1"),
    ({"journal_id": "ab", "seq": True, "head": HEX}, "seq must be a whole number from 1"),  # JSON true is no number
    ({"seq": 3, "head": HEX}, "journal_id is missing"),
    ({"journal_id": "", "seq": 3, "head": HEX}, "journal_id is missing"),
    ({"journal_id": 12, "seq": 3, "head": HEX}, "journal_id is missing"),
    ({"journal_id": "ab", "seq": 3}, "head (or hash) must be at least 16 hex digits"),
    ({"journal_id": "ab", "seq": 3, "head": 1234567890123456789}, "head (or hash) must be at least 16 hex digits"),
    ({"journal_id": "ab", "seq": 3, "head": "a" * 15}, "head (or hash) must be at least 16 hex digits"),
    ({"journal_id": "ab", "seq": 3, "head": "g" * 16}, "head (or hash) must be at least 16 hex digits"),
    ({"journal_id": "ab", "seq": 3, "head": HEX, "table": 7}, "table must be text"),
])
def test_a_line_that_is_not_an_anchor_is_refused_naming_it(body: str | dict[str, Any], words: str) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    with pytest.raises(AnchorFileError) as raised:
        parse_anchor(text, 4)
    assert str(raised.value) == f"line 4: {words}"
    with pytest.raises(AnchorFileError) as raised:
        parse_anchor(text)  # a single anchor, not from a file
    assert str(raised.value) == f"anchor: {words}"


def test_the_smallest_anchor_is_record_1_with_16_hex_digits_in_either_case() -> None:
    anchor = parse_anchor(json.dumps({"journal_id": "ab", "seq": 1, "head": "ABCDEF0123456789"}), 2)
    assert anchor == AnchorLine(2, "", "ab", 1, "abcdef0123456789", None, None)


def test_a_blank_line_is_no_anchor_and_the_lines_are_counted_from_1(tmp_path: Path) -> None:
    assert parse_anchor("   \n") is None
    path = tmp_path / "anchors.jsonl"
    good = json.dumps({"journal_id": "ab", "seq": 3, "hash": HEX})
    path.write_text(f"\n{good}\n  \n{good}\n")
    assert [anchor.line for anchor in read_anchors(path)] == [2, 4]
    path.write_text(f"{good}\n\n{{\n")
    with pytest.raises(AnchorFileError) as raised:
        read_anchors(path)
    assert str(raised.value) == f"{path}: line 3: not JSON"  # the file named, then the line


def test_an_anchor_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    absent = tmp_path / "absent.jsonl"
    with pytest.raises(AnchorFileError) as raised:
        read_anchors(absent)
    assert str(raised.value) == f"cannot read {absent}: No such file or directory"
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"table": "Caf\xe9"}\n')
    with pytest.raises(AnchorFileError) as raised:
        read_anchors(latin)
    assert str(raised.value) == f"{latin} is not UTF-8 text"


def test_a_key_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    absent = tmp_path / "anchor.key"
    with pytest.raises(AnchorFileError) as raised:
        read_key(absent)
    assert str(raised.value) == f"cannot read the anchor key {absent}: No such file or directory"


def test_an_anchor_is_signed_over_its_four_fields_when_it_names_its_table() -> None:
    """An anchor names its table and head: its signed body is those four fields. A feed
    message (a ``hash``, or no table) carries no signature of its own."""
    body = {"table": TABLE, "journal_id": "ab", "seq": 3, "head": HEX, "time": "T", "reason": "records"}
    anchor = parse_anchor(json.dumps(body))
    assert anchor is not None and anchor.signed == {"table": TABLE, "journal_id": "ab", "seq": 3, "head": HEX}
    assert anchor.time == "T"
    for message in ({"table": TABLE, "journal_id": "ab", "seq": 3, "hash": HEX},
                    {"journal_id": "ab", "seq": 3, "head": HEX}):
        parsed = parse_anchor(json.dumps(message))
        assert parsed is not None and parsed.signed is None


# --- a journal's id -------------------------------------------------------------------------------


def test_a_journals_id_is_the_first_16_hex_digits_of_record_1s_hash(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    assert journal_id("0123456789abcdef0123") == "0123456789abcdef"
    check = _check(path, [_anchor(path, 10)])
    assert check.ok and check.journal_id == _hash(path, 1)[:16]


# --- the verdict ---------------------------------------------------------------------------------


def test_an_untouched_journal_matches_its_anchors_and_says_how_many(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    anchors = _write(tmp_path / "anchors.jsonl", [_anchor(path, 5), _anchor(path, 30)])
    assert main(["journal", "verify", "--journal", str(path), "--anchors", str(anchors)]) == 0
    ident = _hash(path, 1)[:16]
    assert capsys.readouterr().out == (f"journal {path}: intact and matches 2 anchors (journal id {ident}), "
                                       f"30 records, last 30 hash {_hash(path, 30)}\n")


def test_anchors_of_other_journals_and_tables_are_counted_and_ignored(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    mine = [_anchor(path, 5), _anchor(path, 10), _anchor(path, 20)]
    theirs = [_anchor(path, 7, journal_id="0123456789abcdef"), _anchor(path, 8, journal_id="fedcba9876543210")]
    check = _check(path, [*theirs, *mine])
    assert check.ok and (check.used, check.other_journals) == (3, 2)
    assert check.verdict(path).endswith("; 2 anchors of other journals ignored")
    elsewhere = _check(path, [*mine, _anchor(path, 9, table="WAR-02", journal_id="0123456789abcdef")], table="WAR-02")
    assert (elsewhere.used, elsewhere.other_journals) == (0, 1)  # the other table's one anchor, not this journal's


def test_an_empty_journal_with_anchors_has_no_record_1(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    check = _check(path, [{"journal_id": "0123456789abcdef", "seq": 3, "head": HEX},
                          {"journal_id": "fedcba9876543210", "seq": 4, "head": HEX}])
    assert not check.ok and check.journal_id is None
    assert check.problem == ("the journal has no record 1, but the anchors name journals 0123456789abcdef, "
                             "fedcba9876543210")


def test_a_file_with_no_anchor_left_fails(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    nothing = check_anchors(path, [])
    assert not nothing.ok and nothing.problem == "the anchor file holds no anchor"
    none_of_the_table = _check(path, [_anchor(path, 3)], table="WAR-02")
    assert not none_of_the_table.ok and none_of_the_table.problem == "the anchor file holds no anchor of table WAR-02"


def test_anchors_that_name_only_other_journals_say_record_1_was_rewritten(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    others = [_anchor(path, 3, journal_id=f"{n:016x}") for n in range(7)]
    check = _check(path, others)
    ident = _hash(path, 1)[:16]
    named = ", ".join(f"{n:016x}" for n in range(5))
    assert not check.ok and check.problem == (
        f"record 1: this journal's id is {ident}, no anchor names it (they name {named} …): record 1 was rewritten, "
        "or these anchors were taken from another journal")
    assert check.verdict(path) == f"journal {path}: BAD: {check.problem} (30 records in the file)"


def test_with_a_key_every_anchor_must_be_signed_with_it(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    message = {"table": TABLE, "journal_id": journal_id(_hash(path, 1)), "seq": 4, "hash": _hash(path, 4)}
    signed = [_anchor(path, 10, KEY), message, _anchor(path, 20, KEY)]
    assert _check(path, signed, key=KEY).ok  # a feed message is checked as a hash, unsigned
    unsigned = _check(path, [_anchor(path, 10, KEY), _anchor(path, 20)], key=KEY)
    assert unsigned.problem == "line 2: the anchor of record 20 is not signed"
    forged = _check(path, [_anchor(path, 10, KEY), _anchor(path, 20, b"whoever rewrote the journal")], key=KEY)
    assert forged.problem == ("line 2: the signature of the anchor of record 20 does not match the key (forged, or "
                              "signed with another key)")
    upper = _anchor(path, 10, KEY)
    upper["mac"] = upper["mac"].upper()
    assert _check(path, [upper], key=KEY).ok
    assert _check(path, [_anchor(path, 10, b"another key")]).ok  # without the key, signatures are not checked


def test_two_anchors_of_one_record_must_agree_and_the_fuller_is_held(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    full, prefix = _anchor(path, 20), _anchor(path, 20, head=_hash(path, 20)[:16])
    assert _check(path, [prefix, full]).ok and _check(path, [full, prefix]).ok
    other = _anchor(path, 20, head="f" * 64)
    check = _check(path, [_anchor(path, 5), full, other])
    assert check.problem == "record 20: the anchors disagree (lines 2 and 3): the journal was rewritten between them"
    rewrite_journal(path, 15, lambda payload: payload.update(amount=1))
    for anchors, line in (([prefix, full], 2), ([full, prefix], 1), ([full, full], 1)):  # the fuller, else the first
        problem = _check(path, anchors).problem
        assert problem.startswith(f"record 20: hash differs from the anchor on line {line} (rewritten)"), problem


def test_a_rewrite_is_named_between_the_last_anchor_that_matches_and_the_first_that_does_not(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    anchors = [_anchor(path, 10), _anchor(path, 20, time="2026-12-07T10:00:00Z"), _anchor(path, 30)]
    rewrite_journal(path, 15, lambda payload: payload.update(amount=1))
    check = _check(path, anchors)
    assert check.report.first_bad_seq == 20 and check.report.last_seq == 19
    assert check.problem == ("record 20: hash differs from the anchor on line 2, taken 2026-12-07T10:00:00Z "
                             "(rewritten); rewritten after record 10, whose anchor still matches, and at or before "
                             "record 20")
    early = _check(path, anchors[1:])
    assert early.problem == "record 20: hash differs from the anchor on line 1, taken 2026-12-07T10:00:00Z " \
                            "(rewritten); rewritten at or before record 20"


def test_an_anchor_beyond_the_records_is_a_missing_record(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    anchors = [_anchor(path, 10), _anchor(path, 30)]
    cut_journal(path, 25)
    check = _check(path, anchors)
    assert not check.ok and check.problem == "record 30 missing (the anchor names it; records end at 25)"
    assert check.report.first_bad_seq == 26


def test_a_broken_chain_fails_before_the_anchors_are_looked_at(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    anchors = [_anchor(path, 10)]
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER records_are_append_only_update")
    conn.execute("""UPDATE records SET payload = '{"amount":1,"box":"1"}' WHERE seq = 5""")
    conn.commit()
    conn.close()
    check = _check(path, anchors)
    assert check.problem == "record 5: hash mismatch (altered)" and check.report.first_bad_seq == 5


def test_the_files_structure_is_checked_only_when_asked(tmp_path: Path) -> None:
    path = _journal(tmp_path / "journal.sqlite3")
    anchors = [_anchor(path, 10), _anchor(path, 30)]
    damage_the_index(path, "BetPlaced")
    assert _check(path, anchors).ok
    deep = _check(path, anchors, deep=True)
    assert not deep.ok and deep.problem.startswith("database structure damaged: row 1 missing from index")
