"""The simulated table's folder and the sweep of what dead tables left (issue 24): a folder
whose lock a live process holds is kept, whatever its age; one whose owner died is removed;
one without the lock file (a simulator started some other way) is never touched. The owner
is a real second process: an ``flock`` is held per open file, and dropped when its process ends."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from station.sim.table_folder import LOCK_NAME, TableFolder, remove_dead_tables

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

OWNER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from station.sim.table_folder import TableFolder
    folder = TableFolder(Path(sys.argv[1]))
    print(folder.path, flush=True)
    sys.stdin.readline()
    """
)


def _owner(root: Path) -> tuple[subprocess.Popen[str], Path]:
    child = subprocess.Popen([sys.executable, "-c", OWNER, str(root)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, Path(child.stdout.readline().strip())


def test_only_the_folders_of_dead_tables_are_removed(tmp_path: Path) -> None:
    live, live_folder = _owner(tmp_path)
    dead, dead_folder = _owner(tmp_path)
    dead.kill()
    dead.wait(10)
    (tmp_path / "station-sim-standalone").mkdir()  # `station simulate shoe`: no lock file
    try:
        assert (dead_folder / LOCK_NAME).is_file() and (live_folder / LOCK_NAME).is_file()
        assert remove_dead_tables(tmp_path) == [dead_folder]
        assert live_folder.is_dir() and not dead_folder.exists()
        assert (tmp_path / "station-sim-standalone").is_dir()
    finally:
        live.communicate("\n", timeout=10)


def test_an_orderly_end_removes_the_folder(tmp_path: Path) -> None:
    folder = TableFolder(tmp_path)
    (folder.path / "shoe").symlink_to("/dev/null")
    folder.remove()
    assert list(tmp_path.iterdir()) == []
