"""The service's device lock, exercised across real processes (flock is per open file, so a
second process is the honest test)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from station.service.holder import DeviceBusy, ServiceHolder, read_holder, read_holders, refuse_if_held

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from station.service.holder import ServiceHolder
    holder = ServiceHolder(Path(sys.argv[1]))
    holder.acquire({"shoe": "/dev/dealing-station/shoe"})
    if sys.argv[2] == "live":
        holder.update(round_live=True, state="dealing")
    print("held", flush=True)
    sys.stdin.readline()
    """
)


def _hold(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_held_device_is_refused_and_others_allowed(tmp_path: Path) -> None:
    child = _hold(tmp_path, "idle")
    try:
        with pytest.raises(DeviceBusy, match=r"holds the shoe .*stop it first: "):
            refuse_if_held("shoe", "/dev/dealing-station/shoe", tmp_path)
        refuse_if_held("display", "/dev/dealing-station/display", tmp_path)
        with pytest.raises(DeviceBusy, match="already running"):
            ServiceHolder(tmp_path).acquire({})
    finally:
        child.communicate("\n", timeout=10)


def test_live_round_refuses_everything(tmp_path: Path) -> None:
    child = _hold(tmp_path, "live")
    try:
        with pytest.raises(DeviceBusy, match="a round is live"):
            refuse_if_held("display", "/dev/dealing-station/display", tmp_path)
    finally:
        child.communicate("\n", timeout=10)


def test_leftover_file_of_a_dead_service_is_ignored(tmp_path: Path) -> None:
    child = _hold(tmp_path, "live")
    child.kill()
    child.wait(timeout=10)
    assert [p.name for p in tmp_path.glob("station*.lock")] == ["station.lock"]
    assert read_holder(tmp_path) is None
    refuse_if_held("shoe", "/dev/dealing-station/shoe", tmp_path)


def test_stations_with_different_journals_hold_side_by_side(tmp_path: Path) -> None:
    """Each station's holder file is named after its journal: two tables served from one
    machine never refuse each other, and a diagnostic sees both."""
    first = ServiceHolder(tmp_path, journal=tmp_path / "a" / "journal.sqlite3")
    second = ServiceHolder(tmp_path, journal=tmp_path / "b" / "journal.sqlite3")
    first.acquire({"shoe": "/dev/dealing-station/shoe-a"})
    try:
        second.acquire({"shoe": "/dev/dealing-station/shoe-b"})
        try:
            assert sorted(h.journal for h in read_holders(tmp_path)) == [
                str(tmp_path / "a" / "journal.sqlite3"), str(tmp_path / "b" / "journal.sqlite3")]
            with pytest.raises(DeviceBusy, match="shoe-b"):
                refuse_if_held("shoe-b", "/dev/dealing-station/shoe-b", tmp_path)
        finally:
            second.release()
    finally:
        first.release()
