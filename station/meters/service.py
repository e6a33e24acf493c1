"""The meters in a running station: the projection's records folded off the core loop's
thread, and a ``MetersCheckpoint`` journaled after each checkpoint of the projection.

The core loop's projection hands this service every record it takes live, as it took it (the
record, its input, its outputs: :class:`~station.core.projection.ProjectedRecord`), on the
loop's thread: the service only queues it (:meth:`~station.integrity.worker.QueueWorker.put`).
Its own thread folds them (:mod:`station.meters.fold`) and, when a record is a checkpoint of
the projection, journals the fold's state as of that record through the core loop
(:meth:`~station.core.tap.LoopTap.note`), as the integrity monitor journals its own.

**After a restart** the fold comes from the journal: before it folds any live record, the
thread restores the fold and a projection from the newest usable meters checkpoint
(:func:`~station.meters.checkpoint.resume`) and reads the journal through that projection up to
the record the core loop had replayed when the station started (``head_seq``); a journal with
no meters checkpoint is read from its first record, once. The next checkpoint it writes names
the one it resumed from, so the chain of checkpoints stays whole
(:mod:`station.meters.checkpoint`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from station.config.table import TableSection
from station.core import outputs as out
from station.core.history import History
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord
from station.core.tap import LoopTap
from station.integrity.worker import QueueWorker
from station.meters.checkpoint import METERS_CHECKPOINT, checkpoint_payload, resume
from station.meters.fold import MetersFold

log = structlog.get_logger("station.meters")

Note = Callable[[str, dict[str, Any]], None]


class MetersService(QueueWorker[ProjectedRecord]):
    """The meters' thread: catch up from the journal, then fold the live records."""

    THREAD_NAME = "meters"
    FAILED_EVENT = "meters_failed"  # a defect in folding one record must not end the meters

    def __init__(self, options: CoreOptions | None, timezone: str, day_start: str, journal: Path | None = None,
                 head_seq: int = 0, note: Note | None = None) -> None:
        """``note`` journals a record of the station's own (:meth:`LoopTap.note`): the meters'
        checkpoints; without it none are written."""
        super().__init__()
        self.options = options
        self.timezone, self.day_start = timezone, day_start
        self.fold = MetersFold(timezone, day_start)
        self.parent = 0  # the record of the last meters checkpoint that sealed parts (the next names it)
        self._pending = 0  # the projection's checkpoint of one that sealed parts, not yet back from the journal
        self.resumed_from = 0  # the meters checkpoint the catch-up started from (0: the first record)
        self.checkpoints = 0  # meters checkpoints handed to ``note``
        self._journal, self._head_seq, self._note = journal, head_seq, note

    def _before(self) -> None:
        try:
            self._catch_up()
        except Exception:  # the live part goes on from the state it has rather than not at all
            log.exception("meters_catch_up_failed")

    def _handle(self, item: ProjectedRecord) -> None:
        self.take(item)

    def _described(self, item: ProjectedRecord) -> dict[str, Any]:
        return {"seq": item.record.seq, "kind": item.record.kind}

    def take(self, step: ProjectedRecord) -> None:
        """Fold one record (the thread does this for each queued; a bench building a journal
        calls it directly, on the thread that takes the records)."""
        if step.record.seq <= self.fold.at:
            return  # read by the catch-up already
        record = step.record
        self.fold.take(record, step.event, step.outputs)
        if record.kind == METERS_CHECKPOINT and self._pending and record.payload.get("checkpoint") == self._pending:
            self.parent, self._pending = record.seq, 0  # ours, journaled: the next one names it
        for output in step.outputs:
            if isinstance(output, out.Checkpointed):
                self._checkpoint(output.seq)

    def _checkpoint(self, seq: int) -> None:
        """The projection was checkpointed at record ``seq`` and the fold has taken it: journal
        the fold's state as of the same record, naming the last meters checkpoint that sealed
        parts (one that sealed none is no link of the chain: the next one passes over it).
        While the last link written has not come back from the journal yet (the loop journals it
        after what it had queued), this one is left out: the next names the link before, so the
        chain stays whole."""
        if self._note is None or self._pending:
            return
        self.fold.seal()
        if self.fold.sealed:
            self._pending = seq
        self._note(METERS_CHECKPOINT, checkpoint_payload(self.fold, seq, self.parent))
        self.fold.sealed.clear()
        self.checkpoints += 1

    def _catch_up(self) -> None:
        if self._journal is None or self._head_seq <= 0 or not self._journal.exists():
            return
        resumed = resume(self._journal, self.options, self.timezone, self.day_start, at_most=self._head_seq)
        if resumed is not None:
            self.fold = resumed.fold
            self.parent = self.resumed_from = resumed.seq
            history = History(self._journal, self.options, start=resumed.projection, checkpoint_seq=resumed.seq)
        else:
            history = History(self._journal, self.options)
        counted, read = self.fold.at, 0
        for step in history.steps(until=self._head_seq):
            if step.record.seq > counted:
                self.fold.take(step.record, step.event, step.outputs)
                read += 1
        log.info("meters_caught_up", records=read, from_checkpoint=self.resumed_from or None)


def attach_meters(loop: LoopTap, options: CoreOptions, table: TableSection, journal: Path) -> MetersService:
    """The meters of ``station run``: hearing every record the core loop takes from now on
    (queued until :meth:`MetersService.start`, after READY: its catch-up is not the table's
    start), catching up to what the loop had replayed, journaling through the loop."""
    service = MetersService(options, table.timezone, table.gaming_day_start, journal, loop.journal.head()[0],
                            note=loop.note)
    loop.hear_records(service.put)  # on the loop's thread: only queued
    return service
