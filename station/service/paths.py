"""Where the service keeps its files, following systemd's directory variables.

Under systemd, ``StateDirectory=`` and ``RuntimeDirectory=`` set ``$STATE_DIRECTORY`` and
``$RUNTIME_DIRECTORY``; by hand, the XDG directories of the user are used, so a technician's
``station run`` on a laptop never needs root.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def state_directory() -> Path:
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "dealing-station"


def runtime_directory() -> Path:
    if os.environ.get("RUNTIME_DIRECTORY"):
        return Path(os.environ["RUNTIME_DIRECTORY"].split(":")[0])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "dealing-station"
    return state_directory()


#: A Unix socket's path must fit in ``sockaddr_un`` (108 bytes on Linux, the NUL included).
MAX_SOCKET_PATH = 100


def control_socket_path(configured: str | None, journal: Path | None = None) -> Path:
    """Where the control socket of the station writing ``journal`` listens:

    ``$STATION_CONTROL_SOCKET`` > the configured path > ``$RUNTIME_DIRECTORY/control.sock``
    (systemd's per-unit runtime folder) > beside the journal (``<journal>.control.sock``), so
    that two stations with different journals, started by hand, never share a socket. A path
    beside the journal that would be too long for a socket becomes
    ``<runtime directory>/control-<hash of the journal>.sock``."""
    if os.environ.get("STATION_CONTROL_SOCKET"):
        return Path(os.environ["STATION_CONTROL_SOCKET"])
    if configured:
        return Path(configured)
    if os.environ.get("RUNTIME_DIRECTORY"):
        return Path(os.environ["RUNTIME_DIRECTORY"].split(":")[0]) / "control.sock"
    if journal is None:
        return runtime_directory() / "control.sock"
    beside = journal.with_name(journal.name + ".control.sock")
    if len(str(beside.absolute())) <= MAX_SOCKET_PATH:
        return beside
    digest = hashlib.sha256(str(journal.absolute()).encode()).hexdigest()[:12]
    return runtime_directory() / f"control-{digest}.sock"


#: What the kernel takes: ``sockaddr_un.sun_path`` is 108 bytes, the terminating NUL included.
SOCKET_PATH_LIMIT = 107


def socket_path_problem(path: Path) -> str:
    """Why a Unix socket cannot listen at ``path`` (its absolute path is too long for the
    kernel), or "" when it can. Said before binding: the kernel's own error names no path."""
    length = len(os.fsencode(str(path.absolute())))
    if length <= SOCKET_PATH_LIMIT:
        return ""
    return (f"{path} is {length} bytes long and a socket's path holds at most {SOCKET_PATH_LIMIT}: "
            "set [control] socket to a shorter path (or run under systemd, which gives RUNTIME_DIRECTORY)")


def default_config_path() -> Path:
    """``$STATION_CONFIG`` > ``$CONFIGURATION_DIRECTORY/station.toml`` > the checkout's default."""
    if os.environ.get("STATION_CONFIG"):
        return Path(os.environ["STATION_CONFIG"])
    if os.environ.get("CONFIGURATION_DIRECTORY"):
        return Path(os.environ["CONFIGURATION_DIRECTORY"].split(":")[0]) / "station.toml"
    from station.config.file import DEFAULT_CONFIG

    return DEFAULT_CONFIG
