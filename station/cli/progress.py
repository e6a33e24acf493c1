"""How far a long command has come, on standard error.

A person who asks for every round or the whole event log of a year-old table, a demo of 150
shoes or the archive of a year waits minutes; they are told where it stands, and nothing when
it is over within the first few seconds. Standard output stays the answer alone.

On a terminal it is tqdm's bar (how far, how fast, how long still), drawn in place; through a
pipe or into a log, where a redrawn bar is noise, a line every few seconds
(``recall: every round: record 2,400,000 of 9,100,000 (26 %)``) and one at the end.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

#: Seconds between two progress lines (the first after as long).
EVERY_SECONDS = 3.0
#: Records between two looks at the clock (a look costs more than taking a record).
LOOK_EVERY = 2048


class Progress:
    """Told how far the work has come (``progress(done)``: a record's number, a shoe dealt), it
    shows it once :data:`EVERY_SECONDS` have passed, and says at the end how long it took if it
    showed anything."""

    def __init__(self, what: str, last_seq: int, *, out: TextIO | None = None, every: float | None = None,
                 unit: str = "record", look_every: int | None = None) -> None:
        self.what = what
        self.last_seq = max(1, last_seq)
        self.out = out if out is not None else sys.stderr
        self.every = EVERY_SECONDS if every is None else every
        self.unit = unit
        self.look_every = LOOK_EVERY if look_every is None else max(1, look_every)
        self.started = time.monotonic()
        self._next = self.started + self.every
        self._calls = 0
        self.lines = 0
        self._bar: Any = None
        if _is_terminal(self.out):
            from tqdm import tqdm

            # The width is read once: tqdm 4.70 with dynamic_ncols never draws a bar that has a
            # delay on a terminal that gives no height (a `script`, a serial console).
            self._bar = tqdm(total=self.last_seq, desc=what, unit=unit, file=self.out, delay=self.every,
                             mininterval=0.5, unit_scale=self.last_seq >= 10_000)

    @classmethod
    def of_journal(cls, what: str, journal: Path) -> Progress:
        """Progress through the journal at ``journal`` up to its newest record now."""
        from station.journal import JournalReader

        with JournalReader(journal) as reader:
            last = reader.last()
        return cls(what, last.seq if last is not None else 1)

    def __call__(self, done: int) -> None:
        self._calls += 1
        if self._calls % self.look_every:
            return
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.every
            self.lines += 1
            print(f"{self.what}: {self.unit} {done:,} of {self.last_seq:,} ({100 * done // self.last_seq} %)",
                  file=self.out, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            if kind is None:
                self._bar.update(self.last_seq - self._bar.n)
            self._bar.close()  # nothing was drawn if it was over within the delay
            return
        if self.lines and kind is None:
            print(f"{self.what}: done in {time.monotonic() - self.started:.0f} s", file=self.out, flush=True)


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
