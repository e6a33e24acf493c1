"""Commands that now do what the docs say (issue 24, item 6): the exit status of a missing
configuration file, the dot diagram's extra, the name of a bad anchor file, a refused input
with no name in recall, and the devices ``diag`` offers for a misspelt one."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from station.cli.exits import Status
from station.cli.main import main
from station.core.recall import describe

ROOT = Path(__file__).resolve().parents[1]


def _station(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_a_configuration_file_named_with_c_that_is_not_there_is_a_bad_command_line(tmp_path: Path) -> None:
    """docs/install.md: 2 is "a bad command line, or a file named on it that cannot be used"."""
    missing = tmp_path / "nonexistent.toml"
    run = _station("run", "-c", str(missing))
    assert run.returncode == Status.USAGE, run.stderr
    assert run.stderr == f"station run: {missing}: no such configuration file\n"
    assert _station("run", "-c", str(missing), "--check").returncode == Status.USAGE
    # Named by the environment (the unit's $STATION_CONFIG), it is the environment that is wrong.
    assert _station("run", env={"STATION_CONFIG": str(missing)}).returncode == Status.CONFIG


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_the_dot_diagram_comes_with_an_extra_that_names_graphviz() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(requirement.startswith("graphviz") for requirement in extras["diagram"])
    assert any(requirement.startswith("graphviz") for requirement in extras["test"])
    run = _station("diagram", "--format", "dot")
    assert run.returncode == 0 and run.stdout.startswith("digraph "), run.stderr
    assert "betting -> dealing" in run.stdout


def test_the_missing_graphviz_message_names_the_extra() -> None:
    source = (ROOT / "station" / "core" / "diagram.py").read_text()
    assert "pip install 'dealing-station[diagram]'" in source


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_a_bad_anchor_file_is_named(tmp_path: Path) -> None:
    anchors = tmp_path / "notajournal.txt"
    anchors.write_text("hello\n")
    run = _station("journal", "verify", "--journal", str(tmp_path / "j.sqlite3"), "--anchors", str(anchors))
    assert run.returncode == 2
    assert run.stderr == f"station journal: {anchors}: line 1: not JSON\n"


def _round(**refusal: Any) -> dict[str, Any]:
    return {"round_id": "1-3", "game": "baccarat", "opened_at": "", "closed_at": "", "dealt": [], "burned": [],
            "dummy": [], "voided": False, "result": None, "payout_option": "", "settlement": [], "bets": [],
            "decisions": [], "in_progress": True,
            "refused": [{"seq": 41, "input": "BetPlaced", "reason": "bets are closed", **refusal}]}


def test_recall_names_who_sent_a_refused_input_without_an_empty_name() -> None:
    assert "refused      #41 BetPlaced (dealer): bets are closed" in describe(_round(role="dealer", who=""))
    assert "refused      #41 BetPlaced (dealer dana): bets" in describe(_round(role="dealer", who="dana"))
    assert "refused      #41 BetPlaced: bets are closed" in describe(_round(role="", who=""))


def test_a_misspelt_device_is_answered_with_the_configured_ones(tmp_path: Path, capsys: Any) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "sim:"\n[devices.pedals]\nurl = "sim:"\n')
    assert main(["diag", "-c", str(config), "probe", "shoee"]) == 2
    err = capsys.readouterr().err
    assert "unknown device 'shoee': the configuration names shoe, pedals" in err
    assert "shuffler," not in err.split("(")[0]
