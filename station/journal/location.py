"""Where the journal lives: one rule shared by the service and every ``station`` command.

Precedence, first that is set wins (an empty value counts as unset):

1. ``explicit``: the ``--journal PATH`` option of a command;
2. ``$STATION_JOURNAL``;
3. ``configured``: the journal path from the station's configuration file;
4. ``$STATE_DIRECTORY/journal.sqlite3``: set by systemd for a unit with ``StateDirectory=``
   (when the unit lists several, systemd joins them with ``:`` and the first is used);
5. ``$XDG_STATE_HOME/dealing-station/journal.sqlite3``, or
   ``~/.local/state/dealing-station/journal.sqlite3`` when that is unset or not absolute (the
   XDG Base Directory rule for a relative value).

A leading ``~`` is expanded in every path. Relative paths stay relative to the working
directory, as a person typing ``--journal`` expects.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

FILE_NAME = "journal.sqlite3"
APP_DIRECTORY = "dealing-station"


def journal_location(
    explicit: str | None = None,
    configured: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """The journal path and a short phrase saying which rule chose it (for ``station journal path``)."""
    env = os.environ if environ is None else environ
    if explicit:
        return Path(explicit).expanduser(), "--journal"
    if env.get("STATION_JOURNAL"):
        return Path(env["STATION_JOURNAL"]).expanduser(), "$STATION_JOURNAL"
    if configured:
        return Path(configured).expanduser(), "configuration file"
    state_directories = [d for d in env.get("STATE_DIRECTORY", "").split(":") if d]
    if state_directories:
        return Path(state_directories[0]).expanduser() / FILE_NAME, "$STATE_DIRECTORY (systemd)"
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / APP_DIRECTORY / FILE_NAME, "$XDG_STATE_HOME"
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".local" / "state" / APP_DIRECTORY / FILE_NAME, "default (~/.local/state)"


def journal_path(
    explicit: str | None = None,
    configured: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The journal path by the precedence above."""
    return journal_location(explicit, configured, environ=environ)[0]
