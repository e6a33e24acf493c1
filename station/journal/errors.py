"""What can go wrong with a journal, as exceptions whose messages a person can act on."""

from __future__ import annotations


class JournalError(Exception):
    """The journal cannot do what was asked; the message says why and what to do."""


class NotAJournalError(JournalError):
    """The file exists but is not a dealing-station journal (or not even SQLite)."""


class JournalBusyError(JournalError):
    """Another process is writing the journal (holds its writer lock): a journal has one writer."""


class JournalMissingError(JournalError):
    """There is no journal at the given path (only readers complain; the writer creates one)."""


class RecordError(JournalError, ValueError):
    """A kind or payload that cannot be journaled; nothing was written."""


def os_reason(exc: OSError) -> str:
    """An OS error as a person reads it: "Permission denied", not "[Errno 13] ... '/path'"."""
    return exc.strerror or str(exc)
