"""The integrity monitor in a running station: off the core loop's thread, fed by its outputs,
raising its findings as journaled inputs.

The core loop hands this service the outputs the monitor reads (on the loop's thread: it only
queues them, the loop never waits). A thread of its own feeds them to the
:class:`~station.integrity.monitor.IntegrityMonitor` and posts each new finding as an
:class:`~station.events.IntegrityAlert` input, which the core journals and applies like any
other (an alarm with ``stop`` stops the round there). It also logs every alert the core
raises (its own and the monitor's) at warning.

**After a restart** the monitor's state comes from the journal. Before it reads any live
output, the thread replays the journal up to the record the core loop had replayed when the
station started (``head_seq``) into a shadow machine of its own that publishes its outputs, and
feeds those to the monitor: the same history in the same order, so the monitor stands where it
stood. The alerts already in the journal are in the shadow's register; a finding of that
history whose key is there is not raised again. One of the shoe in play whose key is not there
(the station stopped between finding it and journaling it) is raised now. The cards of the round
in play read before the restart are carried into its account.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from station.core import outputs as out
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.replay import Decoder, apply_safely
from station.events import Event, EventError, IntegrityAlert, event_types
from station.integrity.edges import warm_up
from station.integrity.monitor import IntegrityFinding, IntegrityMonitor, IntegritySettings
from station.integrity.worker import OutputWorker
from station.journal import JournalReader

log = structlog.get_logger("station.integrity")


class IntegrityService(OutputWorker):
    """The monitor's thread: catch up from the journal, then follow the live outputs."""

    THREAD_NAME = "integrity-monitor"
    FAILED_EVENT = "integrity_monitor_failed"  # a defect in an analysis must not end the monitor
    KINDS: tuple[type[out.Output], ...] = (*IntegrityMonitor.KINDS, out.AlertRaised, out.AlertCleared)

    def __init__(self, post: Callable[[Event], None], options: CoreOptions, settings: IntegritySettings,
                 journal: str | os.PathLike[str] | None = None, head_seq: int = 0) -> None:
        super().__init__()
        self._post = post
        self.options = options
        self.monitor = IntegrityMonitor(options, settings)
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
            warm_up()  # build the edge tables now, not when the first shoe starts
            self._catch_up()
        except Exception:  # the live part goes on without the history rather than not at all
            log.exception("integrity_catch_up_failed")
        self.caught_up.set()

    def _handle(self, output: out.Output) -> None:
        self._feed(output)

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
        shadow = TableMachine(self.options)
        shadow.go_live()
        known = event_types()
        decode = Decoder()
        history: list[IntegrityFinding] = []
        with JournalReader(self._journal) as reader:
            for record in reader.records():
                if record.seq > self._head_seq:
                    break
                try:
                    event = decode(record.payload)
                except EventError:
                    if record.kind in known:
                        raise
                    continue
                apply_safely(shadow, event, record.seq)
                for output in shadow.take_outputs():
                    if isinstance(output, IntegrityMonitor.KINDS):
                        history.extend(self.monitor.feed(output))
        self._raised = {a.key for a in shadow.alerts}
        self.monitor.carry(shadow.shoe.drawn)
        current = shadow.shoe.number
        missed = [f for f in history if f.key not in self._raised and f.shoe == current and not shadow.shoe.ended]
        self._raised.update(f.key for f in history)
        for finding in missed:
            self._raised.discard(finding.key)
            self._raise(finding)
        self.summary = self.monitor.summary()
        log.info("integrity_caught_up", records=self._head_seq, alerts=len(shadow.alerts), raised_now=len(missed))
