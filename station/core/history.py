"""One reader of a table's history: where to start, the archives and the live file, one policy.

Every reader of a journal's past takes its records through the one
:class:`~station.core.projection.Projection`, so each hears the outputs the table gave live.
Where a reader starts and how it crosses an archive used to be written by each reader, with
different rules; :class:`History` is that once, and its policy is this:

* **from the first record** (``History(path, options)``): recall, the significant-event log and
  the integrity report show every round, so they read the whole history, the archive files
  first (:func:`~station.journal.seams.chain_records`); an archive that is not beside the
  journal is an error that names it (:class:`~station.journal.JournalError`), never a silent
  start part-way;
* **from a checkpoint** (``History.resumed(path, options, at_most=n)``): a reader that needs
  only where the table stands starts at the newest usable checkpoint of the live file at or
  before record ``n``, else from the first record as above;
* **from a reader's own checkpoint** (``History(path, options, start=projection)``): the meters
  and the integrity monitor keep checkpoints of their own state with the projection's beside
  it; they hand that projection in, and the records after it are read from wherever they are.

A reader hears each record as a :class:`~station.core.projection.ProjectedRecord` (the input
and its outputs) from :meth:`History.steps`, and reads where the table stands through
:attr:`History.table` (the same :class:`~station.core.snapshot.TableSnapshot` the core loop
publishes), :meth:`History.round_in_play` and :meth:`History.alerts`: no reader reaches into
the projection's machine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from station.core.checkpoints import latest_checkpoint, start_projection
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord, Projection
from station.core.snapshot import Snapshots, TableSnapshot
from station.journal import JournalReader, JournalRecord
from station.journal.seams import chain_records

if TYPE_CHECKING:
    from station.core.integrity_steps import Alert
    from station.core.rounds import Round


class TableReading:
    """A projection taking records one by one, and what a reader may read of the table it
    leaves: a reader fed records by someone else (the floor outbox follows the live file as the
    station writes it) holds one of these; :class:`History` is one that reads a journal's files
    itself."""

    def __init__(self, options: CoreOptions | None, *, start: Projection | None = None) -> None:
        self.projection = start if start is not None else start_projection(options)
        self._snapshots = Snapshots()

    @property
    def seq(self) -> int:
        """The last record taken."""
        return self.projection.seq

    def take(self, record: JournalRecord) -> ProjectedRecord:
        """Take the record after the last one taken: its input and the outputs it gave."""
        return self.projection.take(record)

    # --- where the table stands, as the records taken so far leave it -----------------------

    @property
    def table(self) -> TableSnapshot:
        return self._snapshots.take(self.projection.machine, self.projection.seq)

    def round_in_play(self) -> Round | None:
        """The round on the table now (read only)."""
        return self.projection.machine.round

    def opened_at(self, round_id: str) -> str | None:
        """The journal time ``round_id`` opened at, while it is the round in play."""
        return self.projection.opened_at(round_id)

    def correctable(self, round_id: str) -> bool:
        """Whether a supervisor may still correct round ``round_id``: a reader of a round's
        corrections reads on until it is not (:data:`~station.core.payout_steps.CORRECTABLE_ROUNDS`)."""
        return round_id in self.projection.machine.correctable

    def alerts(self) -> tuple[Alert, ...]:
        """Every alert raised so far, acknowledged or not, oldest first."""
        return tuple(self.projection.machine.alerts)


class History(TableReading):
    """The records of the journal at ``path`` after ``start`` (a projection restored from a
    checkpoint; by default the journal's first record), as the projection takes them."""

    def __init__(self, path: str | os.PathLike[str], options: CoreOptions | None, *,
                 start: Projection | None = None, checkpoint_seq: int = 0,
                 progress: Callable[[int], None] | None = None) -> None:
        """``progress``: told each record's number as it is taken (a command reading the whole
        history shows how far it has come)."""
        super().__init__(options, start=start)
        self.path = Path(path)
        self.progress = progress
        #: The checkpoint record the history resumed from (0: from the first record, or a
        #: projection handed in).
        self.checkpoint_seq = checkpoint_seq

    @classmethod
    def resumed(cls, path: str | os.PathLike[str], options: CoreOptions | None, *,
                at_most: int | None = None) -> History:
        """The history from the newest usable checkpoint of the live file that stands at or
        before record ``at_most`` (any, when None); from the first record when there is none."""
        with JournalReader(Path(path)) as reader:
            found = latest_checkpoint(reader, options, at_most=at_most)
        if found is None:
            return cls(path, options)
        return cls(path, options, start=found.projection, checkpoint_seq=found.seq)

    def steps(self, until: int | None = None) -> Iterator[ProjectedRecord]:
        """Take each record after the last one taken, up to record ``until`` (the end when
        None), and hand it on with its input and outputs."""
        take, progress = self.projection.take, self.progress
        for record in chain_records(self.path, self.projection.seq):
            if until is not None and record.seq > until:
                return
            if progress is not None:
                progress(record.seq)
            yield take(record)

    def replay(self, until: int | None = None) -> int:
        """Take the records as :meth:`steps` does, keeping nothing; returns how many."""
        return sum(1 for _ in self.steps(until))
