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
    SOFTWARE_KEY,
    SOFTWARE_RECORD,
    changed_keys,
    configuration_record,
    recorded_rules,
    software_record,
)
from station.journal import Journal
from station.service.config import StationConfig

log = structlog.get_logger("station.service")


def open_journal(path: Path, config: StationConfig, config_path: Path) -> tuple[Journal, bool]:
    """The journal at ``path``, and whether it has no configuration record yet (a new journal:
    the caller writes one once the loop has replayed it). One written under a different
    table configuration is refused with a :class:`ConfigError` naming each changed key."""
    journal = Journal(path)
    recorded = journal.last_of_kind(CONFIGURATION_RECORD)
    current = configuration_record(config)
    if recorded is not None:
        changed = changed_keys(recorded_rules(recorded.payload, current), current)
        if changed:
            journal.close()
            raise ConfigError(config_path, [(key, (
                f"differs from the configuration {path} was written with; "
                "a journal is replayed under its own configuration, so finish with the old one, or "
                "move the journal aside (it stays verifiable and recallable) and start a new one"
            )) for key in changed])
    return journal, recorded is None


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
