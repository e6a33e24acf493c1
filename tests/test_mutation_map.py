"""The mutation tool's map of which test runs which line (docs/testing.md) sees the code a
process runs in a child it forks and leaves with ``os._exit``, as ``station run`` runs the
floor's outbox: a real interpreter started with ``tools/mutation_site`` on its path, as the
tool starts the processes of its map run, and coverage's own data files read back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import coverage
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.e2e  # starts a process (tests/conftest.py)

FORKING = '''
import os


def in_the_child():
    first = 1
    return first + 1


def run():
    pid = os.fork()
    if pid == 0:
        in_the_child()
        os._exit(0)
    os.waitpid(pid, 0)
'''


def test_a_forked_child_that_leaves_with_os_exit_is_in_the_map(tmp_path: Path) -> None:
    package = tmp_path / "forking"
    package.mkdir()
    (package / "__init__.py").write_text(FORKING)
    env = {**os.environ, "MUTATION_CONTEXTS": str(tmp_path / "map"), "MUTATION_CONTEXT": "the_test",
           "MUTATION_CONTEXTS_SOURCE": str(package),
           "PYTHONPATH": os.pathsep.join((str(ROOT / "tools" / "mutation_site"), str(tmp_path)))}
    subprocess.run([sys.executable, "-c", "import forking; forking.run()"], env=env, check=True, timeout=60,
                   cwd=tmp_path)
    lines: set[int] = set()
    contexts: set[str] = set()
    for data_file in tmp_path.glob("map.coverage.*"):
        data = coverage.CoverageData(basename=str(data_file))
        data.read()
        for measured in data.measured_files():
            lines |= set(data.lines(measured) or ())
        contexts |= data.measured_contexts()
    body = FORKING.splitlines()
    child_lines = {number for number, text in enumerate(body, start=1) if "first" in text}
    assert child_lines and child_lines <= lines, f"the child's lines {sorted(child_lines)} not in {sorted(lines)}"
    assert contexts == {"the_test"}
