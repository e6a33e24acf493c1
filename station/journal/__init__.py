"""The station's durable, hash-chained journal of every input event and decision.

The core loop appends each event here *before* it acts on it, so the state after a crash is
a replay of the journal, and each record carries the SHA-256 of the one before it so that an
altered, removed or reordered record is evident (``station journal verify``).

- :mod:`station.journal.store`: :class:`Journal` (the single writer) and
  :class:`JournalReader` (read-only access that never creates or changes a file).
- :mod:`station.journal.chain`: the canonical JSON and the hash each record carries.
- :mod:`station.journal.verify`: :func:`verify` walks a journal and names the first bad record.
- :mod:`station.journal.location`: where the journal lives by default, and its overrides.
"""

from station.journal.chain import GENESIS_HASH, canonical_json, record_hash
from station.journal.store import (
    Journal,
    JournalError,
    JournalReader,
    JournalRecord,
    NotAJournalError,
    RecordError,
)

__all__ = [
    "GENESIS_HASH",
    "Journal",
    "JournalError",
    "JournalReader",
    "JournalRecord",
    "NotAJournalError",
    "RecordError",
    "canonical_json",
    "record_hash",
]
