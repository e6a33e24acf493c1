"""The simulated table's process ends with the station, however the station ends, and stops
in order when it is itself told to stop. The real ``station run`` runs as a subprocess on the
default (simulated) configuration."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..waiting import wait_for_line, wait_for_logged, wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


class Running:
    def __init__(self, tmp_path: Path) -> None:
        self.log = tmp_path / "station.log"
        env = {**os.environ, "RUNTIME_DIRECTORY": str(tmp_path / "run"), "PYTHONPATH": str(ROOT)}
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "station", "run", "--journal", str(tmp_path / "journal.sqlite3")],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
        try:
            wait_for_line(self.log, "station_ready", 60)
        except BaseException:  # not ready: never leave the station behind the failing test
            self.process.kill()
            self.process.wait(10)
            raise
        self.table = int(wait_for_logged(self.log, "simulated_table_started", 10)[0]["pid"])


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    station = Running(tmp_path)
    try:
        yield station
    finally:
        for pid in (station.process.pid, station.table):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        station.process.wait(10)


def test_the_table_has_its_own_name_and_process_group(running: Running) -> None:
    title = Path(f"/proc/{running.table}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    assert title.startswith(f"station-sim-table (simulated devices and dealer of station {running.process.pid})")
    assert os.getpgid(running.table) == running.table != os.getpgid(running.process.pid)


def test_a_killed_station_takes_its_table_with_it(running: Running) -> None:
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait(10)
    wait_until(lambda: not _alive(running.table), 10, "the simulated table gone with its SIGKILLed station")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_table_stops_the_station_in_order(running: Running, sig: signal.Signals) -> None:
    os.kill(running.table, sig)
    assert running.process.wait(20) == 0
    wait_until(lambda: not _alive(running.table), 10, "the simulated table gone")
    log = running.log.read_text()
    assert f"the simulated table received {sig.name}" in log
    assert '"station_stopped"' in log and "Traceback" not in log


def test_a_station_whose_table_was_killed_stops_with_status_70(running: Running) -> None:
    """A part of the station that cannot go on stops it, and the stop must say so: 70 with one
    line on its output (systemd starts it again; a person sees why), never 0."""
    os.kill(running.table, signal.SIGKILL)
    assert running.process.wait(30) == 70
    log = running.log.read_text()
    assert "station run: stopped on an error: simulated dealer stopped: the simulated table's process ended" in log
    assert "Traceback" not in log


def test_the_next_start_removes_what_a_killed_station_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGKILL leaves the simulated table's pseudo-terminal folder behind (it cannot tidy
    up); the next start removes it, and an orderly stop leaves nothing (issue 24)."""
    temporary = tmp_path / "tmp"
    for folder in (temporary, tmp_path / "first", tmp_path / "second"):
        folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))  # where the stations make their folders
    first = Running(tmp_path / "first")
    left = sorted(temporary.glob("station-sim-*"))
    assert len(left) == 1 and (left[0] / "shoe").is_symlink(), left
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait(10)
    wait_until(lambda: not _alive(first.table), 10, "the first station's table gone")
    assert left[0].exists(), "a killed station has no chance to remove its table's folder"
    second = Running(tmp_path / "second")
    try:
        now = sorted(temporary.glob("station-sim-*"))
        assert left[0] not in now and len(now) == 1, now
    finally:
        second.process.send_signal(signal.SIGTERM)
        assert second.process.wait(30) == 0
    wait_until(lambda: not _alive(second.table), 10, "the second station's table gone")
    assert sorted(temporary.glob("station-sim-*")) == []
