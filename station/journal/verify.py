"""Journal verification: walk every record and name the first one that is not as written.

What is checked, in order, for each record (read raw, so damage the normal reader would
refuse to parse is still reported rather than crashing the check):

1. the sequence starts at 1 and steps by exactly one (a gap is a removed record);
2. ``prev_hash`` equals the hash of the record before (a break is a removed or reordered
   record, or records renumbered to hide a removal);
3. the payload is a JSON object stored byte for byte as the canonical JSON the station
   writes (no space, keys sorted, no escape the station would not write, no key given twice),
   and the record's ``hash`` recomputes from its fields (a mismatch is an altered record).
   The hash covers the payload's canonical text, so without the first test a change of bytes
   that keeps the meaning (or that a reader keeping the first of two keys would read
   otherwise) would pass.

Then the head checkpoint (written in the same transaction as every append) must name the
last record: records missing from the end, or added behind the station's back, show there.
Optionally an *anchor* (a sequence number and hash written down earlier, e.g. from a previous
verification's verdict) must still match, which exposes even a journal rewritten from that
point on with freshly computed hashes. See docs/journal.md for what is and is not detectable.

A journal whose first records were archived (:mod:`station.journal.archive`) is checked with
its archives, end to end: each file from the record its seam names, and each seam against the
last record of the archive before it. An archive that is not beside the journal is named in the
verdict as not checked.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from station.journal.chain import GENESIS_HASH, canonical_json, record_hash
from station.journal.reader import JournalReader
from station.journal.seams import chain


@dataclass(frozen=True)
class VerifyReport:
    """The verdict on one journal."""

    ok: bool
    records: int
    """How many records the file holds (all of them, also those after a bad one)."""
    first_bad_seq: int | None
    """The first record that is altered, missing or out of order; None when intact (or when
    the damage is not tied to one record, such as a missing head checkpoint)."""
    problem: str
    """What is wrong, naming the record; empty when intact."""
    last_seq: int = 0
    """Sequence number of the last record that checked out (the whole journal when ok)."""
    last_hash: str = GENESIS_HASH
    """Hash of that record: write it down to use as an anchor for a later verification."""
    note: str = ""
    """What the verdict adds: the archives checked with the journal, or the one not found."""

    def verdict(self, path: str | os.PathLike[str] | None = None) -> str:
        """One line for a person: the count and head when intact, the first bad record if not."""
        where = f"journal {path}: " if path is not None else ""
        note = f" ({self.note})" if self.note else ""
        if self.ok:
            if self.records == 0:
                return f"{where}intact, 0 records{note}"
            return f"{where}intact, {self.records} records, last {self.last_seq} hash {self.last_hash}{note}"
        return f"{where}BAD: {self.problem} ({self.records} records in the file{note})"


def _bad(records: int, seq: int | None, problem: str, last_seq: int, last_hash: str) -> VerifyReport:
    return VerifyReport(False, records, seq, problem, last_seq, last_hash)


def _missing(first: int, last: int) -> str:
    return f"record {first}" if first == last else f"records {first}-{last}"


def _check_row(row: tuple[Any, ...], expected: int, prev_hash: str) -> tuple[int | None, str]:
    """(first bad seq, problem) for one raw row, or (None, "") when it checks out."""
    seq, time, kind, payload_text, prev, stored_hash = row
    if not isinstance(seq, int):
        return expected, f"record {expected}: sequence number {seq!r} is not a whole number (altered)"
    if seq != expected:
        if seq > expected:
            before = "starts at" if expected == 1 else f"jumps {expected - 1} ->"
            return expected, f"{_missing(expected, seq - 1)} missing (sequence {before} {seq})"
        return seq, f"record {seq}: out of order (expected {expected})"
    fields = {"time": time, "kind": kind, "payload": payload_text, "prev_hash": prev, "hash": stored_hash}
    for name, value in fields.items():
        if not isinstance(value, str):
            return seq, f"record {seq}: {name} has the wrong type (altered)"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return seq, f"record {seq}: {name} is not valid UTF-8 text (altered)"
    if prev != prev_hash:
        return seq, f"record {seq}: previous-hash link broken (reordered or removed)"
    try:
        payload = json.loads(payload_text)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        return seq, f"record {seq}: payload is not a JSON object (altered)"
    try:
        canonical = canonical_json(payload)
    except ValueError:  # NaN/Infinity smuggled into the text: not JSON the station writes
        return seq, f"record {seq}: payload is not strict JSON (altered)"
    if canonical != payload_text:
        return seq, _not_canonical(seq, payload_text)
    if record_hash(seq, time, kind, payload_text, prev) != stored_hash:
        return seq, f"record {seq}: hash mismatch (altered)"
    return None, ""


class _RepeatedKey(ValueError):
    pass


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise _RepeatedKey(key)
        value[key] = item
    return value


def _not_canonical(seq: int, payload_text: str) -> str:
    """Why a stored payload is not byte for byte what the station writes (the hash covers its
    meaning, so a space, another order of keys, an escape or a repeated key would otherwise
    pass): a repeated key is named, since two readers may see two different records in it."""
    try:
        json.loads(payload_text, object_pairs_hook=_once)
    except _RepeatedKey as exc:
        key = str(exc.args[0])[:40]
        return (f"record {seq}: payload names {key!r} twice (altered: readers that keep the first or the last "
                "would see two different records)")
    except ValueError:
        pass
    return f"record {seq}: payload is not stored as the canonical JSON the station writes (altered)"


def verify_rows(rows: Iterable[tuple[Any, ...]], anchor: tuple[int, str] | None = None,
                anchors: Mapping[int, str] | None = None, *, start: tuple[int, str] = (0, GENESIS_HASH),
                last_file: bool = True) -> VerifyReport:
    """Verify raw rows as yielded by :meth:`JournalReader.snapshot_rows` (head row first).

    ``anchors`` maps sequence numbers to hashes (or prefixes of 16 hex digits or more) taken
    off the PC earlier (the floor feed's anchors, :mod:`station.journal.anchors`); each
    named record must still be there with that hash. ``anchor`` is one such pair. ``start``
    is the record before the first (a file after an archive seam), ``last_file`` false for an
    archive: anchors beyond its records are for the files after it."""
    iterator = iter(rows)
    _, head_seq, head_hash = next(iterator)
    count = 0
    expected, prev_hash = start[0] + 1, start[1]
    wanted = {int(seq): digest.lower() for seq, digest in (anchors or {}).items()}
    if anchor is not None:
        wanted[anchor[0]] = anchor[1].lower()
    bad: tuple[int | None, str] | None = None
    try:
        for row in iterator:
            count += 1
            if bad is not None:
                continue  # keep counting so the report says how many records the file holds
            seq_bad, problem = _check_row(row, expected, prev_hash)
            if seq_bad is not None:
                bad = (seq_bad, problem)
                continue
            if wanted and row[0] in wanted and not row[5].startswith(wanted[row[0]]):
                bad = (row[0], f"record {row[0]}: hash differs from the anchor {wanted[row[0]]} (rewritten)")
                continue
            prev_hash = row[5]
            expected += 1
    except sqlite3.DatabaseError as exc:
        problem = f"database damaged after record {expected - 1}: {exc}"
        return _bad(count, expected, problem, expected - 1, prev_hash)
    last_seq = expected - 1
    if bad is not None:
        return _bad(count, bad[0], bad[1], last_seq, prev_hash)
    if head_seq is None:
        return _bad(count, None, "the head checkpoint is missing (altered)", last_seq, prev_hash)
    if not isinstance(head_seq, int) or not isinstance(head_hash, str):
        return _bad(count, None, "the head checkpoint is malformed (altered)", last_seq, prev_hash)
    if head_seq > last_seq:
        gone = _missing(last_seq + 1, head_seq)
        problem = f"{gone} missing from the end (head checkpoint says {head_seq}, records end at {last_seq})"
        return _bad(count, last_seq + 1, problem, last_seq, prev_hash)
    if head_seq < last_seq:
        problem = (
            f"record {head_seq + 1}: not covered by the head checkpoint"
            f" (head says {head_seq}; added outside the station)"
        )
        return _bad(count, head_seq + 1, problem, last_seq, prev_hash)
    if head_hash != prev_hash:
        return _bad(
            count, last_seq, f"record {last_seq}: hash differs from the head checkpoint (altered)", last_seq, prev_hash
        )
    beyond = sorted(seq for seq in wanted if seq > last_seq)
    if beyond and last_file:
        problem = f"record {beyond[0]} missing (the anchor names it; records end at {last_seq})"
        return _bad(count, min(beyond[0], last_seq + 1), problem, last_seq, prev_hash)
    return VerifyReport(True, count, None, "", last_seq, prev_hash)


def verify(path: str | os.PathLike[str], *, anchor: tuple[int, str] | None = None, deep: bool = False,
           anchors: Mapping[int, str] | None = None, standalone: bool = False) -> VerifyReport:
    """Verify the journal at ``path`` without changing it, with the archives of its first
    records that are beside it (``standalone``: this file only).

    ``anchor`` is ``(seq, hash or hash prefix)`` recorded earlier, ``anchors`` many of them
    (``{seq: hash}``); ``deep`` also runs SQLite's
    own ``integrity_check`` over the file's structure first. Raises
    :class:`~station.journal.store.JournalMissingError`,
    :class:`~station.journal.store.NotAJournalError` or
    :class:`~station.journal.store.JournalError` when there is nothing verifiable to read.
    """
    files = [Path(path)] if standalone else [f.path for f in chain(Path(path))]
    missing = "" if standalone or Path(files[0]).exists() else files.pop(0).name
    report: VerifyReport | None = None
    total = 0
    for index, file in enumerate(files):
        previous = report
        report = _verify_file(file, anchor, anchors, deep, last_file=index == len(files) - 1,
                              follows=previous if index else None)
        total += report.records
        label = "" if file == Path(path) else f"archive {file.name}: "
        if not report.ok:
            return replace(report, records=total, problem=label + report.problem)
    assert report is not None
    archived = len(files) - 1
    notes = []
    if archived:
        notes.append(f"with {archived} archive{'s' if archived > 1 else ''} of its first records")
    if missing:
        notes.append(f"the records before record {report.last_seq - report.records + 1} are in the archive "
                     f"{missing}, not found beside it: not checked")
    return replace(report, records=total, note="; ".join(notes))


def _verify_file(path: Path, anchor: tuple[int, str] | None, anchors: Mapping[int, str] | None, deep: bool, *,
                 last_file: bool, follows: VerifyReport | None) -> VerifyReport:
    with JournalReader(path) as reader:
        try:
            if deep:
                damage = reader.integrity_problems()
                if damage:
                    return _bad(
                        _count_or_zero(reader), None, f"database structure damaged: {damage[0]}", 0, GENESIS_HASH
                    )
            start = reader.start()
            if follows is not None and start != (follows.last_seq, follows.last_hash):
                problem = (f"record {start[0] + 1}: the journal's seam does not continue its archive, which ends "
                           f"with record {follows.last_seq} (rewritten)")
                return _bad(0, start[0] + 1, problem, follows.last_seq, follows.last_hash)
            return verify_rows(reader.snapshot_rows(), anchor, anchors, start=start, last_file=last_file)
        except sqlite3.DatabaseError as exc:
            return _bad(_count_or_zero(reader), None, f"database damaged: {exc}", 0, GENESIS_HASH)


def _count_or_zero(reader: JournalReader) -> int:
    try:
        return reader.count()
    except sqlite3.DatabaseError:
        return 0
