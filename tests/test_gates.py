"""The code gates: ruff and mypy find nothing, with the configuration in pyproject.toml.

They run here, as part of the suite, so the README's one test command (and .ci/run, which
runs it) checks them too, after the test extra that brings both tools is installed. Each
tool runs from the virtual environment the tests run in, on the whole checkout; a failure
prints every finding. mypy keeps its cache in .mypy_cache at the top of the checkout, so
only the first run checks everything (some seconds); later runs check what changed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (it comes with the test extra: pip install -e '.[test]')")
    return subprocess.run(
        [sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=240, check=False
    )


def test_ruff_finds_nothing() -> None:
    run = _run("ruff", "check", "--no-fix", "--output-format", "concise", ".")
    assert run.returncode == 0, f"ruff check found problems:\n{run.stdout}{run.stderr}"


def test_mypy_finds_nothing() -> None:
    # The files to check and the strictness are in pyproject.toml's [tool.mypy].
    run = _run("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert run.returncode == 0, f"mypy found problems:\n{run.stdout}{run.stderr}"
