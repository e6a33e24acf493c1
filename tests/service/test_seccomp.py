"""The unit's system call filter and the code agree (issue 24): the station and its children
run under the filter ``systemd/dealing-station.service`` asks of systemd.

Under systemd a system call the unit's ``SystemCallFilter=`` forbids kills the process with
SIGSYS, and no ``except`` can catch that. The station and its children make four calls of
the ``@resources`` group, which the unit removes: the floor outbox and the web scoreboard step
back from the table (``sched_setscheduler``, ``setpriority``), the simulated table and the
station take CPUs apart (``sched_setaffinity``), and numpy's OpenBLAS, loaded by the integrity
monitor, sets its buffers' memory policy (``mbind``). So this test runs ``station run`` with
its floor outbox, its web scoreboard and its simulated table under the unit's own filter
(``tests/seccomp_filter.py``: expanded by ``systemd-analyze``, loaded with libseccomp, with
systemd's default action of killing the process) until they deal, then stops it.

The filter without the unit's line that lets those calls through is run too, and must kill a
child: the proof that the harness sees a disagreement. Not checked here: the rest of the
sandbox (``ProtectSystem=``, ``PrivateTmp=`` and the rest need systemd as PID 1, which this
machine does not run); ``tests/service/test_systemd.py`` has ``systemd-analyze verify``
accept the unit.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ..floor.helpers import MOSQUITTO, Broker, floor_config, free_port, station_env
from ..seccomp_filter import NEEDS_SECCOMP, filter_lines, filtered, unit_filter
from ..waiting import tail, wait_until

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "dealing-station.service"
#: The unit's line that lets the station's scheduling calls (and OpenBLAS's mbind) through.
SCHEDULING_LINE = "SystemCallFilter=sched_setscheduler setpriority sched_setaffinity mbind"


pytestmark = [
    pytest.mark.e2e,
    *NEEDS_SECCOMP,
    pytest.mark.skipif(not MOSQUITTO.exists(), reason="needs Debian's mosquitto (the floor outbox's broker)"),
]


def unit_lines() -> list[str]:
    return filter_lines(UNIT)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that has just ended
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


#: What root does that the service's user never does: SQLite hands each file it makes to the
#: database's owner (``fchown``) when it runs as root. The unit forbids it (``@privileged``
#: holds ``@chown``); run as root, the test lets this one call through, and nothing else.
AS_ROOT_ONLY = {"fchown"}


def _run_filtered(tmp_path: Path, allowed: set[str], broker: Broker) -> tuple[subprocess.Popen[str], Path]:
    """``station run`` under the filter ``allowed``, with its floor feed, web scoreboard and
    simulated table."""
    if os.geteuid() == 0:
        allowed = allowed | AS_ROOT_ONLY
    port = free_port()
    config = floor_config(tmp_path / "station.toml", broker.url, pace_ms=5)
    text = config.read_text().replace('log_format = "auto"', 'log_format = "json"')
    assert "[web]\nenabled = false\n" in text and "\nport = 8080\n" in text
    config.write_text(text.replace("[web]\nenabled = false\n", "[web]\nenabled = true\n")
                      .replace("\nport = 8080\n", f"\nport = {port}\n"))
    log = tmp_path / "station.log"
    journal = tmp_path / "journal.sqlite3"
    command = [sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journal)]
    with log.open("a") as out:
        process = subprocess.Popen(filtered(tmp_path, allowed, command), stdout=out, stderr=subprocess.STDOUT,
                                   text=True, env=station_env(tmp_path), cwd=tmp_path)
    return process, log


def _events(log: Path, name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()
            if line.startswith("{") and f'"event": "{name}"' in line]


def test_the_station_and_its_children_run_under_the_units_filter(tmp_path: Path, broker: Broker) -> None:
    allowed = unit_filter(unit_lines())
    assert {"sched_setscheduler", "setpriority", "sched_setaffinity", "mbind"} <= allowed
    assert not {"setrlimit", "set_mempolicy", "migrate_pages", "reboot"} & allowed, "the rest of the denials stand"
    process, log = _run_filtered(tmp_path, allowed, broker)
    try:
        titles: dict[int, str] = {}

        def dealing() -> bool:
            assert process.poll() is None, f"the station died (status {process.returncode}): {tail(log)}"
            titles.clear()
            titles.update({pid: _title(pid) for pid in _children(process.pid)})
            return len(_events(log, "round_settled")) >= 3 and len(titles) >= 3

        wait_until(dealing, 90, "three rounds settled with the station's three children running", poll=0.2,
                   detail=lambda: f"children: {titles}\n{tail(log)}")
        kinds = " | ".join(titles.values())
        assert "station-scoreboard" in kinds and "station-sim-table" in kinds, kinds
        assert len(_events(log, "round_settled")) >= 3, "the table did not deal"
        outbox = next(pid for pid, title in titles.items() if "station-floor-outbox" in title)
        scoreboard = next(pid for pid, title in titles.items() if "station-scoreboard" in title)
        assert os.sched_getscheduler(outbox) == os.SCHED_BATCH
        assert os.sched_getscheduler(scoreboard) == os.SCHED_BATCH
        assert os.getpriority(os.PRIO_PROCESS, scoreboard) == 10
        assert not _events(log, "floor_outbox_exited") and not _events(log, "web_scoreboard_ended")
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_the_filter_as_it_was_kills_a_child_of_the_station(tmp_path: Path, broker: Broker) -> None:
    """Without the unit's scheduling line the same run loses a child to SIGSYS: the harness
    sees what systemd would do."""
    lines = unit_lines()
    assert SCHEDULING_LINE in lines
    allowed = unit_filter([line for line in lines if line != SCHEDULING_LINE])
    assert "sched_setscheduler" not in allowed
    process, log = _run_filtered(tmp_path, allowed, broker)
    try:
        wait_until(lambda: process.poll() is not None or _killed_children(log), 90,
                   "a child of the station killed by the filter (or the station itself)", poll=0.2,
                   detail=lambda: tail(log))
        assert _killed_children(log) or process.returncode == -signal.SIGSYS, log.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def _killed_children(log: Path) -> list[str]:
    """The children the station saw die of the filter: the outbox (its exit status) or the
    simulated table (it ends before it reports ready)."""
    text = log.read_text()
    killed = ["floor outbox" for entry in _events(log, "floor_outbox_exited") if entry.get("status") == -signal.SIGSYS]
    if "the simulated table stopped while starting" in text:
        killed.append("simulated table")
    return killed
