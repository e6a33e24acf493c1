"""A real ``station run`` of the shipped default configuration on its simulated table, as the
soak runs it, for the tests of the table's fault door: found and broken from outside.

The station runs with its own temporary folder (``TMPDIR``), so its table's folder is the only
one there: the tests that look for "the only live simulated table" are not confused by the
tables of other tests running beside them. The table's folder is read from the station's log
(``simulated_table_started``: the parent of the shoe's link), as a soak or a technician finds
it. A supervisor with a token decides what the faults make the table wait for.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from drivers.devices.link import BOOT_RESEND_WINDOW_S
from station.service.control import hash_token, request
from station.sim.faults import SOCKET_NAME

from ..shipped import runnable_copy, shipped
from ..station_run import start_station_run
from ..waiting import wait_until

SUPERVISOR = "supervisor-token-for-fault-tests"
#: A loaded machine (the suite beside other work) starts a station slowly: generous, never guessed.
START_S = 120.0
EVENT_S = 90.0

Record = tuple[int, dict[str, Any]]  # (place in the log, the JSON line)

#: What the supervisor decides when a fault stops the table: a device lost mid-round lets the
#: round go on once the device is back.
SUPERVISOR_DECIDES = {"device_fault": "resume"}
#: Play goes on: this many rounds settle after a fault.
ROUNDS_ON = 3
#: The simulated dealer's patience in these runs: it logs each wait of 0.5, 1, 2, 4, 8... s.
PATIENCE_MS = 500
#: A dealer who has waited this long for a station that needs nobody has stalled.
STALLED_S = 8.0


#: A supervisor's decision on the irregularity ``station ctl status`` shows ("" for none).
Supervisor = Callable[[dict[str, Any]], str]


def by_reason(problem: dict[str, Any]) -> str:
    """The supervisor of :data:`SUPERVISOR_DECIDES`: only what a fault is known to stop for."""
    return SUPERVISOR_DECIDES.get(problem["reason"], "")


def resume_else_void(problem: dict[str, Any]) -> str:
    """A supervisor who lets the round go on wherever the station offers that, and voids it
    otherwise (a soak's supervisor, who must keep any table going)."""
    return next((d for d in ("resume", "void") if d in problem["decisions"]), "")


class DealerAstray(AssertionError):
    """The simulated dealer, not the station, kept play from going on: it stalled while the
    station waited for it, or it drew a card the station did not call for."""


@contextlib.contextmanager
def temporary_folder(folder: Path) -> Iterator[None]:
    """``TMPDIR`` for the processes started inside (the station makes its table's folder there)."""
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = before


@dataclass
class FaultTable:
    """A running station, its simulated table's folder and fault door, and its log."""

    directory: Path
    temp: Path
    control: Path
    log: Path
    process: subprocess.Popen[bytes]
    folder: Path = field(default=Path())
    table_pid: int = 0
    decided: list[tuple[str, str]] = field(default_factory=list)  # (reason, decision) in order

    @property
    def door_path(self) -> Path:
        return self.folder / SOCKET_NAME

    # --- the log ---------------------------------------------------------------------------

    def mark(self) -> int:
        """Where the log ends now: records after it are what came after."""
        return self.log.stat().st_size

    def records(self, since: int = 0) -> list[Record]:
        """The whole JSON lines of the log after ``since`` (a line being written is left out)."""
        with self.log.open("rb") as f:
            f.seek(since)
            data = f.read()
        found, at = [], since
        for raw in data.split(b"\n")[:-1]:
            if raw.startswith(b"{"):
                with contextlib.suppress(ValueError):
                    found.append((at, json.loads(raw)))
            at += len(raw) + 1
        return found

    def wait_record(self, since: int, match: Callable[[dict[str, Any]], bool], what: str,
                    timeout: float = EVENT_S) -> Record:
        """The first record after ``since`` that matches, once it is there."""
        def found() -> Record | None:
            self.assert_running(what)
            return next((r for r in self.records(since) if match(r[1])), None)

        return self._wait(found, timeout, what)

    def _wait(self, predicate: Callable[[], Record | None], timeout: float, what: str) -> Record:
        """:func:`wait_until`, the log's tail added when the wait runs out."""
        try:
            return wait_until(predicate, timeout, what, poll=0.05)
        except AssertionError as exc:
            if not str(exc).startswith("waited"):
                raise
            raise AssertionError(f"{exc}\n{self.tail()}") from None

    def boot_would_be_new(self, device: str) -> None:
        """Wait until a Boot from ``device`` would be taken for a new power-up: the station
        takes a Boot with the SEQ of the Boot before it, within ``BOOT_RESEND_WINDOW_S`` of it,
        for a resend (docs/protocols/README.md, "Boot"), and a board sends nothing but Boots,
        all numbered 1. So a reboot just after the last one goes unseen, by design."""
        def last_boot() -> float:
            times = [r["timestamp"] for _, r in self.records() if r.get("device") == device and (
                r.get("event") == "device_boot" or str(r.get("message", "")).startswith("Boot("))]
            return max((datetime.fromisoformat(t).timestamp() for t in times), default=0.0)

        wait_until(lambda: time.time() - last_boot() > BOOT_RESEND_WINDOW_S + 0.5, BOOT_RESEND_WINDOW_S + 30,
                   f"the {device}'s last Boot to be older than the station's resend window", poll=0.2)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    # --- the station -------------------------------------------------------------------------

    def assert_running(self, what: str = "") -> None:
        assert self.process.poll() is None, f"the station exited ({self.process.returncode}) {what}:\n{self.tail()}"
        if self.table_pid:
            assert _alive(self.table_pid), f"the simulated table's process is gone {what}:\n{self.tail()}"

    def ctl(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return dict(request(self.control, SUPERVISOR, command, args or {}))

    def play_goes_on(self, since: int, rounds: int = ROUNDS_ON, decide: Supervisor | None = None,
                     timeout: float = EVENT_S, lost_cards: bool = False) -> Record:
        """``rounds`` rounds settled after ``since`` (the last is returned), the supervisor
        deciding what the fault stopped the table for, as a person at the table would
        (``decide``, by default :data:`SUPERVISOR_DECIDES`; each decision is kept in
        :attr:`decided`). Raises :class:`DealerAstray` when the simulated dealer stalls or draws
        a card the rules did not call for; a stop for anything else is a failure. After a fault
        that ``lost_cards`` (a shoe that rebooted with cards the dealer had slid out unreported:
        what a person at the table must sort out), such a card is decided (burned) like any
        other stop."""
        decide = decide or by_reason

        def settled() -> Record | None:
            self.assert_running("while waiting for play to go on")
            records = self.records(since)
            done = [r for r in records if r[1].get("event") == "round_settled"]
            if len(done) >= rounds:
                return done[rounds - 1]
            stalled = [r for _, r in records if r.get("event") == "simulated_dealer_waiting"
                       and r.get("waiting_for") == "the station" and r.get("waited_s", 0) >= STALLED_S]
            if stalled:
                raise DealerAstray(f"the simulated dealer stalled: {stalled[-1]}")
            problem = (self.ctl("status").get("result") or {}).get("irregularity")
            if problem is not None:
                astray = problem["reason"] in ("card_when_stand", "card_before_no_more_bets")
                if astray and not lost_cards:
                    raise DealerAstray(f"the simulated dealer drew a card not called for: {problem}")
                decision = "burn" if astray and "burn" in problem["decisions"] else decide(problem)
                assert decision in problem["decisions"], f"the table stopped for {problem}\n{self.tail()}"
                if self.ctl("decide", {"decision": decision, "detail": "fault door test"}).get("ok"):
                    self.decided.append((problem["reason"], decision))
            return None

        return self._wait(settled, timeout, f"{rounds} rounds settled after the fault")

    def stop(self) -> int:
        """SIGTERM, as systemd stops it; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(60)
        finally:
            self.kill()

    def kill(self) -> None:
        for pid in (self.process.pid, self.table_pid):
            if pid and _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)


def _alive(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def start_fault_table(directory: Path, temp: Path | None = None, config: str = "station") -> FaultTable:
    """``station run`` of a shipped configuration (``config/station.toml`` unless named: an
    example's name, ``batch-shuffler`` say), dealer at full speed, in ``directory``, its
    temporary folder ``temp`` (default ``directory/tmp``); returns once the table deals."""
    temp = temp or directory / "tmp"
    temp.mkdir(parents=True, exist_ok=True)
    source = shipped(config)
    users = tomllib.loads(source.read_text()).get("control", {}).get("users", [])
    users = [{**user, "token_sha256": hash_token(SUPERVISOR)} if user["role"] == "supervisor" else user
             for user in users]
    if not any(user["role"] == "supervisor" for user in users):
        users.append({"name": "sam", "role": "supervisor", "token_sha256": hash_token(SUPERVISOR)})
    copy = runnable_copy(source, directory,
                         extra={"control": {"users": users}, "dealer": {"patience_ms": PATIENCE_MS}})
    log = directory / "station.log"
    log.touch()
    with temporary_folder(temp):
        process = start_station_run(copy.config, directory, log)
    table = FaultTable(directory, temp, copy.control_socket, log, process)
    try:
        _, started = table.wait_record(0, lambda r: r.get("event") == "simulated_table_started",
                                       "the simulated table to start", START_S)
        table.table_pid = int(started["pid"])
        table.folder = Path(started["ports"]["shoe"]).parent
        table.wait_record(0, lambda r: r.get("event") == "round_settled", "the first round", START_S)
    except BaseException:
        table.kill()
        raise
    return table


def raw_lines(door: Path, payload: bytes, replies: int) -> list[dict[str, Any]]:
    """Send raw bytes to a door on one connection; its replies, one per line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(door))
        sock.sendall(payload)
        with sock.makefile("rb") as reader:
            return [json.loads(reader.readline()) for _ in range(replies)]


def run_cli(*args: str, temp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``station simulate fault ARGS`` as a script runs it (``temp``: its ``TMPDIR``)."""
    env = dict(os.environ)
    if temp is not None:
        env["TMPDIR"] = str(temp)
    return subprocess.run([sys.executable, "-m", "station", "simulate", "fault", *args], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
