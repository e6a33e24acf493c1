"""``station roads`` through the real console script entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from station.cli.commands.roads import parse_results
from station.cli.main import main
from station.roads.results import RoadsInputError

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_letters_any_case_and_bad_letters_refused_with_position() -> None:
    assert [r.outcome for r in parse_results("bP t,B")] == ["B", "P", "T", "B"]
    with pytest.raises(RoadsInputError, match="'X' at position 3"):
        parse_results("BPX")


def test_text_output_draws_every_road_and_a_legend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roads", "bppTBBP"]) == 0
    out = capsys.readouterr().out
    for title in (
        "Bead Plate",
        "Big Road",
        "Big Eye Boy",
        "Small Road",
        "Cockroach Pig",
        "Ask road",
        "Statistics",
        "Legend",
    ):
        assert title in out
    big_road = out.split("Big Road\n")[1].split("\n\n")[0].splitlines()
    assert big_road[0].split() == ["B", "P", "B", "P"]
    assert big_road[1].split() == [".", "P-1", "B", "."]
    assert "rounds 7: Banker 3, Player 3, Tie 1" in out


def test_text_output_shows_ties_before_any_win(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roads", "TT"]) == 0
    out = capsys.readouterr().out
    assert "Big Road (2 ties before the first win)" in out
    assert "T-2" in out


def test_json_output_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roads", "BBPBBBPP", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig", "predictions", "stats"}
    assert data["big_road"][0] == {
        "col": 0, "row": 0, "result": "B", "ties": 0, "leading_ties": 0, "streak": 0, "depth": 0,
        "player_pair": False, "banker_pair": False, "natural": False,
    }
    assert data["big_eye_boy"] == ["blue", "blue", "red", "blue", "red"]
    assert data["small_road"] == ["red", "blue", "blue", "blue"]
    assert data["cockroach_pig"] == ["red"]
    assert set(data["predictions"]) == {"B", "P"}
    assert data["stats"]["rounds"] == 8


def test_other_letters_are_refused_with_exit_status_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "station", "roads", "BPXB"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "unknown result 'X' at position 3" in proc.stderr
    assert proc.stdout == ""
