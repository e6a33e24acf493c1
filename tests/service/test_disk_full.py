"""A full disk under the journal stops the table and loses nothing; space back, it goes on.

The journal lives on a small file system the test makes (a 4 MB tmpfs, which needs root to
mount), the real ``station run`` deals with its simulated dealer at full speed, and the test
fills the file system to the last byte while it deals, then frees it.
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

from station.core.loop import JOURNAL_RETRY_S
from station.service.control import ControlError, request

from ..small_disk import fill
from ..waiting import stays_false, tail, wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "supervisor-token-for-disk-test"


def _status(socket: Path) -> dict[str, Any]:
    return dict(request(socket, TOKEN, "status")["result"])


def test_a_full_disk_stops_the_table_loses_nothing_and_it_goes_on_when_space_returns(
        small_disk: Path, tmp_path: Path) -> None:
    from station.service.control import hash_token

    journal = small_disk / "journal.sqlite3"
    socket = tmp_path / "control.sock"
    config = tmp_path / "station.toml"
    user = f'\n[[control.users]]\nname = "disk-tech"\nrole = "supervisor"\ntoken_sha256 = "{hash_token(TOKEN)}"\n'
    # No low-space warning by threshold (0 MB): only the failed write can tell that the disk is full.
    config.write_text((ROOT / "config" / "station.toml").read_text().replace("pace_ms = 1500", "pace_ms = 20")
                      .replace('socket = ""', f'socket = "{socket}"')
                      .replace('log_level = "info"', 'log_level = "info"\ndisk_warning_mb = 0') + user)
    log = tmp_path / "station.log"
    with log.open("w") as out:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RUNTIME_DIRECTORY": str(tmp_path / "run")}
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal",
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_until(lambda: socket.exists() and _status(socket)["round"] is not None, 30, "a round under way",
                   poll=0.05, ignoring=(ControlError,), detail=lambda: tail(log, 2000))
        filler = fill(small_disk)
        wait_until(lambda: not _status(socket)["journal_writable"], 20, "the journal unwritable on the full disk",
                   poll=0.05, detail=lambda: tail(log, 2000))
        stopped = _status(socket)
        assert "full" in stopped["journal_error"]
        # Looked at when the write failed, not at the next timed look (30 s later).
        assert stopped["disk"] == {"free_mb": 0, "low": True}
        # Not a wait for readiness but a window to watch: two of the loop's retries of the
        # write, during which the station must neither exit nor move.
        stays_false(lambda: station.poll() is not None or _status(socket)["round"] != stopped["round"],
                    2 * JOURNAL_RETRY_S, "the station exited or moved on while nothing could be journaled",
                    poll=0.1, detail=lambda: tail(log, 2000))
        assert station.poll() is None  # never exits on it
        assert _status(socket)["round"] == stopped["round"]  # nothing moves while nothing can be journaled
        filler.unlink()
        wait_until(lambda: _status(socket)["journal_writable"], 10, "the journal writable once space is back",
                   poll=0.05, detail=lambda: tail(log, 2000))
        before = stopped["round"]
        wait_until(lambda: _status(socket)["round"] != before, 15, "the table to go on to the next round",
                   poll=0.05, detail=lambda: tail(log, 2000))
    finally:
        station.send_signal(signal.SIGTERM)
        code = station.wait(30)
    assert code == 0, log.read_text()[-3000:]
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    events = [line["event"] for line in lines]
    assert "core.journal_unwritable" in events and "core.journal_writable" in events
    assert "disk_space_low" in events
    verified = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal", str(journal)],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "intact" in verified.stdout, verified.stdout + verified.stderr
    assert "Traceback" not in log.read_text()
