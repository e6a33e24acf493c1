"""The outbox's process: forked at the station's start, stepping back from the table, holding
no pipe it should not, restarted when it dies, gone when the station is.

Real ``station run`` processes (their simulated table included) and a real mosquitto; the
processes are looked at the way a technician would, through ``/proc``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..waiting import logged, wait_for_logged, wait_until
from .helpers import (
    ROOT,
    Broker,
    Subscriber,
    expected_feed,
    first_occurrences,
    floor_config,
    run_station,
    sequenced,
    station_env,
)

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")]


def _json_config(path: Path, broker_url: str, **options: Any) -> Path:
    config = floor_config(path, broker_url, **options)
    config.write_text(config.read_text().replace('log_format = "auto"', 'log_format = "json"'))
    return config


def _parent(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for whoever adopted it to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _ignores(pid: int, signum: int) -> bool:
    """Whether ``pid`` ignores ``signum`` (its SigIgn mask in /proc)."""
    mask = next(line.split()[1] for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("SigIgn:"))
    return bool(int(mask, 16) >> (signum - 1) & 1)


def _pipes(pid: int) -> set[str]:
    pipes = set()
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        if target.startswith("pipe:"):
            pipes.add(target)
    return pipes


def _holders(pipe: str) -> set[int]:
    """Every process that has ``pipe`` open (that this user may look into)."""
    holders = set()
    for folder in Path("/proc").iterdir():
        if folder.name.isdigit():
            try:
                if pipe in _pipes(int(folder.name)):
                    holders.add(int(folder.name))
            except OSError:
                continue
    return holders


def test_the_outbox_is_forked_steps_back_and_is_restarted_when_it_dies(tmp_path: Path, broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = _json_config(tmp_path / "station.toml", broker.url, pace_ms=5)
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    try:
        subscriber.wait_for(lambda s: len(s.kind("round")) >= 5, 60, "the first rounds")
        first = wait_for_logged(log, "floor_outbox_started", 60)[0]
        assert first["method"] == "fork"
        outbox = first["pid"]
        assert _parent(outbox) == process.pid
        assert os.sched_getscheduler(outbox) == os.SCHED_BATCH
        assert _ignores(outbox, signal.SIGTERM) and _ignores(outbox, signal.SIGHUP)
        # The simulated table was forked after the outbox: it must not hold the outbox's pipes.
        table = wait_for_logged(log, "simulated_table_started", 60)[0]["pid"]
        for pipe in _pipes(outbox):
            assert _holders(pipe) <= {process.pid, outbox}, f"{pipe} is held by another process"
        assert _alive(table)

        os.kill(outbox, signal.SIGKILL)
        exited = wait_for_logged(log, "floor_outbox_exited", 60)[0]
        assert exited["pid"] == outbox and exited["status"] == -signal.SIGKILL
        second = wait_for_logged(log, "floor_outbox_started", 30, count=2)[1]
        assert second["method"] == "spawn" and second["pid"] != outbox
        wait_until(lambda: os.sched_getscheduler(second["pid"]) == os.SCHED_BATCH, 10, "the new outbox to step back")
        wait_until(lambda: _ignores(second["pid"], signal.SIGTERM), 10,
                   "the new outbox to leave its stop to the station")
        rounds_then = len(subscriber.kind("round"))
        subscriber.wait_for(lambda s: len(s.kind("round")) >= rounds_then + 20, 60, "rounds after the restart")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    expected = expected_feed(journal, "BAC-01")
    subscriber.wait_for(lambda s: len(first_occurrences(sequenced(s))[0]) >= len(expected), 30, "the drain at stop")
    subscriber.close()
    firsts, _ = first_occurrences(sequenced(subscriber))
    assert firsts == expected, "a message was lost (or invented) across the outbox's restart"
    wills = [m for m in subscriber.kind("status") if m["status"] == "offline" and m["reason"] == "connection lost"]
    assert wills, "the killed outbox's last will was not published"


def test_the_outbox_leaves_when_the_station_is_killed(tmp_path: Path, broker: Broker) -> None:
    config = _json_config(tmp_path / "station.toml", broker.url, pace_ms=5)
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    try:
        wait_for_logged(log, "floor_connected", 60)
        outbox = wait_for_logged(log, "floor_outbox_started", 60)[0]["pid"]
        table = wait_for_logged(log, "simulated_table_started", 60)[0]["pid"]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    wait_until(lambda: not _alive(outbox), 10, "the outbox to leave after its station")
    wait_until(lambda: not _alive(table), 10, "the simulated table to leave after its station")
    assert logged(log, "floor_outbox_orphaned")


SCRIPT = """
import sys
from station.floor.process import fork_outbox
prepared = fork_outbox()
assert prepared is not None, "a process without threads forks its outbox"
assert prepared.process.poll() is None, "the outbox waits for its description"
prepared.discard()
print(prepared.process.returncode)
"""


def test_an_outbox_forked_for_a_station_that_never_started_its_feed_leaves() -> None:
    """The station forks the outbox first thing; when it then cannot start (a journal of other
    rules, a metrics port in use), ``Station.close`` discards it: the outbox reads end-of-file
    before its description and exits 0."""
    shown = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "0"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_to_the_whole_process_group_still_drains_the_outbox(
        tmp_path: Path, broker: Broker, signum: int) -> None:
    """``timeout``, a closed terminal and some supervisors signal every process of the group:
    the outbox must not die of it, but finish its drain when the station stops (issue 24),
    the stop anchor included."""
    from station.journal import JournalReader

    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = _json_config(tmp_path / "station.toml", broker.url, pace_ms=5)
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    with log.open("a") as out:
        process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal",
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)  # a group of its own, as under `timeout`
    try:
        subscriber.wait_for(lambda s: len(s.kind("round")) >= 5, 60, "the first rounds")
        outbox = wait_for_logged(log, "floor_outbox_started", 60)[0]["pid"]
        assert os.getpgid(outbox) == process.pid, "the outbox is in the station's process group"
        os.killpg(process.pid, signum)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert not logged(log, "floor_outbox_exited") and not logged(log, "floor_outbox_killed"), "the outbox died"
    expected = expected_feed(journal, "BAC-01")
    subscriber.wait_for(lambda s: len(first_occurrences(sequenced(s))[0]) >= len(expected), 30, "the drain at stop")
    with JournalReader(journal) as reader:
        last = reader.last()
    assert last is not None
    subscriber.wait_for(lambda s: any(a["reason"] == "stop" and a["seq"] == last.seq for a in s.kind("anchor")),
                        30, "the stop anchor")
    subscriber.close()
    firsts, _ = first_occurrences(sequenced(subscriber))
    assert firsts == expected, "the last records did not reach the broker"
