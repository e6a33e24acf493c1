"""A real ``station run`` started the way the end-to-end tests of the service and of the
integrity monitor both need it: from a configuration file, with its runtime folder (and so its
control socket's default place) under the test's folder, its output appended to a log file,
and the two people who act at the table (a dealer and a supervisor) on its control socket."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from station.service.control import hash_token


def control_section(socket: Path, dealer_token: str, supervisor_token: str) -> str:
    """The ``[control]`` section: the socket and the users ``dana`` (dealer) and ``sam``
    (supervisor) with these tokens."""
    return f"""
[control]
socket = "{socket}"
[[control.users]]
name = "dana"
role = "dealer"
token_sha256 = "{hash_token(dealer_token)}"
[[control.users]]
name = "sam"
role = "supervisor"
token_sha256 = "{hash_token(supervisor_token)}"
"""


def start_station_run(config: Path, directory: Path, log: Path) -> subprocess.Popen[bytes]:
    """``station run -c CONFIG``, its runtime folder ``directory/run``, its output appended to
    ``log``. The journal is the configuration's (a ``STATION_JOURNAL`` of the caller's
    environment would override it)."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(directory / "run"), "PYTHONUNBUFFERED": "1"}
    env.pop("STATION_JOURNAL", None)
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
