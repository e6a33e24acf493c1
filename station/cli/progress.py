"""How far a command that reads a whole journal has come, on standard error.

A person who asks for every round or the whole event log of a year-old table waits minutes;
they are told where the reading stands every few seconds (``recall: every round: record
2,400,000 of 9,100,000 (26 %)``), and nothing when it is over within the first few seconds.
Standard output stays the answer alone.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO

#: Seconds between two progress lines (the first after as long).
EVERY_SECONDS = 3.0
#: Records between two looks at the clock (a look costs more than taking a record).
LOOK_EVERY = 2048


class Progress:
    """Told each record's number as it is read (``progress(seq)``), it writes a line when
    :data:`EVERY_SECONDS` have passed since the last, and a closing line if it wrote any."""

    def __init__(self, what: str, last_seq: int, *, out: TextIO | None = None,
                 every: float | None = None) -> None:
        self.what = what
        self.last_seq = max(1, last_seq)
        self.out = out if out is not None else sys.stderr
        self.every = EVERY_SECONDS if every is None else every
        self.started = time.monotonic()
        self._next = self.started + self.every
        self._calls = 0
        self.lines = 0

    @classmethod
    def of_journal(cls, what: str, journal: Path) -> Progress:
        """Progress through the journal at ``journal`` up to its newest record now."""
        from station.journal import JournalReader

        with JournalReader(journal) as reader:
            last = reader.last()
        return cls(what, last.seq if last is not None else 1)

    def __call__(self, seq: int) -> None:
        self._calls += 1
        if self._calls % LOOK_EVERY:
            return
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.every
            self.lines += 1
            print(f"{self.what}: record {seq:,} of {self.last_seq:,} ({100 * seq // self.last_seq} %)",
                  file=self.out, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.lines and kind is None:
            print(f"{self.what}: read in {time.monotonic() - self.started:.0f} s", file=self.out, flush=True)
