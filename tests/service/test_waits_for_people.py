"""``station run`` on the default simulated hardware waits for people: a supervisor's pause, a
dealer's call for the supervisor (and a restart during it), and a full disk under the journal
each hold the table for as long as they last, and the simulated dealer goes on once the
person has acted (through the control socket, as a console would).

Each wait is four of the dealer's patiences long: the 60 s of four default patiences of 15 s
(``[dealer] patience_ms``). The default run sets the patience to 250 ms, so it waits 1 s; the
dealer is the only part of the station that measures how long the table has stood still, and
it counts those 1 s in the same patiences, each one logged (a demo's dealer stops at the
first: ``tests/sim/test_dealer_waits.py``). ``-m soak`` runs the same tests with the default
patience, each waiting the real 60 s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from station.service.control import ControlError, request

from ..small_disk import fill
from ..station_run import control_section, start_station_run
from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
DEALER, SUPERVISOR = "dealer-token-for-waits", "supervisor-token-for-waits"
#: The dealer's patience people get (``[dealer] patience_ms``'s default), and the waits of the issue.
DEFAULT_PATIENCE_MS = 15_000
PATIENCES = 4  # 4 x 15 s = 60 s
SHORT_PATIENCE_MS = 250

patience = pytest.mark.parametrize("patience_ms", [
    pytest.param(SHORT_PATIENCE_MS, id="short"),
    pytest.param(DEFAULT_PATIENCE_MS, id="60s", marks=pytest.mark.soak),
])


@dataclass
class Station:
    """A ``station run`` of the default configuration, its log and its control socket."""

    directory: Path
    config: Path
    socket: Path
    log: Path
    patience_s: float
    process: subprocess.Popen[bytes] | None = None
    log_mark: int = 0  # the log's length when this run started

    def start(self) -> None:
        self.log_mark = self.log.stat().st_size if self.log.exists() else 0
        self.process = start_station_run(self.config, self.directory, self.log)
        self.wait_for(lambda s: s["round"] is not None, 60, "the table to deal")

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(30)
        self.process = None
        return code

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ctl(self, command: str, args: dict[str, Any] | None = None, token: str = SUPERVISOR) -> dict[str, Any]:
        return dict(request(self.socket, token, command, args or {}))

    def status(self) -> dict[str, Any]:
        reply = self.ctl("status")
        assert reply.get("ok"), reply
        return dict(reply["result"])

    def wait_for(self, done: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            assert self.alive(), f"the station exited while waiting for {what}:\n{self.tail()}"
            status = self.status()
            return status if done(status) else None

        # A ControlError: the socket is not there yet.
        return wait_until(reached, timeout, what, ignoring=(ControlError,), detail=self.tail)

    def log_records(self) -> list[dict[str, Any]]:
        """This run's JSON log lines (the table's process writes to the same log)."""
        with self.log.open("rb") as f:
            f.seek(self.log_mark)
            lines = f.read().decode(errors="replace").splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def waited(self, waiting_for: str) -> float:
        """The longest wait the simulated dealer has logged in this run, for a person or for
        the station; 0 when it has logged none."""
        return max((r["waited_s"] for r in self.log_records()
                    if r.get("event") == "simulated_dealer_waiting" and r.get("waiting_for") == waiting_for),
                   default=0.0)

    def hold_for_four_patiences(self, waiting_for: str) -> dict[str, Any]:
        """Until the dealer has waited four patiences (60 s at the default), with the station
        running and standing where it stopped all along; returns where it stands."""
        before = self.status()
        wanted = PATIENCES * self.patience_s

        def dealer_waited() -> bool:
            assert self.alive(), f"the station exited while a person was needed:\n{self.tail()}"
            return self.waited(waiting_for) >= wanted

        wait_until(dealer_waited, wanted * 3 + 30, f"the dealer to say it waited {wanted:g} s for {waiting_for}",
                   poll=min(1.0, self.patience_s), detail=self.tail)
        assert self.alive()
        now = self.status()
        assert (now["state"], now["round"]) == (before["state"], before["round"]), "the table moved by itself"
        return now

    def goes_on(self, after: dict[str, Any]) -> None:
        """The table deals on: a round after the one it stood in is played."""
        self.wait_for(lambda s: s["round"] != after["round"] and s["state"] not in ("paused", "irregularity"),
                      60, f"a round after {after['round']}")
        assert any(r.get("event") == "simulated_dealer_goes_on" for r in self.log_records()), self.tail()


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Callable[..., Station]]:
    made: list[Station] = []

    def make(patience_ms: int, journal: Path | None = None) -> Station:
        default = (ROOT / "config" / "station.toml").read_text()
        text = default.replace("pace_ms = 1500", "pace_ms = 20")
        if patience_ms != DEFAULT_PATIENCE_MS:  # the soak runs what people get: the key left out
            text = text.replace("pace_ms = 20", f"pace_ms = 20\npatience_ms = {patience_ms}")
        socket = tmp_path / "control.sock"
        journal = journal or tmp_path / "journal.sqlite3"
        text = text.replace('journal = ""', f'journal = "{journal}"')
        text = text.split("[control]")[0] + control_section(socket, DEALER, SUPERVISOR)
        config = tmp_path / "station.toml"
        config.write_text(text)
        made.append(Station(tmp_path, config, socket, tmp_path / "station.log", patience_ms / 1000))
        return made[-1]

    yield make
    for each in made:
        if each.process is not None and each.process.poll() is None:
            each.process.kill()
            each.process.wait(10)


def applied(reply: dict[str, Any]) -> bool:
    return bool(reply.get("ok")) and str(reply.get("result", "")).startswith("applied")


@patience
def test_a_pause_holds_the_table_until_the_supervisor_resumes(station: Callable[..., Station],
                                                             patience_ms: int) -> None:
    table = station(patience_ms)
    table.start()
    # Pausing is refused with cards in flight; the supervisor asks again between rounds.
    wait_until(lambda: applied(table.ctl("pause", {"reason": "fill the float"})), 30, "a pause applied between rounds",
               poll=0.005, detail=table.tail)
    table.wait_for(lambda s: s["state"] == "paused", 10, "the pause")
    held = table.hold_for_four_patiences("a person")
    assert "sam" in held["expecting"]
    assert applied(table.ctl("resume")), table.tail()
    table.goes_on(held)
    assert table.stop() == 0, table.tail()


@patience
def test_a_supervisor_call_holds_the_table_across_a_restart_until_decided(station: Callable[..., Station],
                                                                        patience_ms: int) -> None:
    table = station(patience_ms)
    table.start()
    assert applied(table.ctl("action", {"action": "call_supervisor"}, token=DEALER)), table.tail()
    table.wait_for(lambda s: s["state"] == "irregularity", 10, "the call")
    held = table.hold_for_four_patiences("a person")
    assert table.stop() == 0, table.tail()  # restarted while the supervisor is on the way

    table.start()
    assert table.status()["state"] == "irregularity"
    again = table.hold_for_four_patiences("a person")
    assert again["round"] == held["round"]
    assert applied(table.ctl("decide", {"decision": "resume"})), table.tail()
    table.goes_on(again)
    assert table.stop() == 0, table.tail()


@patience
def test_a_full_disk_holds_the_table_until_there_is_space(station: Callable[..., Station], small_disk: Path,
                                                         patience_ms: int) -> None:
    table = station(patience_ms, journal=small_disk / "journal.sqlite3")
    table.start()
    filler = fill(small_disk)
    table.wait_for(lambda s: not s["journal_writable"], 30, "the journal to be full")
    held = table.hold_for_four_patiences("the station")
    assert not table.status()["journal_writable"]
    filler.unlink()  # the technician makes room
    table.goes_on(held)
    assert table.stop() == 0, table.tail()
    verified = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal",
                               str(small_disk / "journal.sqlite3")], capture_output=True, text=True, timeout=60,
                              env={**os.environ})
    assert verified.returncode == 0 and "intact" in verified.stdout, verified.stdout + verified.stderr
