"""Crash-test child: plays a deterministic input sequence through the core loop and a journal.

Run as ``python crash_child.py INPUTS.json JOURNAL OUT.json``. On start the loop replays the
journal (that is the recovery being tested); the child then feeds the inputs not yet journaled
in small groups and, when all are applied, writes the machine's snapshot to OUT.json.

With ``CORE_CRASH_AFTER_APPEND=N`` the child SIGKILLs itself right after its N-th journal
append returns and before the appended events are applied: the narrowest window of "journal
first, then apply". The parent test also kills it at random moments from outside.

The input sequence comes from :func:`station.core.sessions.generate`; it is written to a file
once, and both the crashing and the uninterrupted runs read the same file.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from station.core.loop import CoreLoop
from station.core.sessions import generate
from station.event_codec import event_from_dict, event_to_dict
from station.events import Event
from station.journal import Journal

__all__ = ["generate", "main", "play_the_rest", "write_inputs"]


def write_inputs(path: Path, events: list[Event]) -> None:
    path.write_text(json.dumps([event_to_dict(e) for e in events]))


class _CrashingJournal(Journal):
    """A real journal that kills its process right after the N-th append (test only)."""

    crash_after = 0
    appends = 0

    def append_many(self, items: Any) -> Any:
        records = super().append_many(items)
        type(self).appends += 1
        if type(self).appends == type(self).crash_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return records


def main(argv: list[str]) -> int:
    inputs_path, journal_path, out_path = (Path(a) for a in argv[1:4])
    events = [event_from_dict(d) for d in json.loads(inputs_path.read_text())]
    _CrashingJournal.crash_after = int(os.environ.get("CORE_CRASH_AFTER_APPEND", "0"))
    rng = random.Random(os.environ.get("CORE_CRASH_BATCH_SEED", "1"))
    play_the_rest(CoreLoop(_CrashingJournal(journal_path)), events, rng, 6, out_path)
    return 0


def play_the_rest(loop: CoreLoop, events: list[Event], rng: random.Random, most: int, out_path: Path) -> None:
    """Feed the inputs the journal does not hold yet (every input record is one of ``events``,
    in order) in groups of 1 to ``most``, then write the machine's snapshot to ``out_path``
    (whole or not at all: the parent may kill the child at any moment)."""
    position = loop.machine.events_applied
    while position < len(events):
        size = rng.randint(1, most)
        for event in events[position : position + size]:
            loop.post(event)
        position += loop.run_pending()
    snapshot = loop.snapshot()
    loop.close()
    tmp = out_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(snapshot, sort_keys=True))
    os.replace(tmp, out_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
