"""Checkpoints of the projection: every reader of the journal starts near its end.

A checkpoint is a journal record of kind ``Checkpoint``: the projection's whole state after
record ``at`` (:mod:`station.core.state`), derived data, hash-chained like every record. The
core loop writes one

- at every shoe end: the table goes back to shuffling, no round is open, and a reader that
  wants whole shoes (recall of the last rounds) starts there;
- after at most :data:`EVERY_RECORDS` records since the last (a continuous shuffler has no
  shoe end, and a shoe may be long);
- when it opens a journal whose newest checkpoint is further back than that (a journal
  written before checkpoints existed is replayed from the start once, then checkpointed).

A restart (:class:`~station.core.loop.CoreLoop`), the floor outbox and the integrity monitor
then start from the newest checkpoint at or before where they stand, found through the
journal's index of kinds (:meth:`~station.journal.access.Access.of_kind`), and replay only the
records after it. A checkpoint of another state layout (:data:`~station.core.state.STATE_FORMAT`)
or one that cannot be read back is passed over for an older one, or for the start.

Never trusted blindly: ``station journal verify --deep`` replays the journal from its first
record and compares every checkpoint with the state the replay has at that point
(:func:`check_checkpoints`); one that differs (edited and re-hashed, or written by software
that would now write it otherwise) is reported like any other tamper, naming its record and
the first part of the state that differs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from station.core.options import CoreOptions
from station.core.projection import CHECKPOINT, ProjectedRecord, Projection
from station.core.state import STATE_FORMAT, machine_state, restore_machine
from station.journal import JournalRecord, canonical_json
from station.journal.access import Access

log = structlog.get_logger("station.core")

__all__ = ["CHECKPOINT", "EVERY_RECORDS", "UNPROMISED_STATE", "CheckpointCheck", "Resumed", "check_checkpoints",
           "checkpoint_payload", "latest_checkpoint", "projection_state", "promised", "start_projection"]
#: Records between two checkpoints at most. A restart replays at most this many records after
#: the newest checkpoint: at the replay rate of docs/benchmarks.md about a tenth of a second on
#: the table PC, under the 1 s a restart may take; and a checkpoint is a few kilobytes to some
#: tens (the shoe's results), so a busy table writes one every few seconds, not every round.
EVERY_RECORDS = 1000
#: Checkpoints tried, newest first, before a reader gives up on them and replays from the start
#: (each that cannot be read back is logged).
TRIES = 3


def projection_state(projection: Projection) -> dict[str, Any]:
    """The projection's state as plain JSON: its counts, what it notes of the round in play,
    and the machine's whole state."""
    return {
        "applied": projection.applied, "skipped": projection.skipped, "failures": projection.failures,
        "opened": list(projection.opened), "refused": list(projection.refused),
        "machine": machine_state(projection.machine),
    }


def checkpoint_payload(projection: Projection, reason: str) -> dict[str, Any]:
    """The ``Checkpoint`` record of ``projection`` as it stands (after record ``at``)."""
    return {"format": STATE_FORMAT, "at": projection.seq, "reason": reason, "shoe": projection.machine.shoe.number,
            "state": projection_state(projection)}


def start_projection(options: CoreOptions | None, payload: dict[str, Any] | None = None) -> Projection:
    """Where every reader of the journal starts, the one place a projection is made: before
    the first record (no ``payload``), or where a checkpoint's payload says the table stood
    after its record (raises for a payload that is not a checkpoint's)."""
    state = payload["state"] if payload is not None else None
    projection = Projection(options, restore_machine(options, state["machine"]) if state is not None else None)
    if payload is None or state is None:
        return projection
    projection.seq = int(payload["at"])
    projection.applied, projection.skipped, projection.failures = state["applied"], state["skipped"], state["failures"]
    opened = state["opened"]
    projection.opened = (str(opened[0]), str(opened[1]))
    projection.refused = [dict(note) for note in state["refused"]]
    return projection


@dataclass(frozen=True)
class Resumed:
    """A projection restored from the checkpoint record at ``seq`` (it stands after ``at``)."""

    projection: Projection
    seq: int

    @property
    def at(self) -> int:
        return self.projection.seq


def latest_checkpoint(journal: Access, options: CoreOptions | None, *, at_most: int | None = None) -> Resumed | None:
    """The projection at the newest usable checkpoint of ``journal`` (one that stands at or
    before record ``at_most``, when given), or None: replay from the start."""
    before = None if at_most is None else at_most + 2  # a checkpoint follows the record it stands after
    tries = 0
    for record in journal.of_kind(CHECKPOINT, before=before):
        payload = record.payload
        if payload.get("format") != STATE_FORMAT:
            continue  # another layout: written by other software, not for this one to read
        at = payload.get("at")
        if not isinstance(at, int) or at >= record.seq or (at_most is not None and at > at_most):
            continue
        try:
            return Resumed(start_projection(options, payload), record.seq)
        except Exception as exc:  # whatever a damaged state raises: an older checkpoint, or the start
            log.warning("core.checkpoint_unusable", seq=record.seq, error=f"{type(exc).__name__}: {exc}")
            tries += 1
            if tries >= TRIES:
                break
    return None


# --- verification ------------------------------------------------------------------------


#: The parts of a checkpoint's state that are counts of what the projection took, kept for a
#: technician's status line and restored with the rest, but not promised: a reader resumes the
#: same table whatever they say, and a journal written by 0.2.0 counts the start-up records it
#: wrote past the projection in its replay only. ``verify --deep`` leaves them out.
UNPROMISED_STATE = ("applied", "skipped")


def promised(payload: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint promises a reader (docs/journal.md, "Checkpoints"): where it stands
    (``format``, ``at``, ``shoe``), the machine's whole state, the round in play with the
    inputs refused in it, and the inputs whose application failed."""
    state = payload.get("state")
    if isinstance(state, dict):
        state = {key: value for key, value in state.items() if key not in UNPROMISED_STATE}
    return {"format": payload.get("format"), "at": payload.get("at"), "shoe": payload.get("shoe"), "state": state}


@dataclass(frozen=True)
class CheckpointCheck:
    """What a deep replay found of the journal's checkpoints: every one that differs is
    counted (a forgery late in the journal is not hidden behind an earlier one); the first
    is named."""

    ok: bool
    checked: int  # checkpoints compared with the replay
    other_format: int  # checkpoints of another state layout (not comparable, not used)
    first_bad_seq: int | None = None
    problem: str = ""
    bad: tuple[int, ...] = ()  # every checkpoint record that differs

    def words(self) -> str:
        if not self.ok:
            more = len(self.bad) - 1
            return self.problem + (f"; {more} more checkpoint{'s differ' if more != 1 else ' differs'} "
                                   f"(records {', '.join(str(seq) for seq in self.bad[1:6])}"
                                   f"{', ...' if more > 5 else ''})" if more > 0 else "")
        other = f", {self.other_format} of another layout not compared" if self.other_format else ""
        return f"{self.checked} checkpoint{'s match' if self.checked != 1 else ' matches'} the replay{other}"


def _plain(value: Any) -> Any:
    """``value`` as it comes back from the journal (JSON: tuples become lists)."""
    return json.loads(canonical_json(value))


def first_difference(written: Any, replayed: Any, where: str = "") -> str:
    """Where two JSON values first differ, in words ("machine.house_net: 1200, the replay gives 1000")."""
    if isinstance(written, dict) and isinstance(replayed, dict):
        for key in sorted(set(written) | set(replayed)):
            if key not in written:
                return f"{where}{key}: missing, the replay has it"
            if key not in replayed:
                return f"{where}{key}: the replay has no such part"
            found = first_difference(written[key], replayed[key], f"{where}{key}.")
            if found:
                return found
        return ""
    if isinstance(written, list) and isinstance(replayed, list):
        for index, (a, b) in enumerate(zip(written, replayed, strict=False)):
            found = first_difference(a, b, f"{where[:-1]}[{index}].")
            if found:
                return found
        if len(written) != len(replayed):
            return f"{where[:-1]}: {len(written)} items, the replay gives {len(replayed)}"
        return ""
    if written != replayed:
        shown = (json.dumps(written)[:60], json.dumps(replayed)[:60])
        return f"{where[:-1]}: {shown[0]}, the replay gives {shown[1]}"
    return ""


def check_checkpoints(records: Iterable[JournalRecord], options: CoreOptions | None,
                      observe: Callable[[ProjectedRecord, Projection], None] | None = None) -> CheckpointCheck:
    """Replay ``records`` (a journal from its first record) and compare every checkpoint with
    the replay's state at that point. ``observe`` hears every record the projection takes
    (the integrity monitor's checkpoints are checked from the same replay)."""
    projection = start_projection(options)
    checked = other = 0
    bad: list[int] = []
    problem = ""
    for record in records:
        if record.kind == CHECKPOINT:
            payload = record.payload
            if payload.get("format") != STATE_FORMAT:
                other += 1
            else:
                checked += 1
                expected = promised(_plain(checkpoint_payload(projection, str(payload.get("reason", "")))))
                difference = first_difference(promised(payload), expected)
                if difference:
                    bad.append(record.seq)
                    problem = problem or (f"record {record.seq}: checkpoint differs from the replay of the records "
                                          f"before it ({difference}): altered, or written by software that would "
                                          "now write it otherwise")
        step = projection.take(record)
        if observe is not None:
            observe(step, projection)
    if bad:
        return CheckpointCheck(False, checked, other, bad[0], problem, tuple(bad))
    return CheckpointCheck(True, checked, other)
