"""The integrity monitor in a running station: off the core loop's thread, fed by its outputs,
raising its findings as journaled inputs.

The core loop hands this service the outputs the monitor reads (on the loop's thread: it only
queues them, the loop never waits). A thread of its own feeds them to the
:class:`~station.integrity.monitor.IntegrityMonitor` and posts each new finding as an
:class:`~station.events.IntegrityAlert` input, which the core journals and applies like any
other (an alarm with ``stop`` stops the round there). It also logs every alert the core
raises (its own and the monitor's) at warning.

**Checkpoints.** After each checkpoint of the projection (the core loop writes one at every
shoe end and every few hundred records; the monitor hears its
:class:`~station.core.outputs.Checkpointed` in order with the outputs before it) the service
journals the monitor's state as of the same record: an ``IntegrityCheckpoint``
(:mod:`station.integrity.monitor_state`), with the settings it was taken under, through the core
loop (:meth:`~station.core.loop.CoreLoop.note`), after any alert it posted before.

**After a restart** the monitor's state comes from the journal. Before it reads any live
output, the thread restores the monitor from the newest integrity checkpoint and the projection
from the checkpoint it was taken at, reads the journal through the one reader of history
(:class:`~station.core.history.History`) from there up to the record the core loop had replayed when
the station started (``head_seq``), and feeds the outputs to the monitor: the same history in
the same order, so the monitor stands where it stood, having read only the last stretch of the
journal (a journal without integrity checkpoints is read from its first record, once). The
alerts already in the journal are in the table's register (:meth:`History.alerts`); a finding of that history
whose key is there is not raised again. One of the shoe in play whose key is not there (the
station stopped between finding it and journaling it) is raised now.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from station.core import outputs as out
from station.core.checkpoints import CHECKPOINT, start_projection
from station.core.history import History
from station.core.options import CoreOptions
from station.core.projection import Projection
from station.events import Event, IntegrityAlert
from station.integrity.edges import warm_up
from station.integrity.monitor import IntegrityFinding, IntegrityMonitor, IntegritySettings
from station.integrity.monitor_state import MONITOR_FORMAT, monitor_state, restore_monitor, settings_json
from station.integrity.worker import OutputWorker
from station.journal import JournalReader

log = structlog.get_logger("station.integrity")

#: The kind of the journal record holding the monitor's state (derived data, like a checkpoint).
INTEGRITY_CHECKPOINT = "IntegrityCheckpoint"
#: Integrity checkpoints tried, newest first, before the catch-up reads from the first record.
TRIES = 3
Note = Callable[[str, dict[str, Any]], None]


class IntegrityService(OutputWorker):
    """The monitor's thread: catch up from the journal, then follow the live outputs."""

    THREAD_NAME = "integrity-monitor"
    FAILED_EVENT = "integrity_monitor_failed"  # a defect in an analysis must not end the monitor
    KINDS: tuple[type[out.Output], ...] = (*IntegrityMonitor.KINDS, out.AlertRaised, out.AlertCleared,
                                           out.Checkpointed)

    def __init__(self, post: Callable[[Event], None], options: CoreOptions, settings: IntegritySettings,
                 journal: str | os.PathLike[str] | None = None, head_seq: int = 0, note: Note | None = None) -> None:
        """``note`` journals a record of the station's own (:meth:`CoreLoop.note`): the
        monitor's checkpoints; without it none are written."""
        super().__init__()
        self._post = post
        self._note = note
        self.options = options
        self.settings = settings
        self.monitor = IntegrityMonitor(options, settings)
        self.resumed_from = 0  # the integrity checkpoint the catch-up started from (0: the first record)
        self._journal = Path(journal) if journal is not None else None
        self._head_seq = head_seq
        self._raised: set[str] = set()  # keys of alerts in the journal or posted
        self.caught_up = threading.Event()
        self.processed = 0  # live outputs fed to the monitor
        self.posted = 0
        self.summary: dict[str, Any] = {}  # what ctl status shows; replaced whole

    # --- the core loop's side ----------------------------------------------------------------

    def on_output(self, output: out.Output) -> None:
        """Called on the core loop's thread: log an alert, queue the rest; never block."""
        if isinstance(output, out.AlertRaised):
            log.warning("integrity_alert", ident=output.ident, code=output.code, severity=output.severity,
                        detail=output.detail, shoe=output.shoe, round=output.round_id, stopped=output.stop,
                        source=output.source)
        elif isinstance(output, out.AlertCleared):
            log.info("integrity_alert_acknowledged", ident=output.ident, code=output.code, role=output.role,
                     who=output.who, note=output.note)
        super().on_output(output)

    # --- lifecycle ---------------------------------------------------------------------------

    # --- the monitor's thread ----------------------------------------------------------------

    def _before(self) -> None:
        try:
            warm_up(self.monitor.wagers)  # build the edge tables now, not when the first shoe starts
            self._catch_up()
        except Exception:  # the live part goes on without the history rather than not at all
            log.exception("integrity_catch_up_failed")
        self.caught_up.set()

    def _handle(self, output: out.Output) -> None:
        if isinstance(output, out.Checkpointed):
            self._checkpoint(output)
        else:
            self._feed(output)

    def _checkpoint(self, output: out.Checkpointed) -> None:
        """The projection was checkpointed after record ``at``, and every output before it has
        been fed: journal the monitor's state as of the same record."""
        if self._note is not None:
            self._note(INTEGRITY_CHECKPOINT, {"format": MONITOR_FORMAT, "at": output.at, "checkpoint": output.seq,
                                              "settings": settings_json(self.settings),
                                              "monitor": monitor_state(self.monitor)})

    def _feed(self, output: out.Output) -> None:
        if isinstance(output, out.AlertRaised):
            return
        if isinstance(output, out.AlertCleared):
            return
        self.processed += 1
        for finding in self.monitor.feed(output):
            self._raise(finding)
        self.summary = self.monitor.summary()

    def _raise(self, finding: IntegrityFinding) -> None:
        if finding.key in self._raised:
            return
        self._raised.add(finding.key)
        self.posted += 1
        self._post(IntegrityAlert(finding.code, finding.severity, finding.detail, finding.key, finding.shoe,
                                  finding.round_id, finding.stop, finding.data))

    def _catch_up(self) -> None:
        if self._journal is None or self._head_seq <= 0 or not self._journal.exists():
            return
        found: list[IntegrityFinding] = []
        with JournalReader(self._journal) as reader:
            history = History(self._journal, self.options, start=self._resume(reader))
        for step in history.steps(until=self._head_seq):
            for output in step.outputs:
                if isinstance(output, IntegrityMonitor.KINDS):
                    found.extend(self.monitor.feed(output))
        alerts, table = history.alerts(), history.table
        self._raised = {a.key for a in alerts}
        missed = [f for f in found if f.key not in self._raised and f.shoe == table.shoe and not table.shoe_ended]
        self._raised.update(f.key for f in found)
        for finding in missed:
            self._raised.discard(finding.key)
            self._raise(finding)
        self.summary = self.monitor.summary()
        log.info("integrity_caught_up", records=self._head_seq, from_checkpoint=self.resumed_from or None,
                 alerts=len(alerts), raised_now=len(missed))

    def _resume(self, reader: JournalReader) -> Projection:
        """The monitor from the newest usable integrity checkpoint at or before ``head_seq``, and
        the projection from the checkpoint it was taken at; the start of the journal without."""
        tries = 0
        for record in reader.of_kind(INTEGRITY_CHECKPOINT, before=self._head_seq + 1):
            payload = record.payload
            if payload.get("format") != MONITOR_FORMAT:
                continue
            try:
                core = reader.get(int(payload["checkpoint"]))
                if core is None or core.kind != CHECKPOINT:
                    raise ValueError(f"record {payload['checkpoint']} is not a checkpoint")
                projection = start_projection(self.options, core.payload)
                if projection.seq != payload["at"]:
                    raise ValueError(f"it stands after record {payload['at']}, its checkpoint after {projection.seq}")
                monitor = restore_monitor(self.options, self.settings, payload["monitor"])
            except Exception as exc:  # whatever a damaged state raises: an older one, or the start
                log.warning("integrity_checkpoint_unusable", seq=record.seq, error=f"{type(exc).__name__}: {exc}")
                tries += 1
                if tries >= TRIES:
                    break
                continue
            self.monitor, self.resumed_from = monitor, record.seq
            return projection
        if reader.seam() is not None:
            # The history before the seam is archived and no monitor checkpoint is usable: the
            # monitor starts afresh from the live journal's first checkpoint (docs/integrity.md).
            first = reader.first_of_kind(CHECKPOINT)
            if first is not None:
                log.warning("integrity_history_archived", from_record=first.seq)
                return start_projection(self.options, first.payload)
        return start_projection(self.options)
