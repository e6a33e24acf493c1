"""The systemd unit verifies, is hardened, and sd_notify speaks the real protocol."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from station.host.systemd_notify import Notifier

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "dealing-station.service"


def test_unit_has_required_settings() -> None:
    text = UNIT.read_text()
    for setting in (
        "Type=notify", "WatchdogSec=", "Restart=on-failure", "User=dealing-station",
        "StateDirectory=dealing-station", "ConfigurationDirectory=dealing-station",
        "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "DevicePolicy=closed",
        "DeviceAllow=char-ttyUSB rw", "RestrictAddressFamilies=", "SupplementaryGroups=dialout",
    ):
        assert setting in text, setting


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    # verify checks that ExecStart exists, so point it at this checkout's station script.
    station = Path(sys.executable).with_name("station")
    assert station.exists()
    unit = tmp_path / "dealing-station.service"
    unit.write_text(UNIT.read_text().replace("/opt/dealing-station/bin/station", str(station)))
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_notifier_sends_datagrams(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(path))
    receiver.settimeout(5)
    env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(env)
    assert notifier.watchdog_interval_s == 5.0
    assert notifier.ready("betting open")
    assert receiver.recv(4096) == b"READY=1\nSTATUS=betting open"
    assert notifier.watchdog()
    assert receiver.recv(4096) == b"WATCHDOG=1"
    notifier.close()
    receiver.close()


def test_watchdog_for_another_pid_is_ignored() -> None:
    notifier = Notifier({"NOTIFY_SOCKET": "/nonexistent", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"})
    assert notifier.watchdog_interval_s == 0
    assert not notifier.watchdog()


def test_without_systemd_everything_is_a_no_op() -> None:
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready("x") and not notifier.watchdog()


def test_station_run_speaks_sd_notify(tmp_path: Path) -> None:
    """READY=1 after replay and self-tests, STATUS= with the table state, WATCHDOG=1 from the
    loop while it runs, STOPPING=1 on SIGTERM, and a clean exit."""
    import signal
    import time

    notify = tmp_path / "notify.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(notify))
    receiver.settimeout(30)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify), "WATCHDOG_USEC": "600000",
           "STATION_JOURNAL": str(tmp_path / "journal.sqlite3"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen([sys.executable, "-m", "station", "run"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        messages: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum(m == "WATCHDOG=1" for m in messages) < 3:
            messages.append(receiver.recv(4096).decode())
        ready = next(m for m in messages if m.startswith("READY=1"))
        assert "STATUS=shuffling: shuffle the cards" in ready
        assert messages.index(ready) < messages.index("WATCHDOG=1")
        assert any(m.startswith("STATUS=") and m != ready for m in messages), "status follows the table"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        rest = []
        receiver.settimeout(1)
        try:
            while True:
                rest.append(receiver.recv(4096).decode())
        except TimeoutError:
            pass
        assert "STOPPING=1" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
        receiver.close()


def test_log_lines_are_json_with_shoe_and_round_ids(tmp_path: Path) -> None:
    """Under journald (stdout not a terminal) every line is one JSON object; lines logged by
    the core loop during a round carry its shoe and round ids."""
    import json

    run = subprocess.run(
        [sys.executable, "-m", "station", "demo", "--rounds", "3", "--fast", "-v", "--json",
         "--journal", str(tmp_path / "j.sqlite3")],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    assert lines and all("event" in line and "level" in line and "timestamp" in line for line in lines)
    settled = [line for line in lines if line["event"] == "round_settled"]
    assert [(line["shoe"], line["round"]) for line in settled] == [(1, "1-1"), (1, "1-2"), (1, "1-3")]
