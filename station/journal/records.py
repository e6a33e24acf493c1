"""One record of the journal, and what may be journaled at all.

A record is a kind and a JSON object payload; :func:`prepare` refuses anything that would not
come back from JSON as the same value (a set, bytes, NaN, a lone surrogate), naming the part,
before anything is written. Shared by the writer, the readers and the archive.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from station.journal.chain import canonical_json
from station.journal.errors import JournalError, RecordError


@dataclass(frozen=True)
class JournalRecord:
    """One journaled event or decision, exactly as stored and hashed."""

    seq: int
    """1, 2, 3, ... with no gaps."""
    time: str
    """Wall clock when it was appended, ISO 8601 UTC with microseconds (``...T21:35:07.123456Z``)."""
    kind: str
    """What it is: an event kind such as ``CardDrawn``, or a decision such as ``SupervisorDecision``."""
    payload: dict[str, Any]
    """The JSON object that was appended (after a JSON round trip: tuples come back as lists)."""
    prev_hash: str
    """Hex SHA-256 of the previous record; :data:`GENESIS_HASH` for record 1."""
    hash: str
    """Hex SHA-256 over (seq, time, kind, canonical payload, prev_hash)."""

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object, fields in a fixed order (used by export)."""
        return {
            "seq": self.seq,
            "time": self.time,
            "kind": self.kind,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def utc_now() -> datetime:
    """The default clock."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds and a ``Z``; naive datetimes are refused as ambiguous."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise JournalError("the journal clock returned a naive datetime; it must carry a time zone")
    # isoformat, not strftime: the same text, at a fraction of the cost
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def check_json(value: Any, where: str) -> None:
    """Refuse anything that would not come back from JSON as the same value."""
    if value is None or isinstance(value, (bool, int, str)):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise RecordError(f"{where}: text that is not valid Unicode (lone surrogate)") from None
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{where}: {value!r} is not a JSON number")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise RecordError(f"{where}: object key {key!r} is not text")
            check_json(key, f"{where} key")
            check_json(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_json(item, f"{where}[{index}]")
        return
    raise RecordError(f"{where}: {type(value).__name__} is not a JSON value")


def pair(item: Any) -> tuple[Any, Any]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise RecordError(f"append_many takes (kind, payload) pairs, got {item!r}")
    return item[0], item[1]


def prepare(kind: Any, payload: Any) -> tuple[str, str, dict[str, Any]]:
    """Validate one item and return (kind, canonical payload JSON, the payload as read back).

    The quick test is the definition itself: the payload must come back from its JSON as the
    same value. Only a payload that fails it is walked by :func:`_check_json`, which names
    the offending part (and lets tuples through: they come back as lists).
    """
    if not isinstance(kind, str) or not kind.strip():
        raise RecordError(f"a record kind must be non-empty text, got {kind!r}")
    check_json(kind, "kind")
    if not isinstance(payload, dict):
        raise RecordError(f"{kind}: the payload must be a JSON object (dict), got {type(payload).__name__}")
    try:
        text = canonical_json(payload)
        text.encode("utf-8")  # a lone surrogate cannot be stored or hashed
        back = json.loads(text)
        if back == payload:
            return kind, text, back
    except (TypeError, ValueError):
        pass
    check_json(payload, f"{kind} payload")
    text = canonical_json(payload)
    return kind, text, json.loads(text)


def check_record(kind: Any, payload: Any) -> None:
    """Raise :class:`RecordError` (naming the part) if the journal could not store this record."""
    prepare(kind, payload)


COLUMNS = "seq, time, kind, payload, prev_hash, hash"


@functools.lru_cache(maxsize=128)
def insert_statement(rows: int) -> str:
    """One multi-row INSERT for a group of ``rows`` records (6 parameters each, well inside
    SQLite's limit for the loop's groups of at most a few dozen)."""
    return f"INSERT INTO records ({COLUMNS}) VALUES " + ",".join(["(?, ?, ?, ?, ?, ?)"] * rows)


def record_from_row(row: tuple[Any, ...]) -> JournalRecord:
    seq, time, kind, payload, prev_hash, hash_ = row
    try:
        body = json.loads(payload)
    except (TypeError, ValueError):
        body = None
    if not isinstance(body, dict):
        raise JournalError(f"record {seq}: payload is not a JSON object; run 'station journal verify'")
    return JournalRecord(seq=seq, time=time, kind=kind, payload=body, prev_hash=prev_hash, hash=hash_)
