"""A full disk under the journal stops the table and loses nothing; space back, it goes on.

The journal lives on a small file system the test makes (a 4 MB tmpfs, which needs root to
mount), the real ``station run`` deals with its simulated dealer at full speed, and the test
fills the file system to the last byte while it deals, then frees it.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.service.control import request

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "supervisor-token-for-disk-test"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("making a small file system (a tmpfs) needs root; CI runs as root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> Path:
    """Write zeros until the file system has no byte left (the write that fails is the proof)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


def _status(socket: Path) -> dict[str, Any]:
    return dict(request(socket, TOKEN, "status")["result"])


def _wait(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_full_disk_stops_the_table_loses_nothing_and_it_goes_on_when_space_returns(
        small_disk: Path, tmp_path: Path) -> None:
    from station.service.control import hash_token

    journal = small_disk / "journal.sqlite3"
    socket = tmp_path / "control.sock"
    config = tmp_path / "station.toml"
    user = f'\n[[control.users]]\nname = "sam"\nrole = "supervisor"\ntoken_sha256 = "{hash_token(TOKEN)}"\n'
    config.write_text((ROOT / "config" / "station.toml").read_text().replace("pace_ms = 1500", "pace_ms = 20")
                      .replace('socket = ""', f'socket = "{socket}"') + user)
    log = tmp_path / "station.log"
    with log.open("w") as out:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RUNTIME_DIRECTORY": str(tmp_path / "run")}
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal",
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        assert _wait(lambda: socket.exists() and _status(socket)["round"] is not None, 30), log.read_text()[-2000:]
        filler = _fill(small_disk)
        assert _wait(lambda: not _status(socket)["journal_writable"], 20), log.read_text()[-2000:]
        stopped = _status(socket)
        assert "full" in stopped["journal_error"]
        time.sleep(1.0)
        assert station.poll() is None  # never exits on it
        assert _status(socket)["round"] == stopped["round"]  # nothing moves while nothing can be journaled
        filler.unlink()
        assert _wait(lambda: _status(socket)["journal_writable"], 10)
        before = stopped["round"]
        assert _wait(lambda: _status(socket)["round"] != before, 15), log.read_text()[-2000:]
    finally:
        station.send_signal(signal.SIGTERM)
        code = station.wait(30)
    assert code == 0, log.read_text()[-3000:]
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    events = [line["event"] for line in lines]
    assert "core.journal_unwritable" in events and "core.journal_writable" in events
    verified = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal", str(journal)],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "intact" in verified.stdout, verified.stdout + verified.stderr
    assert "Traceback" not in log.read_text()
