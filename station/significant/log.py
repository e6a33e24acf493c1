"""The significant-event log of a journal, as ``station events`` reads it.

Each record goes through the one reader of history (:class:`~station.core.history.History`:
its input, and the outputs the table's rules gave for it), and
:class:`~station.significant.derive.SignificantDeriver` says what each gives. The journal is
read read-only, under the options it records. A question from a time on (``--since``) starts
at the newest checkpoint before that time (:class:`~station.core.landmarks.Landmarks`), where
the deriver learns which devices were down, and reads only the records after it; the whole log
(``--since all``) reads every record, its archives first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from station.core import outputs as out
from station.core.checkpoints import start_projection
from station.core.history import History
from station.core.landmarks import Landmarks
from station.core.options import CoreOptions
from station.events import Event
from station.journal import JournalRecord
from station.significant.derive import SignificantDeriver, SignificantEvent


def projected(records: Iterable[JournalRecord], options: CoreOptions | None
              ) -> Iterator[tuple[JournalRecord, Event | None, tuple[out.Output, ...]]]:
    """Each record with the input it holds (None for the station's own records) and the
    outputs the table's rules gave for it."""
    projection = start_projection(options)
    for record in records:
        step = projection.take(record)
        yield record, step.event, step.outputs


def significant_events(history: History) -> Iterator[SignificantEvent]:
    """The significant events of the records ``history`` has not taken yet, oldest first."""
    deriver = SignificantDeriver.resumed(history.table)
    for step in history.steps():
        yield from deriver.take(step.record, step.event, step.outputs)


def read_log(path: str | os.PathLike[str], options: CoreOptions | None, *, since: str = "",
             codes: frozenset[str] = frozenset(), progress: Callable[[int], None] | None = None
             ) -> list[SignificantEvent]:
    """The journal's significant events at or after ``since`` (a UTC journal time; empty: the
    whole log, from the first record), of ``codes`` (empty: all), oldest first."""
    if since:
        with Landmarks(path, options) as marks:
            history = marks.history(marks.before_time(since))
    else:
        history = History(path, options, progress=progress)
    return [e for e in significant_events(history)
            if (not since or e.time >= since) and (not codes or e.code in codes)]


def as_rows(events: Iterable[SignificantEvent], zone: Any) -> list[dict[str, Any]]:
    """The events as ``station events --json`` prints them: with the time in the table's zone."""
    from station.localtime import local_time

    return [{**e.to_json(), "local_time": local_time(e.time, zone)} for e in events]
