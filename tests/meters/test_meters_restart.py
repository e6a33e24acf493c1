"""The meters after a SIGKILL: a real ``station run`` plays on after a generated week, is killed
mid-play and started again; ``station meters`` then equals the independent computation from
``station journal export`` (tests/meters/independent.py) and a reading of every record, and it
reads from a meters checkpoint the restarted station wrote, whose chain runs back across the
kill to the week's first."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.journal import JournalReader
from station.meters.checkpoint import METERS_CHECKPOINT
from station.service.control import request

from ..station_run import control_section, start_station_run
from ..waiting import wait_until
from .conftest import WithMeters
from .independent import by_day, compute
from .test_meters_week import compare
from .week import play_week, run_config

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SUPERVISOR_TOKEN = "meters-supervisor"


def records(journal: Path) -> int:
    with JournalReader(journal) as reader:
        return reader.head()[0]


def meters_checkpoints(journal: Path) -> list[int]:
    with JournalReader(journal) as reader:
        return [record.seq for record in reader.of_kind(METERS_CHECKPOINT)]


class Station:
    """``station run`` on the week's journal, its supervisor on the control socket."""

    def __init__(self, folder: Path, journal: Path) -> None:
        self.folder, self.journal = folder, journal
        self.socket = folder / "control.sock"
        self.config = run_config(folder, journal, control_section(self.socket, "meters-dealer", SUPERVISOR_TOKEN))
        self.log = folder / "station.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> dict[str, Any]:
        self.process = start_station_run(self.config, self.folder, self.log)
        return wait_until(self._status, 60, f"the station's control socket (log: {self.log})")

    def _status(self) -> dict[str, Any] | None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"station exited {self.process.returncode}:\n{self.log.read_text()[-3000:]}")
        try:
            reply = request(self.socket, SUPERVISOR_TOKEN, "status", {})
        except Exception:
            return None
        status: dict[str, Any] = reply["result"]
        return status if status.get("state") != "starting" else None

    def supervise(self, command: str) -> None:
        reply = request(self.socket, SUPERVISOR_TOKEN, command, {})
        assert reply["ok"], reply

    def stop(self, sig: int) -> None:
        assert self.process is not None
        self.process.send_signal(sig)
        self.process.wait(60)
        self.process = None

    def kill_if_running(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def report(capsys: pytest.CaptureFixture[str], journal: Path, *extra: str) -> dict[str, Any]:
    assert main(["meters", "--journal", str(journal), "--day", "all", "--json", *extra]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def test_after_a_sigkill_and_a_restart_the_meters_equal_the_independent_computation(tmp_path, capsys) -> None:
    meters = WithMeters()
    journal, _, week = play_week(tmp_path, rounds_per_stretch=4, prepare=meters)
    station = Station(tmp_path, journal)
    try:
        assert station.start()["state"] == "paused"  # the week ended with the table paused for the night
        station.supervise("resume")
        played = records(journal)
        wait_until(lambda: records(journal) > played + 250, 120, "some twenty rounds of the simulated dealer")
        station.stop(signal.SIGKILL)
        killed_at = records(journal)
        station.start()
        wait_until(lambda: any(seq > killed_at for seq in meters_checkpoints(journal)), 240,
                   "a meters checkpoint of the restarted station")
        wait_until(lambda: records(journal) > killed_at + 100, 60, "play after the restart")
        station.stop(signal.SIGTERM)
    finally:
        station.kill_if_running()
    capsys.readouterr()
    quick = report(capsys, journal)
    assert quick["read"]["checkpoint"] > killed_at  # read from the restarted station's checkpoint
    target = tmp_path / "export.jsonl"
    assert main(["journal", "export", "--journal", str(journal), "-o", str(target)]) == 0
    compare(quick, by_day(compute(target.read_text().splitlines())))
    slow = report(capsys, journal, "--from-start")
    assert {**quick, "read": None} == {**slow, "read": None}
    after_week = sum(d["totals"]["rounds"] for d in quick["days"]) - week.rounds
    assert after_week > 20
