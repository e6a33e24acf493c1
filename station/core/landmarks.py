"""Where a question about the past starts reading: the journal's checkpoints as landmarks.

A person asks about a stretch of the past: the last rounds, round 12-34, a gaming day, the
events since a time, one shoe. The answer needs the records of that stretch and the table as
it stood just before, not the table's whole history. The journal already holds such places:
its checkpoints (:mod:`station.core.checkpoints`), the table's whole state, written by the core
loop at every shoe end and at most every ``EVERY_RECORDS`` records. :class:`Landmarks` lists
them across the archive files through the journal's index of kinds (sequence numbers only, no
payload read), and finds by bisection the newest that stands before a time or before a round
opened, reading the payloads of about log2(n) of them. A reader then starts there
(:class:`~station.core.history.History`) and takes the records after it.

No index of its own is kept, so there is none to rebuild, to fall out of step or to be half
written by a SIGKILL: the checkpoints are records of the hash chain, and ``station journal
verify --deep`` compares every one with a replay from the first record.

What the bisection relies on, both true of what the station writes:

* round ids ascend in journal order: a shoe's number only grows, and so do its rounds'
  numbers within it (a checkpoint records both);
* record times ascend, as the table PC's clock does; a clock set back by more than the span
  between two checkpoints can make a ``--since`` question start after some of its records.

A checkpoint written under another state layout (older software), or one that cannot be read
back, is passed over for an older one, and the first record is the start when none serves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import structlog

from station.core.checkpoints import CHECKPOINT, start_projection
from station.core.history import History
from station.core.options import CoreOptions
from station.core.state import STATE_FORMAT
from station.journal import JournalReader, JournalRecord
from station.journal.seams import chain

log = structlog.get_logger("station.core")

#: Landmarks tried, newest first, that fail to be read back before the first record is the
#: start (each failure is logged); a landmark of another layout is passed over without a try.
TRIES = 3


@dataclass(frozen=True)
class Landmark:
    """A checkpoint record: the file of the journal's history it is in, and its number."""

    file: Path
    seq: int


class Landmarks:
    """The checkpoints of the journal at ``journal`` and of the archives before it, oldest
    first. Open while in use (``with``): it keeps a reader of each file."""

    def __init__(self, journal: str | os.PathLike[str], options: CoreOptions | None) -> None:
        self.journal = Path(journal)
        self.options = options
        self._readers: dict[Path, JournalReader] = {}
        self.marks: list[Landmark] = []
        for item in chain(self.journal):
            if item.present:
                reader = self._readers[item.path] = JournalReader(item.path)
                self.marks.extend(Landmark(item.path, seq) for seq in reader.seqs_of_kind(CHECKPOINT))
        self._payloads: dict[int, dict[str, Any] | None] = {}

    def __enter__(self) -> Landmarks:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()

    def __len__(self) -> int:
        return len(self.marks)

    # --- what a landmark says ----------------------------------------------------------------

    def time(self, index: int) -> str:
        """The journal time of landmark ``index`` (the index's time column alone)."""
        mark = self.marks[index]
        return self._readers[mark.file].time_of(mark.seq) or ""

    def position(self, index: int) -> tuple[int, int]:
        """(shoe, rounds opened in it) as the table stood at landmark ``index``; (0, 0) for a
        payload that does not say."""
        payload = self._payload(index)
        try:
            assert payload is not None
            return int(payload["shoe"]), int(payload["state"]["machine"]["shoe"]["rounds"])
        except (AssertionError, KeyError, TypeError, ValueError):
            return 0, 0

    def index_of(self, seq: int) -> int:
        """The index of the landmark that is record ``seq`` (ValueError when none is)."""
        return next(i for i in range(len(self.marks) - 1, -1, -1) if self.marks[i].seq == seq)

    def beside(self, index: int, kind: str) -> JournalRecord | None:
        """The first record of ``kind`` after landmark ``index`` in its file: where a reader
        keeps its own state beside the projection's (the integrity monitor's checkpoint)."""
        mark = self.marks[index]
        return self._readers[mark.file].first_of_kind(kind, after=mark.seq)

    def correctable(self, index: int) -> set[str] | None:
        """The rounds a supervisor could still correct at landmark ``index``; None when its
        payload does not say (another layout, or damaged)."""
        payload = self._payload(index, keep=False)
        if payload is None or payload.get("format") != STATE_FORMAT:
            return None
        try:
            return {str(row[0]) for row in payload["state"]["machine"]["correctable"]}
        except (KeyError, TypeError, IndexError):
            return None

    def first_after(self, seq: int) -> int:
        """The index of the first landmark after record ``seq`` (``len(self)`` for none)."""
        return self._last_where(lambda i: self.marks[i].seq <= seq) + 1

    def inputs_of_kind(self, kind: str, after: int, **fields: Any) -> list[int]:
        """The records of ``kind`` after record ``after`` whose payload has ``fields``, oldest
        first, through each file's index of kinds (a kind of
        :data:`~station.journal.schema.INDEXED_KINDS`; a file of an older layout is read)."""
        found: list[int] = []
        for reader in self._readers.values():
            for record in reader.of_kind(kind):  # newest first
                if record.seq <= after:
                    break
                if all(record.payload.get(name) == value for name, value in fields.items()):
                    found.append(record.seq)
        return sorted(found)

    def inputs_naming(self, kind: str, round_ids: set[str], after: int, before: int | None) -> list[int]:
        """The records of input ``kind`` with ``after < seq < before`` (to the end when None)
        whose ``round_id`` is one of ``round_ids``, in every file of the history that holds
        part of that stretch."""
        found: list[int] = []
        for reader in self._readers.values():
            found.extend(record.seq for record in reader.of_kind_between(kind, after, before)
                         if record.payload.get("round_id") in round_ids)
        return sorted(found)

    # --- finding one ------------------------------------------------------------------------

    def before_time(self, time: str) -> int:
        """The newest landmark written before journal time ``time``; -1 for none (the start)."""
        return self._last_where(lambda i: self.time(i) < time)

    def before_seq(self, seq: int) -> int:
        """The newest landmark before record ``seq``; -1 for none."""
        return self._last_where(lambda i: self.marks[i].seq < seq)

    def before_round(self, shoe: int, number: int) -> int:
        """The newest landmark at which round ``shoe``-``number`` had not opened; -1 for none."""
        return self._last_where(lambda i: self.position(i) < (shoe, number))

    def _last_where(self, holds: Any) -> int:
        """The last index for which ``holds`` is true, ``holds`` being true up to some index and
        false after it (the order the journal keeps); -1 when it holds for none."""
        low, high = 0, len(self.marks)
        while low < high:
            middle = (low + high) // 2
            if holds(middle):
                low = middle + 1
            else:
                high = middle
        return low - 1

    # --- starting there -----------------------------------------------------------------------

    def history(self, index: int) -> History:
        """The history from landmark ``index`` or the newest usable one before it; from the
        first record when ``index`` is -1 or none serves."""
        tries = 0
        while index >= 0 and tries < TRIES:
            payload = self._payload(index, keep=False)
            if payload is not None and payload.get("format") == STATE_FORMAT:
                try:
                    projection = start_projection(self.options, payload)
                except Exception as exc:  # whatever a damaged state raises: an older one, or the start
                    tries += 1
                    log.warning("checkpoint_unusable", seq=self.marks[index].seq,
                                error=f"{type(exc).__name__}: {exc}")
                else:
                    return History(self.journal, self.options, start=projection, checkpoint_seq=self.marks[index].seq)
            index -= 1
        return History(self.journal, self.options)

    def _payload(self, index: int, *, keep: bool = True) -> dict[str, Any] | None:
        """Landmark ``index``'s payload; kept for the bisection (about log2(n) of them), not
        while walking back over landmarks of another layout (there may be thousands)."""
        if index in self._payloads:
            return self._payloads[index]
        mark = self.marks[index]
        record = self._readers[mark.file].get(mark.seq)
        payload = record.payload if record is not None else None
        if keep:
            self._payloads[index] = payload
        return payload
