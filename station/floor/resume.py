"""Where a restarted floor outbox stands: at its cursor, from the newest checkpoint before it.

Deriving the feed means reading the journal through the projection; a publisher that starts
again must stand exactly where its cursor says (the messages it derives from there on are
numbered on from the cursor's counters). It does not read the journal from its first record:
the projection is restored from the newest checkpoint at or before the cursor
(:mod:`station.core.checkpoints`) and only the records after it are taken, without a message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterable
from typing import cast

from station.core.checkpoints import latest_checkpoint
from station.core.options import CoreOptions
from station.floor.derive import CONFIGURATION, FeedDeriver, FeedPosition
from station.journal import JournalError, JournalReader, JournalRecord
from station.journal.seams import chain_records


def resume_deriver(reader: JournalReader, options: CoreOptions | None, position: FeedPosition, *, table: str,
                   journal_id: str, currency: str | None = None, devices: Iterable[str] = ()) -> FeedDeriver:
    """A deriver standing at ``position`` (a stored cursor): the projection restored from the
    newest checkpoint at or before it, and the records after that checkpoint up to the cursor
    taken without a message. What it derives from there is what a deriver that took every
    record from the first would (``tests/floor/test_derive_and_cursor.py``)."""
    # A cursor lacking a kind (written before it existed) has its messages counted from the first
    # record, not from a checkpoint.
    resumed = None if position.recount else latest_checkpoint(reader, options, at_most=position.seq)
    deriver = FeedDeriver(options, table=table, journal_id=journal_id, currency=currency, devices=devices,
                          position=position, projection=resumed.projection if resumed is not None else None)
    if resumed is None and reader.seam() is not None:  # archived, and no usable checkpoint: the history
        for record in chain_records(reader.path, 0):
            if record.seq > position.seq:
                break
            deriver.skip(record)
    if resumed is not None:  # the configuration (currency, time zone) may be behind the checkpoint
        configured = reader.last_of_kind(CONFIGURATION, before=resumed.at + 1)
        if configured is not None:
            deriver.learn_currency(configured)
    for record in reader.records(deriver.seq):
        if record.seq > position.seq:
            break
        deriver.skip(record)
    if not deriver.last_time and position.seq:  # resumed right at the cursor: nothing read after it
        deriver.last_time = _time_of(reader, position.seq)
    if position.recount:  # the kinds counted again, the others as stored
        deriver.position = FeedPosition(position.seq, {**position.counters, **{
            kind: deriver.position.counters[kind] for kind in position.recount}})
    else:
        deriver.position = position.copy()
    return deriver


def _time_of(reader: JournalReader, seq: int) -> str:
    """The time of record ``seq`` of the journal's history: in the live file, or (its first
    records archived, the live file beginning with the checkpoint that stands after it) in an
    archive beside it; "" when it is nowhere to be read."""
    at = reader.get(seq)
    if at is None:  # the history's records are numbered without a gap: the next after seq - 1 is seq
        history = cast(Generator[JournalRecord, None, None], chain_records(reader.path, seq - 1))
        with contextlib.closing(history), contextlib.suppress(JournalError):
            at = next(history, None)
    return at.time if at is not None else ""
