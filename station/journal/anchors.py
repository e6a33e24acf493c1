"""Anchors: the journal's head, taken off the table PC, checked against the journal later.

A hash chain without a secret only proves that a journal is *consistent*: whoever can write
the file can change a record and recompute every hash after it and the head. What exposes
that is a value kept where they cannot reach. The station publishes its head now and then (an
*anchor*, ``{"table", "journal_id", "seq", "head"}``: the hash of record ``seq``) to the
casino's floor systems and its log (docs/floor.md); ``station journal verify --anchors FILE``
then checks every anchor of this journal against its chain and names the first anchored record
that no longer matches.

The anchor file holds one JSON object per line, as ``station floor watch --anchors-out`` or
any floor system writes them. A round or event message of the floor feed is accepted as well:
it names its journal, its record's ``seq`` and that record's ``hash``, so a store of the feed is
a dense set of anchors.

A journal's id is the first 16 hex digits of its first record's hash: stable for a journal,
different for every journal (record 1 carries the moment it was written), and changed by a
rewrite of record 1, which the anchors then expose too. With a key (``--anchor-key``, a file
kept away from the journal's folder), every anchor must carry a valid ``mac``: an HMAC-SHA256
of its canonical ``{table, journal_id, seq, head}``, so an anchor file cannot be forged by
whoever rewrote the journal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.journal.chain import canonical_json
from station.journal.store import JournalReader
from station.journal.verify import VerifyReport, verify

#: Hex digits of record 1's hash that make a journal's id.
JOURNAL_ID_DIGITS = 16
#: The fields an anchor's signature covers, in its canonical JSON.
SIGNED_FIELDS = ("table", "journal_id", "seq", "head")
_HEX = frozenset("0123456789abcdef")


class AnchorFileError(ValueError):
    """An anchor file (or key file) that cannot be used; the message names the line."""


def journal_id(first_hash: str) -> str:
    """A journal's id from the hash of its record 1."""
    return first_hash[:JOURNAL_ID_DIGITS]


def journal_id_of(reader: JournalReader) -> str | None:
    """The id of an open journal, or None while it has no record."""
    first = reader.first_hash()  # record 1's, also once it is archived
    return None if first is None else journal_id(first)


def read_key(path: str | os.PathLike[str]) -> bytes:
    """An anchor key file: its bytes, surrounding whitespace removed; at least 16 bytes."""
    try:
        key = Path(path).read_bytes().strip()
    except OSError as exc:
        raise AnchorFileError(f"cannot read the anchor key {path}: {exc.strerror or exc}") from None
    if len(key) < 16:
        raise AnchorFileError(f"the anchor key {path} is too short: use at least 16 bytes (32 random hex digits)")
    return key


def sign(key: bytes, anchor: dict[str, Any]) -> str:
    """The ``mac`` of an anchor: hex HMAC-SHA256 over canonical JSON of its signed fields."""
    body = canonical_json({name: anchor[name] for name in SIGNED_FIELDS})
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class AnchorLine:
    """One anchor read from a file: where it was, which journal and record, which hash."""

    line: int
    table: str
    journal_id: str
    seq: int
    digest: str
    """The head (an anchor) or the record's hash (a feed message)."""
    mac: str | None
    signed: dict[str, Any] | None
    """The anchor as signed (None for a feed message, which is not signed)."""
    time: str = ""


def parse_anchor(text: str, line: int = 0) -> AnchorLine | None:
    """One line of an anchor file; None for a blank line; :class:`AnchorFileError` when it is
    neither an anchor nor a floor message naming a record's hash."""
    text = text.strip()
    if not text:
        return None
    where = f"line {line}" if line else "anchor"
    try:
        body = json.loads(text)
    except ValueError:
        raise AnchorFileError(f"{where}: not JSON") from None
    if not isinstance(body, dict):
        raise AnchorFileError(f"{where}: not a JSON object")
    digest = body.get("head", body.get("hash"))
    seq, ident, table = body.get("seq"), body.get("journal_id"), body.get("table", "")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise AnchorFileError(f"{where}: seq must be a whole number from 1")
    if not isinstance(ident, str) or not ident:
        raise AnchorFileError(f"{where}: journal_id is missing")
    if not isinstance(digest, str) or len(digest) < 16 or not set(digest.lower()) <= _HEX:
        raise AnchorFileError(f"{where}: head (or hash) must be at least 16 hex digits")
    if not isinstance(table, str):
        raise AnchorFileError(f"{where}: table must be text")
    mac = body.get("mac")
    signed = {name: body[name] for name in SIGNED_FIELDS} if "head" in body and "table" in body else None
    return AnchorLine(line, table, ident, seq, digest.lower(), mac if isinstance(mac, str) else None, signed,
                      str(body.get("time", "")))


def read_anchors(path: str | os.PathLike[str]) -> list[AnchorLine]:
    """Every anchor in a file of JSON lines (``-`` is not special: give a path)."""
    try:
        with open(path, encoding="utf-8") as stream:
            return _parse_lines(stream)
    except AnchorFileError as exc:  # a line that is not an anchor: say which file it is in
        raise AnchorFileError(f"{os.fspath(path)}: {exc}") from None
    except OSError as exc:
        raise AnchorFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise AnchorFileError(f"{path} is not UTF-8 text") from None


def _parse_lines(lines: Iterable[str]) -> list[AnchorLine]:
    found = []
    for number, text in enumerate(lines, start=1):
        anchor = parse_anchor(text, number)
        if anchor is not None:
            found.append(anchor)
    return found


@dataclass(frozen=True)
class AnchorCheck:
    """The verdict of a journal against a file of anchors."""

    report: VerifyReport
    journal_id: str | None
    used: int
    """Anchors of this journal that were checked."""
    other_journals: int
    """Anchors in the file that name another journal (ignored)."""
    problem: str
    """What is wrong, naming the first record that cannot match; empty when the journal passes."""

    @property
    def ok(self) -> bool:
        return not self.problem

    def verdict(self, path: str | os.PathLike[str]) -> str:
        if self.ok:
            extra = f"; {self.other_journals} anchors of other journals ignored" if self.other_journals else ""
            return (f"journal {path}: intact and matches {self.used} anchors (journal id {self.journal_id}), "
                    f"{self.report.records} records, last {self.report.last_seq} hash {self.report.last_hash}{extra}")
        return f"journal {path}: BAD: {self.problem} ({self.report.records} records in the file)"


def check_anchors(path: str | os.PathLike[str], anchors: Sequence[AnchorLine], *, key: bytes | None = None,
                  table: str | None = None, deep: bool = False) -> AnchorCheck:
    """Check the journal at ``path`` against ``anchors`` (and its own chain, as ``verify``
    does). Anchors of other journals are ignored; with ``table``, so are those of other
    tables. Fails when none is left, when two disagree, when a signature is wrong (with
    ``key``), or when an anchored record is missing or has another hash."""
    with JournalReader(path) as reader:
        ident = journal_id_of(reader)
    chosen = [a for a in anchors if table is None or a.table == table]
    mine = [a for a in chosen if a.journal_id == ident]
    others = len(chosen) - len(mine)
    plain = verify(path, deep=deep)

    def failed(problem: str, report: VerifyReport = plain) -> AnchorCheck:
        return AnchorCheck(report, ident, len(mine), others, problem)

    if not mine:
        named = sorted({a.journal_id for a in chosen})
        if ident is None:
            return failed("the journal has no record 1, but the anchors name journals " + ", ".join(named))
        if not named:
            return failed("the anchor file holds no anchor" + (f" of table {table}" if table else ""))
        return failed(f"record 1: this journal's id is {ident}, no anchor names it (they name "
                      f"{', '.join(named[:5])}{' …' if len(named) > 5 else ''}): record 1 was rewritten, or these "
                      "anchors were taken from another journal")
    if key is not None:
        for anchor in mine:
            if anchor.signed is None:
                continue  # a feed message: not signed, checked only as a hash
            if anchor.mac is None:
                return failed(f"line {anchor.line}: the anchor of record {anchor.seq} is not signed")
            if not hmac.compare_digest(anchor.mac.lower(), sign(key, anchor.signed)):
                return failed(f"line {anchor.line}: the signature of the anchor of record {anchor.seq} does not "
                              "match the key (forged, or signed with another key)")
    by_seq: dict[int, AnchorLine] = {}
    for anchor in sorted(mine, key=lambda a: (a.seq, a.line)):
        earlier = by_seq.get(anchor.seq)
        if earlier is None:
            by_seq[anchor.seq] = anchor
            continue
        short, long_ = sorted((earlier.digest, anchor.digest), key=len)
        if not long_.startswith(short):
            return failed(f"record {anchor.seq}: the anchors disagree (lines {earlier.line} and {anchor.line}): "
                          "the journal was rewritten between them")
        if len(anchor.digest) > len(earlier.digest):
            by_seq[anchor.seq] = anchor
    if not plain.ok:
        return failed(plain.problem)
    report = verify(path, anchors={seq: a.digest for seq, a in by_seq.items()}, deep=False)
    if report.ok:
        return AnchorCheck(report, ident, len(mine), others, "")
    problem = report.problem
    bad = report.first_bad_seq
    if bad is not None and bad in by_seq:
        anchor = by_seq[bad]
        taken = f", taken {anchor.time}" if anchor.time else ""
        matched = [seq for seq in by_seq if seq < bad]
        since = (f"; rewritten after record {max(matched)}, whose anchor still matches, and at or before record {bad}"
                 if matched else f"; rewritten at or before record {bad}")
        problem = f"record {bad}: hash differs from the anchor on line {anchor.line}{taken} (rewritten){since}"
    return failed(problem, report)
