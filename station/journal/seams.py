"""A journal's history across its archive files: which files, and their records in order.

After ``station journal archive`` (:mod:`station.journal.archive`) a journal's first records
are in an archive file beside it, named by the live journal's seam; an archive of an archived
journal names the archive before it. These functions follow the seams back, so that readers
of the whole history (verification, recall, export, the deep replay) read every file in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from station.journal.errors import JournalError
from station.journal.reader import JournalReader
from station.journal.records import JournalRecord


def archive_path(journal: Path, first: int, last: int) -> Path:
    """The archive file of records ``first``-``last`` of ``journal``, beside it."""
    return journal.with_name(f"{journal.name}.archive-{first}-{last}.sqlite3")


@dataclass(frozen=True)
class ChainFile:
    """One file of a journal's history: where it is, and whether it is there."""

    path: Path
    present: bool


def chain(journal: Path) -> list[ChainFile]:
    """The files of ``journal``'s history, oldest first, ending with ``journal`` itself: each
    archive its seam names, as far back as they are beside it (the first one missing ends the
    list; it is marked not present)."""
    files = [ChainFile(journal, True)]
    current = journal
    while True:
        with JournalReader(current) as reader:
            seam = reader.seam()
        if seam is None:
            break
        previous = current.with_name(seam.archive)
        if not previous.exists():
            files.insert(0, ChainFile(previous, False))
            break
        files.insert(0, ChainFile(previous, True))
        current = previous
    return files


def chain_records(journal: Path, since_seq: int = 0) -> Iterator[JournalRecord]:
    """Every record of ``journal``'s history after ``since_seq``, oldest first, across its
    archives. Raises :class:`JournalError` when a record it needs is in an archive that is not
    beside the journal."""
    files = chain(journal)
    for item in files:
        if not item.present:
            with JournalReader(files[1].path) as reader:
                start = reader.start()
            if since_seq < start[0]:
                raise JournalError(f"records 1-{start[0]} of {journal} are in the archive {item.path.name}, which "
                                   f"is not beside it: put it back to read them")
            continue
        with JournalReader(item.path) as reader:
            last = reader.last()
            if last is None or last.seq <= since_seq:
                continue
            yield from reader.records(since_seq)
