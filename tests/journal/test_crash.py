"""A real writer process killed with SIGKILL mid-append leaves a journal that verifies.

The journal's promise to the state machine is: when append returns, the record is on disk,
and a group is all-or-nothing. SIGKILL is the harshest crash a test can cause here without
cutting the power (which the WAL with synchronous=FULL is there for, and which no test on
this machine can simulate honestly).
"""

from __future__ import annotations

import importlib.util
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from station.journal import Journal
from station.journal.verify import verify

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

WRITER = Path(__file__).with_name("crash_writer.py")


def _writer_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("journal_crash_writer", WRITER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


writer = _writer_module()


def run_and_kill(path: Path, seed: int, acks: int, *, verify_while_running: bool = False) -> int:
    """Start the writer, wait for ``acks`` acknowledged groups, SIGKILL it; return the last acked seq."""
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    last_seq = 0
    try:
        for n in range(acks):
            line = proc.stdout.readline() if proc.stdout else ""
            if not line:
                proc.wait(timeout=10)
                raise AssertionError(f"writer died early: {proc.stderr.read() if proc.stderr else ''}")
            last_seq = int(line.split()[1])
            if verify_while_running and n % 25 == 24:
                report = verify(path)  # a reader beside a live writer sees a consistent snapshot
                assert report.ok, report.problem
                assert report.last_seq >= last_seq
        time.sleep(random.Random(seed).uniform(0, 0.004))  # land the kill at varied points
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    assert proc.returncode == -signal.SIGKILL
    return last_seq


def check_survivor(path: Path, acked_seq: int, since: int = 0) -> int:
    """The journal verifies, holds every acknowledged record and ends on a complete group.

    Payloads are compared from ``since`` (a group boundary already checked) to the end.
    """
    report = verify(path)
    assert report.ok, report.problem
    assert report.last_seq >= acked_seq
    assert report.records == report.last_seq
    with Journal(path) as journal:
        records = list(journal.records(since_seq=since))
    at = 0
    while at < len(records):
        first = records[at].payload
        size = first["size"]
        group = records[at : at + size]
        assert first["index"] == 0, f"record {records[at].seq} does not start a group"
        assert len(group) == size, f"torn group {first['group']}: {len(group)} of {size} records"
        for index, record in enumerate(group):
            assert record.payload == writer.payload(first["group"], index, size)
        at += size
    return report.last_seq


def test_sigkill_mid_append_leaves_a_verifiable_complete_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    total = 0
    for round_, acks in enumerate((60, 137, 90)):
        acked = run_and_kill(path, seed=round_, acks=acks, verify_while_running=round_ == 0)
        total = check_survivor(path, acked, since=total)
    # After the crashes the station reopens the journal and the chain simply continues.
    with Journal(path) as journal:
        record = journal.append("Restarted", {"after": total})
    assert record.seq == total + 1
    assert verify(path).ok


@pytest.mark.soak
@pytest.mark.timeout(3600)
def test_sigkill_soak(tmp_path: Path) -> None:
    """60 kills, ten per journal (a fresh file every ten keeps the full verification cheap)."""
    rng = random.Random(20261129)
    total = 0
    for round_ in range(60):
        if round_ % 10 == 0:
            path, total = tmp_path / f"journal-{round_ // 10}.sqlite3", 0
        acked = run_and_kill(path, seed=round_, acks=rng.randint(1, 400), verify_while_running=round_ % 10 == 0)
        total = check_survivor(path, acked, since=total)
