"""bench/journal.py still runs (tiny sizes; no timing is asserted: benchmarks measure, tests don't)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

BENCH = Path(__file__).resolve().parents[2] / "bench" / "journal.py"


def test_benchmark_script_runs_every_measurement(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--appends", "16", "--group", "4", "--rounds", "3", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("append ") and "16 events" in line for line in lines)
    assert any(line.startswith("append_group") and "4 groups of 4" in line for line in lines)
    assert any(line.startswith("verify") and "journal of 3 rounds" in line for line in lines)
    assert any(line.startswith("verify") and line.endswith("intact") for line in lines)
    assert list(tmp_path.iterdir()) == []  # scratch journals are cleaned up
