"""``station journal archive --before DATE``: finished gaming days out of the live journal.

Where the cut goes (:mod:`station.journal.archive` moves the records): at the newest
checkpoint of the projection written before the first moment of DATE's gaming day (in the
table's zone, from ``[table] timezone`` and ``gaming_day_start`` as the journal's configuration
records them), and preferably one the integrity monitor checkpointed too, so that every reader
of the live journal starts from a checkpoint in it. Only finished gaming days are archived (a
DATE after today's gaming day is refused), and never a record the floor feed has not yet
published (its cursor beside the journal must have passed the cut).

How long records are kept: the station never deletes one. The live journal keeps everything
since its last archive, and an archive file stays beside it until a person moves it; docs/
journal.md ("Retention") says why at least 90 days stay within reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from station.config.options import CONFIGURATION_RECORD
from station.core.checkpoints import CHECKPOINT
from station.core.state import STATE_FORMAT
from station.floor.cursor import cursor_path, load_cursor
from station.integrity.service import INTEGRITY_CHECKPOINT
from station.journal.anchors import journal_id
from station.journal.archive import Archived, archive
from station.journal.records import JournalRecord
from station.journal.store import Journal
from station.localtime import DEFAULT_GAMING_DAY_START, DEFAULT_TIMEZONE, day_start, gaming_day, gaming_day_bounds, zone

#: Checkpoints looked at, newest first, for one the integrity monitor checkpointed too.
CANDIDATES = 40


class RetentionError(Exception):
    """The archive cannot be made; the message says why and what to do."""


@dataclass(frozen=True)
class Cut:
    checkpoint: JournalRecord
    day: date  # the first gaming day that stays in the live journal


def _gaming_day_of(configuration: JournalRecord | None) -> tuple[str, str]:
    table = configuration.payload.get("table", {}) if configuration is not None else {}
    tz_name = str(table.get("timezone") or DEFAULT_TIMEZONE)
    return tz_name, str(table.get("gaming_day_start") or DEFAULT_GAMING_DAY_START)


def find_cut(journal: Journal, before: date, now: datetime | None = None) -> Cut:
    """Where the records of the gaming days before ``before`` end, at a checkpoint."""
    configuration = journal.last_of_kind(CONFIGURATION_RECORD)
    tz_name, start_text = _gaming_day_of(configuration)
    tz, start = zone(tz_name), day_start(start_text)
    moment = (now or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    today = gaming_day(moment, tz, start)
    if before > today:
        raise RetentionError(f"{before} is after today's gaming day ({today}, {tz_name}): only finished gaming days "
                             "are archived")
    cutoff = gaming_day_bounds(before, tz, start)[0].isoformat().replace("+00:00", "Z")
    usable: list[JournalRecord] = []
    for record in journal.of_kind(CHECKPOINT):
        if record.time >= cutoff:
            continue
        if record.payload.get("format") == STATE_FORMAT and record.payload.get("at") == record.seq - 1:
            usable.append(record)
        if len(usable) >= CANDIDATES:
            break
    if not usable:
        raise RetentionError(f"no checkpoint was written before gaming day {before} began: nothing can be archived "
                             "(the station writes one at every shoe end)")
    for candidate in usable:
        monitor = journal.first_of_kind(INTEGRITY_CHECKPOINT, after=candidate.seq)
        if monitor is not None and monitor.payload.get("checkpoint") == candidate.seq:
            return Cut(candidate, before)
    return Cut(usable[0], before)


def archive_before(path: Path, before: date, now: datetime | None = None,
                   progress: Callable[[int], None] | None = None) -> Archived:
    """Archive the gaming days before ``before`` of the journal at ``path`` (no station may
    have it open: this takes its writer lock)."""
    with Journal(path) as journal:
        cut = find_cut(journal, before, now)
        first = journal.first_hash()
        stored = load_cursor(cursor_path(path), journal_id(first), set_aside=False) if first else None
        if stored is not None and cursor_path(path).exists() and stored.seq < cut.checkpoint.seq - 1:
            raise RetentionError(f"the floor feed has published records up to {stored.seq} only; the archive would "
                                 f"move records up to {cut.checkpoint.seq - 1}: let the feed catch up first")
        configuration = journal.last_of_kind(CONFIGURATION_RECORD)
        carried = configuration if configuration is not None and configuration.seq < cut.checkpoint.seq else None
        return archive(journal, cut.checkpoint.seq, carried, progress)
