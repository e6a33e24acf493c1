"""Where the service keeps its files, following systemd's directory variables.

Under systemd, ``StateDirectory=`` and ``RuntimeDirectory=`` set ``$STATE_DIRECTORY`` and
``$RUNTIME_DIRECTORY``; by hand, the XDG directories of the user are used, so a technician's
``station run`` on a laptop never needs root.
"""

from __future__ import annotations

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


def control_socket_path(configured: str | None) -> Path:
    """``$STATION_CONTROL_SOCKET`` > the configured path > the runtime directory."""
    if os.environ.get("STATION_CONTROL_SOCKET"):
        return Path(os.environ["STATION_CONTROL_SOCKET"])
    if configured:
        return Path(configured)
    return runtime_directory() / "control.sock"


def default_config_path() -> Path:
    """``$STATION_CONFIG`` > ``$CONFIGURATION_DIRECTORY/station.toml`` > the checkout's default."""
    if os.environ.get("STATION_CONFIG"):
        return Path(os.environ["STATION_CONFIG"])
    if os.environ.get("CONFIGURATION_DIRECTORY"):
        return Path(os.environ["CONFIGURATION_DIRECTORY"].split(":")[0]) / "station.toml"
    from station.service.config import DEFAULT_CONFIG

    return DEFAULT_CONFIG
