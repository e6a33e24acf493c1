"""The station as an installed package: a wheel that works from any folder, and a locked build.

The wheel is built from a clean copy of the checkout, installed (not editable) in a fresh
virtual environment outside it from the hash-locked requirements, and used from another
folder as a table PC would: version, a demo, recall, verify and analyze with no
configuration file at all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_of_the_checkout_is_built_in() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {str(path.parent.relative_to(ROOT)).replace("/", ".")
             for top in ("station", "drivers") for path in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"station.defaults"}  # the one mapped to config/


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_lock_pins_every_runtime_dependency_with_hashes() -> None:
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {m[1].lower(): m[2] for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+) \\", lock, re.M)}
    for requirement in PYPROJECT["project"]["dependencies"]:
        assert _name(requirement) in pinned, f"{requirement} is not in requirements.lock: run pip-compile (docs)"
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", lock)  # the header, then one block per package
    for block in blocks[1:]:
        assert "--hash=sha256:" in block, f"no hash for {block.splitlines()[0]}"


def _copy_checkout(target: Path) -> Path:
    ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache",
                                    ".pytest_cache", ".hypothesis", "build", "dist", "tests", "*.sqlite3*")
    shutil.copytree(ROOT, target, ignore=ignore)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the wheel installed; returns its bin folder."""
    base = tmp_path_factory.mktemp("packaging")
    source = _copy_checkout(base / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (base / "dist").glob("dealing_station-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    locked = subprocess.run([*pip, "--require-hashes", "-r", str(ROOT / "requirements.lock")],
                            capture_output=True, text=True, timeout=600)
    assert locked.returncode == 0, locked.stderr[-3000:]
    own = subprocess.run([*pip, "--no-deps", str(wheel)], capture_output=True, text=True, timeout=600)
    assert own.returncode == 0, own.stderr[-3000:]
    return venv / "bin"


def _station(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("STATION_", "PYTHON"))}
    return subprocess.run([str(bin_dir / "station"), *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**env, "XDG_STATE_HOME": str(cwd / "state"), "XDG_RUNTIME_DIR": str(cwd / "run")})


def test_the_wheel_works_from_any_folder_with_no_configuration_file(installed: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = _station(installed, elsewhere, "--version")
    assert version.returncode == 0 and re.fullmatch(r"dealing-station \S+ \(journal schema \d+\)\n", version.stdout)
    assert "unknown" not in version.stdout
    journal = elsewhere / "journal.sqlite3"
    demo = _station(installed, elsewhere, "demo", "--rounds", "3", "--fast", "--json", "--journal", str(journal))
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert len([line for line in demo.stdout.splitlines() if json.loads(line)["type"] == "round"]) == 3
    recall = _station(installed, elsewhere, "recall", "--journal", str(journal), "--last", "0", "--json")
    assert recall.returncode == 0, recall.stderr
    assert [r["software"] for r in json.loads(recall.stdout)] == [version.stdout.split()[1]] * 3
    verify = _station(installed, elsewhere, "journal", "verify", "--journal", str(journal))
    assert verify.returncode == 0 and "intact" in verify.stdout, verify.stderr
    analyze = _station(installed, elsewhere, "analyze", "--decks", "8", "--json")
    assert analyze.returncode == 0, analyze.stderr
    assert json.loads(analyze.stdout)
    shown = _station(installed, elsewhere, "config", "show-default")
    assert shown.returncode == 0 and "THE HARDWARE HERE IS SIMULATED" in shown.stdout
    init = _station(installed, elsewhere, "config", "init", "table.toml", "--example", "production")
    assert init.returncode == 0, init.stderr
    refused = _station(installed, elsewhere, "run", "-c", "table.toml", "--check")
    assert refused.returncode == 78 and "devices.shoe.url: not filled in yet" in refused.stderr
