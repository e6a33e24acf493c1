"""Checkpoints of the meters, beside the projection's: a reader starts near the journal's end.

After each checkpoint of the projection (:mod:`station.core.checkpoints`) the station journals
the meters' fold as of the same record: a ``MetersCheckpoint`` (derived data, like every
checkpoint), written by :class:`~station.meters.service.MetersService` through the core loop.
It holds

- ``fold``: the fold's state after the projection's checkpoint record (``at``), with the parts
  of play still open (those of the gaming day in play, and those of the rounds a correction
  may still reach);
- ``sealed``: the parts sealed since the last meters checkpoint that sealed any, whose record
  it names (``parent``; 0 for none). Parts are sealed a gaming day at a time, so the links of
  the chain are about one a day.

So a figure is the parts sealed along the chain of meters checkpoints, back to the first, plus
the fold restored from the newest and fed the records after it: the journal is not replayed.
A chain that cannot be followed (a checkpoint of another layout, one that cannot be read) is
given up for the newest checkpoint before it, or for a replay from the first record; a figure
is the same either way (tests/meters/test_meters_restart.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from station.core.checkpoints import CHECKPOINT, start_projection
from station.core.options import CoreOptions
from station.core.projection import Projection
from station.journal import JournalReader, JournalRecord
from station.journal.seams import chain
from station.meters.fold import MetersFold, Part

log = structlog.get_logger("station.meters")

#: The kind of the journal record holding the meters' state.
METERS_CHECKPOINT = "MetersCheckpoint"
#: The layout of its payload; a checkpoint of another is passed over. 2: the figures count the
#: chips (``chips``: docs/meters.md); a checkpoint of layout 1 was written by a fold that did not,
#: so the chips moved and the wrong payments before it would be missing from its figures: it is
#: passed over, and the journal read once from its first record (the station's meters do that
#: on their own thread after READY, and journal a checkpoint of layout 2 at the next checkpoint).
METERS_FORMAT = 2
#: Meters checkpoints tried, newest first, before a reader replays from the first record.
TRIES = 3


def checkpoint_payload(fold: MetersFold, checkpoint: int, parent: int) -> dict[str, Any]:
    """The ``MetersCheckpoint`` of ``fold`` as it stands after the projection's checkpoint
    record ``checkpoint``, with the parts sealed since the meters checkpoint at record
    ``parent`` (0: since the first record)."""
    return {"format": METERS_FORMAT, "at": fold.at, "checkpoint": checkpoint, "parent": parent,
            "sealed": [part.to_json() for part in fold.sealed], "fold": fold.state()}


@dataclass
class MetersResumed:
    """A fold and the projection restored from the meters checkpoint record ``seq``; its
    ``payload`` names the chain behind it."""

    fold: MetersFold
    projection: Projection
    seq: int
    payload: dict[str, Any]


def _newest_first(journal: Path) -> Iterator[tuple[JournalReader, JournalRecord]]:
    """Every meters checkpoint of ``journal``'s history, newest first, across its archives."""
    for item in reversed(chain(journal)):
        if not item.present:
            return
        with JournalReader(item.path) as reader:
            for record in reader.of_kind(METERS_CHECKPOINT):
                yield reader, record


def resume(journal: Path, options: CoreOptions | None, timezone: str, day_start: str,
           at_most: int | None = None) -> MetersResumed | None:
    """The fold and projection of the newest usable meters checkpoint (taken after record
    ``at_most`` at the latest, when given), or None: read from the first record."""
    tries = 0
    for reader, record in _newest_first(journal):
        payload = record.payload
        if payload.get("format") != METERS_FORMAT:
            continue
        try:
            at = int(payload["at"])
            if at_most is not None and at > at_most:
                continue
            core = reader.get(int(payload["checkpoint"]))
            if core is None or core.kind != CHECKPOINT:
                raise ValueError(f"record {payload['checkpoint']} is not a checkpoint of the projection")
            projection = start_projection(options, core.payload)
            fold = MetersFold.restore(payload["fold"], timezone, day_start)
            if fold.at != at or projection.seq > at:
                raise ValueError(f"it stands after record {at}, its projection's checkpoint after {projection.seq}")
            return MetersResumed(fold, projection, record.seq, payload)
        except Exception as exc:  # whatever a damaged state raises: an older one, or the start
            log.warning("meters.checkpoint_unusable", seq=record.seq, error=f"{type(exc).__name__}: {exc}")
            tries += 1
            if tries >= TRIES:
                return None
    return None


def sealed_before(journal: Path, resumed: MetersResumed) -> list[Part] | None:
    """The parts sealed along the chain of meters checkpoints that ends at ``resumed``, each
    naming the record of the one before, or None when the chain is broken (a checkpoint on it
    is missing or cannot be read)."""
    files = [item.path for item in chain(journal) if item.present]
    readers = [JournalReader(path) for path in reversed(files)]
    try:
        parts: list[Part] = []
        payload, seq = resumed.payload, resumed.seq
        while True:
            try:
                parts.extend(Part.from_json(data) for data in payload["sealed"])
                parent = int(payload["parent"])
            except Exception as exc:  # whatever a damaged payload raises
                log.warning("meters.chain_broken", seq=seq, error=f"{type(exc).__name__}: {exc}")
                return None
            if parent == 0:
                return parts
            record = next((r for r in (reader.get(parent) for reader in readers) if r is not None), None)
            if record is None or record.kind != METERS_CHECKPOINT or record.payload.get("format") != METERS_FORMAT:
                log.warning("meters.chain_broken", seq=seq, parent=parent)
                return None
            payload, seq = record.payload, record.seq
    finally:
        for reader in readers:
            reader.close()
