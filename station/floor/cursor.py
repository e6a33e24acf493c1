"""The floor feed's cursor: how far the broker has acknowledged the journal, kept beside it.

A small JSON file, ``<journal>.floor-cursor``, replaced atomically (written to a temporary file
in the same folder, fsynced, renamed over the old one, and the folder fsynced), so after a
crash or a power cut it holds either the old position or the new one, never half of each. It
says: the journal it belongs to (its id), the last record whose every message the broker has
acknowledged, and each sequenced kind's counter at that point (so the numbering goes on
where it stopped). A side file rather than a table in the journal: the core loop's commits
never wait for the feed's writes.

A cursor of another journal (the journal was replaced) or one that cannot be read is set
aside (renamed ``….unusable``) and the feed starts from the journal's first record: consumers
drop what they already hold by its numbers (docs/floor.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import structlog

from station.floor.derive import SEQUENCED, Counter, FeedPosition

log = structlog.get_logger(__name__)

SUFFIX = ".floor-cursor"


def cursor_path(journal: Path) -> Path:
    return journal.with_name(journal.name + SUFFIX)


def load_cursor(path: Path, journal_id: str, *, set_aside: bool = True) -> FeedPosition:
    """The stored position for this journal, or the start when there is none to use (an
    unusable file is renamed aside unless ``set_aside`` is false: readers change nothing)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return FeedPosition()
    except OSError as exc:
        log.warning("floor_cursor_unreadable", path=str(path), error=exc.strerror or str(exc))
        return FeedPosition()
    try:
        body = json.loads(text)
        if body["journal_id"] != journal_id:
            raise LookupError(f"it belongs to journal {body['journal_id']}, this journal is {journal_id}")
        # A kind the station learned after the cursor was written has no counter in it: its
        # messages are counted again while the records up to the cursor are skipped.
        position = FeedPosition(int(body["seq"]), {kind: Counter(int(body[kind]["n"]), int(body[kind]["prev"]))
                                                   if kind in body else Counter() for kind in SEQUENCED},
                                tuple(kind for kind in SEQUENCED if kind not in body))
        if len(position.recount) == len(SEQUENCED):
            raise LookupError("it names no kind of message")
        if position.seq < 0 or any(c.n < 0 or c.prev < 0 or c.prev > position.seq for c in position.counters.values()):
            raise ValueError("negative or inconsistent numbers")
    except (ValueError, LookupError, TypeError) as exc:
        aside = path.with_name(path.name + ".unusable")
        if not set_aside:
            return FeedPosition()
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        log.warning("floor_cursor_set_aside", path=str(path), moved_to=str(aside), reason=str(exc))
        return FeedPosition()
    return position


def store_cursor(path: Path, journal_id: str, position: FeedPosition, *, fsync: bool = True) -> None:
    """Replace the cursor file atomically (and durably, with ``fsync``)."""
    body: dict[str, Any] = {"journal_id": journal_id, **position.to_json()}
    data = (json.dumps(body, sort_keys=True) + "\n").encode("utf-8")
    fd, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            if fsync:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if fsync and hasattr(os, "O_DIRECTORY"):
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
