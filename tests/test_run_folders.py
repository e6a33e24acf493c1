"""Two test runs at once keep their own temporary folders: pruning old runs' folders never
removes the folder of a run still going (a CI run once lost its worker's folder to three
short runs started beside it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import STARTING_S, lock_of, new_run_folder, prune_runs, run_is_live

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


def aged(folder: Path, seconds: float) -> Path:
    when = time.time() - seconds
    os.utime(folder, (when, when))
    return folder


def test_a_run_still_going_keeps_its_folder_however_old(tmp_path: Path) -> None:
    live = tmp_path / "dst-live"
    live.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock_of(live))], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        aged(live, 10 * STARTING_S)
        finished = []
        for n in range(5):
            folder = tmp_path / f"dst-done{n}"
            folder.mkdir()
            lock_of(folder).touch()  # its run ended: nobody holds the lock
            finished.append(aged(folder, 100 + n))
        assert run_is_live(live) and not run_is_live(finished[0])
        removed = prune_runs(tmp_path, keep=2)
        assert live.exists()
        assert sorted(removed) == sorted(finished[2:])  # the oldest three of the finished ones
        assert [p for p in finished if p.exists()] == finished[:2]
        assert not any(lock_of(p).exists() for p in finished[2:])  # their lock files go with them
    finally:
        holder.communicate("")
    assert not run_is_live(live)  # the holder is gone, so is its lock
    prune_runs(tmp_path, keep=0)
    assert not live.exists()


def test_a_folder_just_made_is_left_alone_until_its_run_locks_it(tmp_path: Path) -> None:
    starting = tmp_path / "dst-starting"
    starting.mkdir()
    stale = tmp_path / "dst-stale"  # made before runs locked their folders, long finished
    stale.mkdir()
    aged(stale, 10 * STARTING_S)
    assert prune_runs(tmp_path, keep=0) == [stale]
    assert starting.exists()


def test_this_process_holds_the_folder_it_makes(tmp_path: Path) -> None:
    folder = new_run_folder(tmp_path)
    assert run_is_live(folder)
    assert prune_runs(tmp_path, keep=0) == []


def test_a_run_whose_folder_pytest_emptied_is_still_live_however_old(tmp_path: Path) -> None:
    """pytest empties its base folder when it first makes a temporary path: the run's lock,
    beside the folder, is still there and held, so another run never prunes it."""
    folder = new_run_folder(tmp_path)
    shutil.rmtree(folder)  # what pytest does to ``--basetemp`` on first use
    folder.mkdir()
    aged(folder, 10 * STARTING_S)
    assert run_is_live(folder) and prune_runs(tmp_path, keep=0) == [] and folder.exists()
