"""A fault of the station itself reaches a person as one line that names where the details are."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.cli import exits
from station.cli.main import main


def _boom(*_args: object, **_kwargs: object) -> object:
    raise RuntimeError("the journal locator fell over")


def test_an_unexpected_exception_is_one_line_and_a_saved_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    monkeypatch.delenv("STATION_TRACEBACK", raising=False)
    monkeypatch.setattr("station.cli.commands.journal.journal_location", _boom)
    assert main(["journal", "path"]) == exits.Status.INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("station journal: internal error: RuntimeError: the journal locator fell over")
    (saved,) = tmp_path.glob("station-crash-*.txt")
    assert str(saved) in err
    text = saved.read_text()
    assert "Traceback" in text and "_boom" in text


def test_developers_may_ask_for_the_traceback(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("STATION_TRACEBACK", "1")
    monkeypatch.setattr("station.cli.commands.journal.journal_location", _boom)
    assert main(["journal", "path"]) == exits.Status.INTERNAL
    assert "Traceback" in capsys.readouterr().err
