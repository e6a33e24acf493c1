"""Two test runs at once keep their own temporary folders: pruning old runs' folders never
removes the folder of a run still going (a CI run once lost its worker's folder to three
short runs started beside it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import RUN_LOCK, STARTING_S, new_run_folder, prune_runs, run_is_live

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
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(live / RUN_LOCK)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        aged(live, 10 * STARTING_S)
        finished = []
        for n in range(5):
            folder = tmp_path / f"dst-done{n}"
            folder.mkdir()
            (folder / RUN_LOCK).touch()  # its run ended: nobody holds the lock
            finished.append(aged(folder, 100 + n))
        assert run_is_live(live) and not run_is_live(finished[0])
        removed = prune_runs(tmp_path, keep=2)
        assert live.exists()
        assert sorted(removed) == sorted(finished[2:])  # the oldest three of the finished ones
        assert [p for p in finished if p.exists()] == finished[:2]
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
