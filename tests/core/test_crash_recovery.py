"""Crash recovery with real processes: SIGKILL at random points, restart, same final state.

A child process (``crash_child.py``) plays a deterministic session through the core loop and
a real journal. The parent kills it again and again: from outside at random moments, and from
inside right after a journal append and before the appended events are applied. Each restart
replays the journal and feeds the rest. The final snapshot must equal that of an
uninterrupted run: no settlement lost, none applied twice.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.journal import JournalError
from station.journal.verify import verify

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

CHILD = Path(__file__).with_name("crash_child.py")


def _child_module() -> Any:
    spec = importlib.util.spec_from_file_location("core_crash_child", CHILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(inputs: Path, journal: Path, out: Path, *, crash_after: int = 0, kill_after: float | None = None,
         batch_seed: str = "1") -> int:
    env = dict(os.environ, CORE_CRASH_AFTER_APPEND=str(crash_after), CORE_CRASH_BATCH_SEED=batch_seed)
    proc = subprocess.Popen([sys.executable, str(CHILD), str(inputs), str(journal), str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    if proc.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"child failed with {proc.returncode}: {err.decode()[-2000:]}")
    return proc.returncode


def crash_until_done(tmp_path: Path, kills: int, seed: int, rounds: int) -> None:
    child = _child_module()
    inputs = tmp_path / "inputs.json"
    child.write_inputs(inputs, child.generate(seed, rounds, decks=4))
    reference_out = tmp_path / "reference.json"
    assert _run(inputs, tmp_path / "reference.sqlite3", reference_out) == 0
    reference = json.loads(reference_out.read_text())

    rng = random.Random(seed)
    journal, out = tmp_path / "crashed.sqlite3", tmp_path / "crashed.json"
    killed = 0
    while killed < kills:
        if rng.random() < 0.7:  # right after a journal append, before the events are applied
            code = _run(inputs, journal, out, crash_after=rng.randint(1, 6), batch_seed=str(killed))
        else:  # anywhere: during start-up, replay, an append, an application
            code = _run(inputs, journal, out, kill_after=rng.uniform(0.2, 1.0), batch_seed=str(killed))
        if code == 0 or out.exists():  # finished before the kill: start over so kills land mid-session
            assert json.loads(out.read_text()) == reference
            out.unlink()
            journal.unlink()
            for extra in ("-wal", "-shm"):
                Path(str(journal) + extra).unlink(missing_ok=True)
            continue
        killed += 1
        try:
            report = verify(journal)
        except JournalError as exc:  # killed during start-up, before the journal was created
            assert not journal.exists() or "empty file or database" in str(exc)
        else:
            assert report.ok, report.problem
    assert _run(inputs, journal, out) == 0
    final = json.loads(out.read_text())
    assert final["rounds_settled"] == reference["rounds_settled"]  # none lost, none twice
    assert final["rounds_voided"] == reference["rounds_voided"]
    assert final["house_net"] == reference["house_net"]
    assert final == reference


def test_the_session_is_rich_enough_to_mean_something() -> None:
    events = _child_module().generate(11, 45, decks=4)
    kinds = {e.kind for e in events}
    assert {"CutCardSeen", "SupervisorDecision", "DeviceFault", "BetPlaced"} <= kinds
    machine_rounds = sum(1 for e in events if e.kind == "DealerAction" and e.action == "confirm_cut")
    assert machine_rounds >= 2  # at least one shoe end and a second shoe


def test_twenty_kills_change_nothing(tmp_path: Path) -> None:
    crash_until_done(tmp_path, kills=20, seed=11, rounds=45)


@pytest.mark.soak
def test_two_hundred_kills_change_nothing(tmp_path: Path) -> None:
    crash_until_done(tmp_path, kills=200, seed=23, rounds=150)
