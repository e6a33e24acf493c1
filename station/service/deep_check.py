"""``station journal verify --deep``: what the station derived, against a replay from the start.

The hash chain (:mod:`station.journal.verify`) proves that the records are as they were
written. Checkpoints are records too, and a consistent forgery of one (its state changed, the
chain re-hashed after it) passes the chain; so does a checkpoint that other software wrote
and this software would write otherwise. This replays the journal from its first record under
the configuration it records (as recall does) and compares every checkpoint of the projection
with the replay's state at that point (:func:`station.core.checkpoints.check_checkpoints`), and
every checkpoint of the integrity monitor with a monitor fed from the same replay
(:class:`station.integrity.checkpoints.MonitorCheck`). A checkpoint that differs is reported
like any other tamper: the record, and the first part of the state that differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from station.config.options import journal_options
from station.core.checkpoints import check_checkpoints
from station.integrity.checkpoints import MonitorCheck
from station.integrity.monitor_state import settings_from
from station.integrity.service import INTEGRITY_CHECKPOINT
from station.journal import JournalReader, JournalRecord
from station.journal.seams import chain_records


@dataclass(frozen=True)
class DeepCheck:
    ok: bool
    words: str  # one clause for the verdict line
    first_bad_seq: int | None = None
    checkpoints: int = 0


def deep_check(path: Path, progress: Callable[[int], None] | None = None) -> DeepCheck:
    """Replay the journal at ``path`` and compare its checkpoints (read-only); ``progress`` is
    told each record's number as it is replayed."""
    options = journal_options(path, path)
    if options is None:
        return DeepCheck(True, "no configuration recorded: checkpoints not compared")
    with JournalReader(path) as reader:
        first = reader.first_of_kind(INTEGRITY_CHECKPOINT)
        settings = settings_from(first.payload["settings"]) if first is not None and "settings" in first.payload \
            else None
        monitor = MonitorCheck(options, settings)
        records = chain_records(path)
        if progress is not None:
            records = _told(records, progress)
        check = check_checkpoints(records, options, observe=monitor)
    bad = sorted((seq, words) for seq, words in ((check.first_bad_seq, check.words()),
                                                  (monitor.first_bad_seq, monitor.problem)) if seq is not None)
    if bad:
        return DeepCheck(False, bad[0][1], bad[0][0], check.checked)
    return DeepCheck(True, f"{check.words()}; {monitor.words()}", None, check.checked)


def _told(records: Iterator[JournalRecord], progress: Callable[[int], None]) -> Iterator[JournalRecord]:
    for record in records:
        progress(record.seq)
        yield record
