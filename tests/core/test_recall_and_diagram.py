"""``station recall`` and ``station diagram`` through the real command line entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from station.cli.main import main
from station.core.diagram import render
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.sessions import generate
from station.events import DealerAction

DOCS = Path(__file__).resolve().parents[2] / "docs"
CONFIG = Path(__file__).resolve().parents[2] / "config" / "station.toml"


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A journal of 14 rounds played with the options the default configuration gives."""
    from station.config.options import core_options
    from station.service.config import load_config

    loaded = load_config(CONFIG)
    path = tmp_path / "journal.sqlite3"
    loop = CoreLoop(path, core_options(loaded.config, loaded.path))
    for event in generate(5, 14):
        loop.post(event)
    loop.run_pending()
    loop.close()
    return path


def recall(capsys: Any, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()  # drop what the set-up printed
    code = main(["recall", "--config", str(CONFIG), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_round_is_recalled_not_only_the_last_ten(played: Path, capsys: Any) -> None:
    code, text, _ = recall(capsys, "--journal", str(played), "--last", "0", "--json")
    rounds = json.loads(text)
    assert code == 0
    assert [r["round_id"] for r in rounds][:3] == ["1-1", "1-2", "1-3"]
    closed = [r for r in rounds if not r["in_progress"]]
    assert len(rounds) == 14 and len(closed) == 13  # the 14th is settled, still on the table
    assert rounds[-1]["in_progress"] and rounds[-1]["settlement"] is not None
    assert all(r["opened_at"] <= r["closed_at"] for r in closed)
    settled = [r for r in closed if r["settlement"] is not None]
    for r in settled:
        assert len(r["settlement"]) == len(r["bets"])
        assert r["result"]["outcome"] in ("banker", "player", "tie")


def test_one_round_in_words(played: Path, capsys: Any) -> None:
    code, text, _ = recall(capsys, "--journal", str(played), "--round", "1-2")
    assert code == 0
    assert text.startswith("Round 1-2 (baccarat)")
    assert "player" in text and "banker" in text and "result" in text


def test_decisions_are_recalled(played: Path, capsys: Any) -> None:
    _, text, _ = recall(capsys, "--journal", str(played), "--last", "0", "--json")
    decisions = [d for r in json.loads(text) for d in r["decisions"] if "decision" in d]
    assert decisions and all(d["role"] == "supervisor" for d in decisions)


def test_last_n(played: Path, capsys: Any) -> None:
    _, text, _ = recall(capsys, "--journal", str(played), "--last", "2", "--json")
    assert len(json.loads(text)) == 2


def test_a_journal_without_rounds(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "j.sqlite3"
    loop = CoreLoop(path, CoreOptions())
    loop.post(DealerAction("shuffle_done"))
    loop.run_pending()
    loop.close()
    _, text, _ = recall(capsys, "--journal", str(path), "--json")
    assert json.loads(text) == []


def test_unknown_round_and_missing_journal(played: Path, tmp_path: Path, capsys: Any) -> None:
    code, _, err = recall(capsys, "--journal", str(played), "--round", "99-1")
    assert code == 1 and "no round 99-1" in err
    code, _, err = recall(capsys, "--journal", str(tmp_path / "none.sqlite3"))
    assert code == 2 and "no journal" in err


def test_committed_diagram_matches_the_code() -> None:
    generated = render("mermaid")
    assert (DOCS / "state-machine.mmd").read_text(encoding="utf-8") == generated
    assert f"```mermaid\n{generated}```" in (DOCS / "state-machine.md").read_text(encoding="utf-8")


def test_diagram_command_writes_mermaid_and_dot(tmp_path: Path, capsys: Any) -> None:
    target = tmp_path / "d.mmd"
    assert main(["diagram", "-o", str(target)]) == 0
    text = target.read_text()
    assert text.splitlines()[3] == "stateDiagram-v2"
    assert "betting --> dealing: no_more_bets" in text
    assert "irregularity --> dealing: resolve [back_to_dealing]" in text
    pytest.importorskip("graphviz")
    assert main(["diagram", "--format", "dot"]) == 0
    assert "betting -> dealing" in capsys.readouterr().out
