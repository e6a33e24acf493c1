"""Journal replay: rebuild a machine's state from the journal's records.

Used on open by the core loop (crash recovery, restarts) and by ``station recall``. A record
whose kind is not an input event (another part of the station may journal its own records)
is skipped and counted; a record of a known event kind that does not decode is an error, since
going on would rebuild a state the table was never in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import structlog

from station.core.machine import TableMachine
from station.events import Event, EventError, event_from_dict, event_types
from station.journal import JournalRecord

log = structlog.get_logger("station.core")


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


def replay(
    machine: TableMachine,
    records: Iterable[JournalRecord],
    *,
    before_apply: Callable[[JournalRecord], None] | None = None,
    after_apply: Callable[[JournalRecord], None] | None = None,
) -> tuple[int, int, int]:
    """Apply every input event among ``records`` to ``machine`` (which must not be live).

    Returns (events applied, records skipped, events that failed).
    """
    known = event_types()
    decode = Decoder()
    applied = skipped = failed = 0
    for record in records:
        try:
            event = decode(record.payload)
        except EventError as exc:
            if record.kind not in known:
                skipped += 1
                continue
            raise CoreReplayError(f"journal record {record.seq} ({record.kind}): {exc}") from None
        if before_apply is not None:
            before_apply(record)
        if not apply_safely(machine, event, record.seq):
            failed += 1
        if after_apply is not None:
            after_apply(record)
        applied += 1
    return applied, skipped, failed
