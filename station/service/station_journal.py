"""Opening a table's journal for ``station run``: refused when it was written under other rules,
and told which software writes to it from now on.

Apart from the station's start-up (:mod:`station.service.app`) because it is one decision with
its own reasons: a journal replays only under the configuration it was written with (its rounds
would otherwise replay under rules they were not dealt under), and an auditor must be able to
tell which software dealt each round after an upgrade.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from station.config.errors import ConfigError
from station.config.options import (
    CONFIGURATION_RECORD,
    NEW_JOURNAL_KEYS,
    SOFTWARE_KEY,
    SOFTWARE_RECORD,
    configuration_record,
    journal_changes,
    recorded_limits,
    software_record,
)
from station.games.limits import TableLimits
from station.journal import Journal
from station.service.config import StationConfig

log = structlog.get_logger("station.service")


def open_journal(path: Path, config: StationConfig, config_path: Path) -> tuple[Journal, TableLimits | None]:
    """The journal at ``path``, and the limits its Configuration record started it under
    (``None``: a new journal, whose record the caller writes once the loop has replayed it).
    One written under a different table configuration is refused with a
    :class:`ConfigError` naming each changed key; the limits are not such a key (a change of
    them is journaled at start: docs/limits.md)."""
    journal = Journal(path)
    recorded = journal.last_of_kind(CONFIGURATION_RECORD)
    current = configuration_record(config)
    if recorded is None:
        return journal, None
    changed = journal_changes(recorded.payload, current)
    if changed:
        journal.close()
        raise ConfigError(config_path, [(key, new_journal_words(path)) for key in changed])
    return journal, recorded_limits(recorded.payload, current)


def new_journal_words(path: Path) -> str:
    """Why a changed key is refused, and how to start a new journal (docs/limits.md)."""
    return (f"differs from the configuration {path} was written with, and a journal is replayed under its own "
            f"configuration: only the limits and chips change by an event in a journal (docs/limits.md); "
            f"{NEW_JOURNAL_KEYS} need a new journal. Finish with this one, then start a new one with "
            f"station run --config FILE --journal NEW.sqlite3 (or a new [station] journal); the old one stays "
            f"verifiable and recallable with --journal {path}")


def record_software(journal: Journal, path: Path, write: Callable[[str, dict[str, Any]], None]) -> None:
    """Journal which software writes from here on, when it is not the one that last did
    (an upgrade): an auditor can then tell which software dealt each round. ``write`` is the
    core loop's :meth:`~station.core.loop.CoreLoop.write_own`, so the live projection takes
    the record as a replay does."""
    last_software = journal.last_of_kind(SOFTWARE_RECORD)
    last_configuration = journal.last_of_kind(CONFIGURATION_RECORD)
    last = max((r for r in (last_software, last_configuration) if r is not None), key=lambda r: r.seq,
               default=None)
    recorded = None if last is None else (last.payload if last.kind == SOFTWARE_RECORD
                                          else last.payload.get(SOFTWARE_KEY))
    current = software_record()
    if recorded != current:
        write(SOFTWARE_RECORD, current)
        log.info("software_recorded", journal=str(path), **current)
