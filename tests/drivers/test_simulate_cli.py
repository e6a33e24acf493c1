"""``station simulate`` in a real subprocess: it prints where to connect and runs until Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from drivers.devices import ShoeDriver
from station import events as ev

from .helpers import FAST, Recorder

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def _start(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "simulate", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "ready: connect to " in first, (
        first + (proc.stderr.read() if proc.stderr and proc.poll() is not None else "")
    )
    return proc, first.rsplit("connect to ", 1)[1].strip()


def test_simulated_shoe_by_hand_serves_a_driver_and_stops_on_ctrl_c() -> None:
    proc, url = _start("shoe", "--stack", "AS 9H CUT KD", "--quiet", "--ack-timeout", "0.05")
    rec = Recorder()
    driver = ShoeDriver("shoe", url, rec, settings=FAST)
    try:
        assert driver.start(10)
        assert driver.identify().model == "SIM-SHOE-1"
        assert proc.stdin is not None
        proc.stdin.write("draw 3\n")
        proc.stdin.flush()
        rec.wait_kind(ev.CutCardSeen)
        assert [e.card.code for e in rec.of(ev.CardDrawn)] == ["AS", "9H"]
    finally:
        driver.stop()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0


def test_bad_stack_is_a_clear_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "station", "simulate", "shoe", "--stack", "AS ZZ"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "ZZ" in result.stderr


def test_a_missing_folder_for_the_pty_link_is_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "station", "simulate", "shoe", "--dir", "/missing-folder-for-test"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert "--dir /missing-folder-for-test: no such folder" in result.stderr
