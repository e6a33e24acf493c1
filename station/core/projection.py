"""The projection of the journal: records in, the table's state and its typed outputs out.

The journal holds inputs, and a few records of the station's own (its configuration and
software, the note of an input it could not journal, checkpoints of this projection). A round
settled, a refusal, the last round of a shoe, the shoe ended: all of that is what applying the
inputs under the table's rules gives, and :class:`Projection` is the one place that applies
them. The core loop (live, and after a restart), the floor feed's derivation, the integrity
monitor's catch-up, recall and the integrity report all read the journal through it, so each
hears the same outputs (:mod:`station.core.outputs`) for the same record, whether the record
was written a moment ago or a year ago. What a reader does with history is its own choice: the
core loop replays silently and then announces where the table stands; the floor feed publishes
what its cursor has not yet seen; recall keeps every round.

The projection adds to the machine what only the journal knows: the journal time each round
opened at, and the inputs refused while it was open (each with its record's seq and time).
A round's :class:`~station.core.outputs.RoundClosed` carries both in its record, and
:attr:`Projection.opened` and :attr:`Projection.refused` say them for the round in play. The
machine itself never sees a time, so the same inputs give the same state in any journal.

A record whose kind is not an input event is not applied: the note of an unjournalable input
gives its :class:`~station.core.outputs.Refused` (as it did live), a checkpoint its
:class:`~station.core.outputs.Checkpointed`, the others nothing.
A record of a known event kind that does not decode is an error (:class:`CoreReplayError`):
going on would rebuild a state the table was never in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from station.core import outputs as out
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.event_codec import event_from_dict, event_types
from station.events import Event, EventError
from station.journal import JournalRecord

log = structlog.get_logger("station.core")

#: The kind of the journal record noting an input that could not be journaled itself.
UNJOURNALABLE_INPUT = "UnjournalableInput"
#: The kind of a checkpoint of the projection (station/core/checkpoints.py).
CHECKPOINT = "Checkpoint"


class CoreReplayError(RuntimeError):
    """A journal record of a known event kind that cannot be decoded: replay stops here rather
    than rebuild a state that differs from the one the table was in."""


def _frozen(value: Any) -> Any:
    """A hashable image of a JSON value (dicts become sorted item tuples)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[]", *(_frozen(v) for v in value))
    return value


def _payload_key(payload: dict[str, Any]) -> Any:
    """:func:`_frozen` with a fast path for the usual flat payload (nested ``actor`` dicts)."""
    parts = []
    for name, value in payload.items():
        if type(value) is dict:
            value = tuple(value.items()) if all(type(v) is str for v in value.values()) else _frozen(value)
        elif type(value) is list:
            value = _frozen(value)
        parts.append((name, value))
    return tuple(parts)


class Decoder:
    """Decodes journal payloads into events, once per distinct payload.

    Events are immutable, so a journal's many identical records (the same card from the same
    shoe, the same button) can share one instance; decoding is otherwise a large part of the
    cost of a replay.
    """

    def __init__(self) -> None:
        self._cache: dict[Any, Event] = {}

    def __call__(self, payload: dict[str, Any]) -> Event:
        key = _payload_key(payload)
        event = self._cache.get(key)
        if event is None:
            event = event_from_dict(payload)
            if len(self._cache) < 65536:
                self._cache[key] = event
        return event


def apply_safely(machine: TableMachine, event: Event, seq: int) -> bool:
    """Apply one event. A failure latches the table into an ``internal_error`` irregularity
    that a supervisor must clear (live and in replay alike, so replay reaches the same state)
    and is logged with its traceback. Returns False when the event failed."""
    try:
        machine.apply(event)
    except Exception as exc:
        log.exception("core.apply_failed", seq=seq, input=event.kind)
        try:
            machine.latch_internal_error(event.kind, exc)
        except Exception:  # the latch itself failed: the log keeps both tracebacks
            log.exception("core.latch_failed", seq=seq, input=event.kind)
        return False
    return True


@dataclass(frozen=True)
class ProjectedRecord:
    """One journal record as the projection took it: the input it holds (``None`` for the
    station's own records) and the outputs it gave, in order."""

    record: JournalRecord
    event: Event | None
    outputs: tuple[out.Output, ...]


class Projection:
    """The table's state as the journal's records make it, one record at a time.

    :meth:`take` a record (in sequence order, each once) and get its :class:`ProjectedRecord`; the state
    is :attr:`machine`. ``applied``, ``skipped`` and ``failures`` count the inputs applied, the
    records that were not inputs, and the inputs whose application raised (each latched an
    ``internal_error`` irregularity).
    """

    def __init__(self, options: CoreOptions | None = None, machine: TableMachine | None = None) -> None:
        self.machine = machine if machine is not None else TableMachine(options)
        self.seq = 0  # the last record taken
        self.applied = 0
        self.skipped = 0
        self.failures = 0
        #: The round in play, and the journal time of the record that opened it ("" for none).
        self.opened: tuple[str, str] = ("", "")
        #: The inputs refused while the round in play has been open, as recall shows them.
        self.refused: list[dict[str, Any]] = []
        self._decode = Decoder()
        self._known = event_types()

    def opened_at(self, round_id: str) -> str | None:
        """The journal time ``round_id`` opened at, while it is the round in play."""
        return self.opened[1] if round_id and self.opened[0] == round_id else None

    def decode(self, record: JournalRecord) -> Event | None:
        """The input a record holds, or ``None`` for a record of another kind."""
        try:
            return self._decode(record.payload)
        except EventError as exc:
            if record.kind not in self._known:
                return None
            raise CoreReplayError(f"journal record {record.seq} ({record.kind}): {exc}") from None

    def take(self, record: JournalRecord) -> ProjectedRecord:
        """Apply the next record; its outputs, whatever the record is."""
        return self.take_event(self.decode(record), record)

    def take_event(self, event: Event | None, record: JournalRecord) -> ProjectedRecord:
        """:meth:`take` for a record whose input is already in hand (the core loop journals
        the very event it then applies: decoding it again would only cost)."""
        if event is None:
            self.skipped += 1
            outputs: tuple[out.Output, ...] = self._station_record(record)
        else:
            before = self.machine.round
            if not apply_safely(self.machine, event, record.seq):
                self.failures += 1
            self.applied += 1
            outputs = self._annotated(self.machine.take_outputs(), record, before)
        self.seq = record.seq
        return ProjectedRecord(record, event, outputs)

    def replay(self, records: Iterable[JournalRecord]) -> int:
        """Take every record, keeping none of the outputs (a restart's catch-up); returns how
        many inputs were applied."""
        before = self.applied
        for record in records:
            self.take(record)
        return self.applied - before

    def _annotated(self, outputs: list[out.Output], record: JournalRecord, before: Any) -> tuple[out.Output, ...]:
        """The outputs of one input, each closed round's record with the time it opened and
        the inputs refused while it was open; then note the round in play now.

        A refusal belongs to the round open when it arrived or, between rounds, to the round
        this input opened (none otherwise)."""
        current = self.machine.round
        notes = [{"seq": record.seq, "time": record.time, "input": o.what, "reason": o.reason, "role": o.role,
                  "who": o.who} for o in outputs if type(o) is out.Refused]
        target = before.round_id if before is not None else (current.round_id if current is not None else "")
        if notes and target and target == self.opened[0]:
            self.refused.extend(notes)
            notes = []
        if any(type(o) is out.RoundClosed for o in outputs):
            outputs = [self._closed(o) if isinstance(o, out.RoundClosed) else o for o in outputs]
        if current is not None and current.round_id != self.opened[0]:
            self.opened = (current.round_id, record.time)
            self.refused = notes if target == current.round_id else []
        return tuple(outputs)

    def _closed(self, closed: out.RoundClosed) -> out.RoundClosed:
        ours = closed.round_id == self.opened[0]
        record = {**closed.record, "opened_at": self.opened[1] if ours else "",
                  "refused": list(self.refused) if ours else []}
        if ours:
            self.opened, self.refused = ("", ""), []
        return out.RoundClosed(closed.round_id, record)

    @staticmethod
    def _station_record(record: JournalRecord) -> tuple[out.Output, ...]:
        payload = record.payload
        if record.kind == UNJOURNALABLE_INPUT:
            return (out.Refused(str(payload.get("kind", "")), str(payload.get("reason", ""))),)
        if record.kind == CHECKPOINT and isinstance(payload.get("at"), int):
            return (out.Checkpointed(payload["at"], record.seq),)
        return ()
