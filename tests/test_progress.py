"""The progress of a command that reads a whole journal: lines on standard error, none when
the reading is quick, and the answer on standard output unchanged."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from station.cli import progress as progress_module
from station.cli.main import main
from station.cli.progress import Progress

from .meters.week import play_week


def test_a_line_every_so_often_and_one_at_the_end() -> None:
    said = io.StringIO()
    with Progress("recall: every round", 10_000, out=said, every=0.0) as progress:
        for seq in range(1, 10_001):
            progress(seq)
    lines = said.getvalue().splitlines()
    assert lines[0] == "recall: every round: record 2,048 of 10,000 (20 %)"
    assert len(lines) == 10_000 // 2048 + 1
    assert lines[-1].startswith("recall: every round: read in ")


def test_nothing_when_the_reading_is_over_before_the_first_line() -> None:
    said = io.StringIO()
    with Progress("export", 10_000, out=said, every=3600.0) as progress:
        for seq in range(1, 10_001):
            progress(seq)
    assert said.getvalue() == ""


def test_every_round_and_the_whole_log_say_how_far_they_have_come(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    journal, _, _ = play_week(tmp_path)
    monkeypatch.setattr(progress_module, "EVERY_SECONDS", 0.0)
    monkeypatch.setattr(progress_module, "LOOK_EVERY", 256)
    capsys.readouterr()  # what writing the journal logged
    for args in (["recall", "--last", "0", "--json"], ["events", "--since", "all", "--json"],
                 ["journal", "export"], ["journal", "verify", "--deep"]):
        assert main([*args, "--journal", str(journal)]) == 0, args
        captured = capsys.readouterr()
        assert "record 1,024 of" in captured.err, (args, captured.err)
        if "--json" in args:
            json.loads(captured.out)  # the answer alone on standard output
