"""``station config``: the shipped configurations, printed or written as a starting file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from station.cli.main import main
from station.resources import default_configuration, example_names

REPO = Path(__file__).resolve().parents[1]


def test_show_default_prints_the_simulated_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "show-default"]) == 0
    assert capsys.readouterr().out == default_configuration().read_text()


def test_init_writes_an_example_readable_by_owner_and_group_and_never_overwrites(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "station.toml"
    assert main(["config", "init", str(target), "--example", "production"]) == 0
    assert "FILL-IN" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) & 0o007 == 0
    target.write_text("# mine\n")
    assert main(["config", "init", str(target)]) == 2
    assert "exists; nothing written" in capsys.readouterr().err and target.read_text() == "# mine\n"
    assert main(["config", "init", str(target), "--force"]) == 0
    assert target.read_text() == default_configuration().read_text()


def test_an_unknown_example_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "show-default", "--example", "roulette"]) == 2
    err = capsys.readouterr().err
    assert "no example named 'roulette'" in err and "production" in err
    assert "production" in example_names() and "casino-war" in example_names()


def test_init_writes_the_chip_registry_an_example_names_beside_it_and_keeps_one_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "table.toml"
    assert main(["config", "init", str(target), "--example", "baccarat-chips"]) == 0
    registry = tmp_path / "baccarat-chips.csv"
    assert registry.read_bytes() == (REPO / "config" / "examples" / "baccarat-chips.csv").read_bytes()
    assert main(["config", "init", str(target), "--example", "baccarat-chips", "--force"]) == 0
    assert "kept as it is" in capsys.readouterr().out
    assert main(["run", "-c", str(target), "--check"]) == 0
