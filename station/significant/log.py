"""The significant-event log of a journal, as ``station events`` reads it.

Each record goes through the one projection of the journal (:mod:`station.core.projection`:
its input, and the outputs the table's rules gave for it), and
:class:`~station.significant.derive.SignificantDeriver` says what each gives. The journal is
read read-only, its archives first (:func:`~station.journal.seams.chain_records`), under the
options it records.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from station.core import outputs as out
from station.core.checkpoints import start_projection
from station.core.history import History
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


def significant_events(path: str | os.PathLike[str], options: CoreOptions | None) -> Iterator[SignificantEvent]:
    """Every significant event of the journal at ``path``, from its first record."""
    deriver = SignificantDeriver()
    for step in History(path, options).steps():
        yield from deriver.take(step.record, step.event, step.outputs)


def read_log(path: str | os.PathLike[str], options: CoreOptions | None, *, since: str = "",
             codes: frozenset[str] = frozenset()) -> list[SignificantEvent]:
    """The journal's significant events at or after ``since`` (a UTC journal time; empty: all),
    of ``codes`` (empty: all), oldest first."""
    return [e for e in significant_events(path, options)
            if (not since or e.time >= since) and (not codes or e.code in codes)]


def as_rows(events: Iterable[SignificantEvent], zone: Any) -> list[dict[str, Any]]:
    """The events as ``station events --json`` prints them: with the time in the table's zone."""
    from station.localtime import local_time

    return [{**e.to_json(), "local_time": local_time(e.time, zone)} for e in events]
