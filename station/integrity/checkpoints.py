"""``station journal verify --deep``: the integrity monitor's checkpoints against a replay.

The deep replay of the journal (:func:`station.core.checkpoints.check_checkpoints`) hands
every record it takes to :class:`MonitorCheck`, which feeds a monitor of its own and compares
each ``IntegrityCheckpoint`` with it: the state it has after the record the checkpoint names.

A station restarted with other ``[integrity]`` settings restores its monitor from the newest
checkpoint under the new settings and reads on from there. Each checkpoint says the settings
it was taken under; when they differ from the last one's, the check does the same: it restores
the last checkpoint it found sound under the new settings and feeds the outputs since
(:data:`SEGMENT_LIMIT` of them at most; beyond that a change of settings is reported as not
compared).
"""

from __future__ import annotations

import json
from typing import Any

from station.core import outputs as out
from station.core.checkpoints import first_difference
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord, Projection
from station.integrity.monitor import IntegrityMonitor, IntegritySettings
from station.integrity.monitor_state import MONITOR_FORMAT, monitor_state, restore_monitor, settings_from
from station.integrity.service import INTEGRITY_CHECKPOINT
from station.journal import canonical_json

#: Monitor outputs kept since the last sound integrity checkpoint (about one shoe's worth are
#: normally: a checkpoint follows every shoe end).
SEGMENT_LIMIT = 200_000


def _plain(value: Any) -> Any:
    return json.loads(canonical_json(value))


class MonitorCheck:
    """Feeds a monitor from a deep replay and compares the integrity checkpoints with it.

    ``first_settings``: those of the journal's first integrity checkpoint (the monitor's from
    the first record on)."""

    def __init__(self, options: CoreOptions, first_settings: IntegritySettings | None) -> None:
        self.options = options
        self.settings = first_settings or IntegritySettings()
        self.monitor = IntegrityMonitor(options, self.settings)
        self.checked = 0
        self.other_format = 0
        self.not_compared = 0
        self.first_bad_seq: int | None = None
        self.problem = ""
        self._at_checkpoint: dict[int, Any] = {}  # checkpoint record -> the monitor's state there
        self._base: dict[str, Any] | None = None  # the last sound integrity checkpoint's state
        self._segment: list[tuple[int, out.Output]] | None = []  # (record, output) since it

    @property
    def ok(self) -> bool:
        return self.first_bad_seq is None

    def words(self) -> str:
        if not self.ok:
            return self.problem
        extra = [f"{self.other_format} of another layout" if self.other_format else "",
                 f"{self.not_compared} after a change of settings" if self.not_compared else ""]
        skipped = "; ".join(e for e in extra if e)
        return (f"{self.checked} integrity checkpoint{'s match' if self.checked != 1 else ' matches'} the replay"
                + (f" ({skipped} not compared)" if skipped else ""))

    def __call__(self, step: ProjectedRecord, projection: Projection) -> None:
        record = step.record
        if record.kind == INTEGRITY_CHECKPOINT and self.ok:
            self._compare(record.seq, record.payload)
        for output in step.outputs:
            if isinstance(output, out.Checkpointed):
                self._at_checkpoint[output.seq] = _plain(monitor_state(self.monitor))
                for old in sorted(self._at_checkpoint)[:-8]:  # the monitor's checkpoint follows within a few
                    del self._at_checkpoint[old]
            elif isinstance(output, IntegrityMonitor.KINDS):
                self.monitor.feed(output)
                if self._segment is not None:
                    self._segment.append((record.seq, output))
                    if len(self._segment) > SEGMENT_LIMIT:
                        self._segment = None

    def _compare(self, seq: int, payload: dict[str, Any]) -> None:
        if payload.get("format") != MONITOR_FORMAT:
            self.other_format += 1
            return
        at, settings = payload.get("at"), settings_from(payload.get("settings", {}))
        expected = self._at_checkpoint.get(payload.get("checkpoint", -1))
        if settings != self.settings:
            expected = self._rebased(settings, at)
            if expected is None:
                self.not_compared += 1
                return
        if expected is None:
            self._bad(seq, f"record {seq}: integrity checkpoint names no checkpoint of the projection before it")
            return
        self.checked += 1
        difference = first_difference(payload.get("monitor"), expected, "monitor.")
        if difference:
            self._bad(seq, f"record {seq}: integrity checkpoint differs from the replay of the records before it "
                           f"({difference}): altered, or written by software that would now write it otherwise")
            return
        self._base = expected
        if self._segment is not None:
            self._segment = [(s, o) for s, o in self._segment if not isinstance(at, int) or s > at]

    def _rebased(self, settings: IntegritySettings, at: Any) -> Any:
        """As a station restarted under ``settings`` did: the last sound checkpoint restored
        under them, fed the outputs since; the check goes on from that monitor."""
        if self._segment is None or not isinstance(at, int):
            return None
        monitor = (restore_monitor(self.options, settings, self._base) if self._base is not None
                   else IntegrityMonitor(self.options, settings))
        state = None
        for record_seq, output in self._segment:
            if record_seq > at and state is None:
                state = _plain(monitor_state(monitor))
            monitor.feed(output)
        if state is None:
            state = _plain(monitor_state(monitor))
        self.monitor, self.settings = monitor, settings
        self._at_checkpoint.clear()
        return state

    def _bad(self, seq: int, problem: str) -> None:
        self.first_bad_seq, self.problem = seq, problem
