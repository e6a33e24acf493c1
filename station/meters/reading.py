"""Reading the meters out of a journal: from the newest meters checkpoint, or from the start.

``station meters`` opens the journal read-only (beside a running station, or a copy), restores
the fold and the projection from the newest usable meters checkpoint
(:mod:`station.meters.checkpoint`), adds the parts sealed along its chain, and feeds the fold
the records after it through the projection: on a year-old journal a few thousand records
rather than millions. ``from_start`` reads every record instead (an audit of the checkpoints:
the figures must be the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from station.core.history import History
from station.core.options import CoreOptions
from station.meters.checkpoint import resume, sealed_before
from station.meters.fold import MetersFold, Part


@dataclass(frozen=True)
class Reading:
    """The parts of play of a journal, and how they were read."""

    parts: list[Part]
    last_seq: int  # the last record counted
    checkpoint: int | None  # the meters checkpoint read from (None: from the first record)
    records_read: int  # records fed to the fold after it

    def read(self) -> dict[str, int | None]:
        return {"last_seq": self.last_seq, "checkpoint": self.checkpoint, "records_read": self.records_read}


def read_meters(journal: Path, options: CoreOptions | None, timezone: str, day_start: str, *,
                from_start: bool = False) -> Reading:
    """The parts of play of ``journal`` (its archives included). ``timezone`` and ``day_start``
    count gaming days where the journal's configuration does not name them."""
    resumed = None if from_start else resume(journal, options, timezone, day_start)
    sealed = sealed_before(journal, resumed) if resumed is not None else None
    if resumed is None or sealed is None:
        fold, history, sealed, checkpoint = MetersFold(timezone, day_start), History(journal, options), [], None
    else:
        fold, checkpoint = resumed.fold, resumed.seq
        history = History(journal, options, start=resumed.projection, checkpoint_seq=resumed.seq)
    counted = fold.at
    read = 0
    for step in history.steps():
        if step.record.seq > counted:  # the records between the two checkpoints are in the fold already
            fold.take(step.record, step.event, step.outputs)
            read += 1
    return Reading([*sealed, *fold.every_part()], fold.at, checkpoint, read)
