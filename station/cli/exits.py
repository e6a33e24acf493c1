"""Exit statuses of ``station``, and the one line a person sees instead of a traceback.

The statuses follow ``sysexits.h`` where one fits, so that systemd can tell a station that
should be restarted from one that never will start until a person changes something: the
unit lists the latter in ``RestartPreventExitStatus=`` (docs/install.md lists them all).
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from datetime import UTC, datetime
from enum import IntEnum
from pathlib import Path


class Status(IntEnum):
    """What a ``station`` command's exit status means."""

    OK = 0
    INTERNAL = 1
    """A fault in the station itself: the traceback is saved to a file the line names."""
    USAGE = 2
    """A bad command line, or a file given on it that cannot be used."""
    UNAVAILABLE = 69
    """Something it needs is held by another process (the journal, a device, the web port):
    restarting once that process has stopped helps."""
    FAILED = 70
    """It ran, and stopped by itself because a part of it could not go on (the line says which
    and why; the log has the rest): systemd starts it again (``EX_SOFTWARE``)."""
    CANT_CREATE = 73
    """It cannot create or write its files (the journal's folder is read-only or missing)."""
    CONFIG = 78
    """The configuration or the environment is wrong: restarting will not help until a person
    changes it (the unit does not restart on it)."""


#: Statuses on which systemd must not restart the service (``RestartPreventExitStatus=``).
NO_RESTART = (Status.USAGE, Status.CANT_CREATE, Status.CONFIG)


def config_status(exc: BaseException, named_on_command_line: bool) -> Status:
    """The status for a configuration that cannot be used: a file named with ``-c`` that is not
    there (or cannot be read) is a bad command line; anything else is the configuration's."""
    from station.config.errors import ConfigFileError

    return Status.USAGE if named_on_command_line and isinstance(exc, ConfigFileError) else Status.CONFIG


def startup_failure(exc: BaseException) -> tuple[str, Status] | None:
    """The line and status for an exception that means the station cannot start as
    configured, or None for one that is a fault of the station itself."""
    from station.config.errors import ConfigError
    from station.host.errors import ResourceBusy
    from station.journal.store import JournalBusyError, JournalError, NotAJournalError
    from station.service.holder import DeviceBusy

    if isinstance(exc, ConfigError):
        return str(exc), Status.CONFIG
    if isinstance(exc, (JournalBusyError, DeviceBusy, ResourceBusy)):
        return str(exc), Status.UNAVAILABLE
    if isinstance(exc, NotAJournalError):
        return str(exc), Status.CONFIG
    if isinstance(exc, JournalError):
        text = str(exc)
        cannot_write = "cannot create" in text or "cannot write" in text or "readonly" in text
        return text, Status.CANT_CREATE if cannot_write else Status.CONFIG
    return None


def internal_error(command: str, exc: BaseException) -> int:
    """Report a fault of the station in one line; keep the traceback for the technician.

    ``STATION_TRACEBACK=1`` prints it instead (for developers)."""
    if os.environ.get("STATION_TRACEBACK"):
        traceback.print_exception(exc)
        return Status.INTERNAL
    saved = _save_traceback(exc)
    where = f"the details are in {saved}" if saved else "set STATION_TRACEBACK=1 to see the details"
    print(f"station {command}: internal error: {type(exc).__name__}: {exc} ({where})", file=sys.stderr)
    return Status.INTERNAL


def _save_traceback(exc: BaseException) -> Path | None:
    from station.service.paths import state_directory

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    text = "".join(traceback.format_exception(exc))
    for folder in (state_directory(), Path(tempfile.gettempdir())):
        path = folder / f"station-crash-{stamp}-{os.getpid()}.txt"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        except OSError:
            continue
        return path
    return None
