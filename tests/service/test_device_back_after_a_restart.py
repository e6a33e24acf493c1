"""A device the journal left faulted is back once it answers after a restart.

The simulated table's process killed in the middle of a round takes the shoe, the board and
the shuffler with it: the station journals them lost, raises the round's irregularity and
stops (status 70). Started again, every device answers and passes its self-test, but the
replayed table still counted them faulted, and the supervisor's ``resume`` was refused for
ever ("shoe still faulted: wait for it to recover, or void the round"): the soak found a table
that could only void. Now the station journals each such device back (``DeviceRecovered``) at
its start; the irregularity stays open for the supervisor, who can resume.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.service.control import hash_token, request

from ..shipped import runnable_copy, shipped
from ..waiting import wait_until

pytestmark = pytest.mark.e2e

TOKEN = "supervisor-token-of-the-test"
SUPERVISOR = {"name": "sam-token", "role": "supervisor", "token_sha256": hash_token(TOKEN)}


def _start(config: Path, folder: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(folder / "run"), "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)], stdout=out,
                                stderr=subprocess.STDOUT, env=env)


def _table_pid(log: Path) -> int | None:
    for line in log.read_text(errors="replace").splitlines():
        if '"simulated_table_started"' in line:
            return int(json.loads(line)["pid"])
    return None


def test_devices_lost_with_a_killed_table_are_back_after_the_restart(tmp_path: Path) -> None:
    copy = runnable_copy(shipped("batch-shuffler"), tmp_path, users=[SUPERVISOR])
    first = tmp_path / "first.log"
    station = _start(copy.config, tmp_path, first)
    try:
        wait_until(lambda: first.read_text(errors="replace").count('"round_settled"') >= 5, 60, "rounds settled")
        pid = _table_pid(first)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert station.wait(30) == 70, first.read_text()[-2000:]
    finally:
        if station.poll() is None:
            station.kill()
    second = tmp_path / "second.log"
    station = _start(copy.config, tmp_path, second)
    try:
        def status() -> dict[str, Any]:
            reply = request(copy.control_socket, TOKEN, "status")
            return dict(reply["result"]) if reply.get("ok") else {}

        ready = wait_until(lambda: '"station_ready"' in second.read_text(errors="replace") and status(), 60,
                           "the station ready again")
        assert ready
        wait_until(lambda: status().get("faulted") == {}, 30, "every device back")
        assert '"device_back_after_restart"' in second.read_text()
        now = status()
        if now.get("state") == "irregularity":
            reply = request(copy.control_socket, TOKEN, "decide", {"decision": "resume"})
            assert reply.get("ok"), reply
        before = second.read_text(errors="replace").count('"round_settled"')
        wait_until(lambda: second.read_text(errors="replace").count('"round_settled"') > before + 3, 60,
                   "play going on")
    finally:
        station.send_signal(signal.SIGTERM)
        assert station.wait(60) == 0, second.read_text()[-2000:]
