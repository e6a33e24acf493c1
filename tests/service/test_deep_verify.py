"""``station journal verify --deep``: the checkpoints against a replay, through the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.config.options import CONFIGURATION_RECORD, configuration_record, core_options
from station.core.checkpoints import CHECKPOINT
from station.core.loop import CoreLoop
from station.core.sessions import generate
from station.integrity.monitor import IntegritySettings
from station.integrity.service import INTEGRITY_CHECKPOINT, IntegrityService
from station.journal import Journal, JournalReader
from station.service.config import parse_config

from ..forgery import rewrite_journal

pytestmark = pytest.mark.e2e  # each test starts a station, a command or a process of its own


def _journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    config = parse_config({"table": {"decks": 4}}, tmp_path / "station.toml")
    options = core_options(config, tmp_path / "station.toml")
    journal = Journal(path)
    journal.append(CONFIGURATION_RECORD, configuration_record(config))
    with CoreLoop(journal, options, checkpoint_every=300) as loop:
        service = IntegrityService(loop.post, options, IntegritySettings(), path, loop.journal.head()[0],
                                   note=loop.note)
        loop.subscribe(service.on_output, IntegrityService.KINDS)
        service.start()
        assert service.caught_up.wait(30)
        for event in generate(31, 70, decks=4):
            loop.post(event)
            loop.run_pending()
        assert service.wait_idle(30)
        loop.run_pending()
        service.stop()
    return path


def _verify(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--deep", "--journal", str(path),
                           *extra], capture_output=True, text=True, timeout=120)


def _rewrite(path: Path, seq: int, key: str) -> None:
    """Record ``seq``'s state changed under ``key``, and the chain re-hashed after it."""

    def change(body: dict[str, Any]) -> None:
        part = body["state"]["machine"] if "state" in body else body["monitor"]
        part[key] = part[key] + 1

    rewrite_journal(path, seq, change)


def test_an_honest_journal_passes_the_deep_replay(tmp_path: Path) -> None:
    done = _verify(_journal(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "intact" in done.stdout and "checkpoints match the replay" in done.stdout
    assert "integrity checkpoints match the replay" in done.stdout


def test_a_forged_checkpoint_is_reported_like_a_tamper(tmp_path: Path) -> None:
    path = _journal(tmp_path)
    with JournalReader(path) as reader:
        target = [r.seq for r in reader.records() if r.kind == CHECKPOINT][-1]
    _rewrite(path, target, "house_net")
    plain = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal", str(path)],
                           capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0  # a consistent chain: only the replay tells
    done = _verify(path, "--json")
    assert done.returncode == 1
    body = json.loads(done.stdout)
    assert body["ok"] is False and body["first_bad_seq"] == target and "machine.house_net" in body["problem"]
    line = _verify(path)
    assert line.returncode == 1 and f"BAD: record {target}: checkpoint differs" in line.stdout


def test_a_forged_monitor_checkpoint_is_reported_like_a_tamper(tmp_path: Path) -> None:
    path = _journal(tmp_path)
    with JournalReader(path) as reader:
        target = [r.seq for r in reader.records() if r.kind == INTEGRITY_CHECKPOINT][-1]
    _rewrite(path, target, "window_rounds")
    done = _verify(path)
    assert done.returncode == 1 and f"BAD: record {target}: integrity checkpoint differs" in done.stdout
    assert "monitor.window_rounds" in done.stdout


def test_every_forged_checkpoint_of_a_real_journal_is_counted(tmp_path: Path) -> None:
    """On a journal written by the real ``station demo`` (its start, its stop, its pedals and
    its start-up records: what in-process journals lack), the untouched journal passes, and a
    forgery of the last checkpoint is not hidden behind a forgery of the first."""
    path = tmp_path / "demo.sqlite3"
    demo = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--shoes", "3", "--journal", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert _verify(path).returncode == 0, _verify(path).stdout
    with JournalReader(path) as reader:
        checkpoints = [r.seq for r in reader.records() if r.kind == CHECKPOINT]
    assert len(checkpoints) >= 3, checkpoints
    _rewrite(path, checkpoints[0], "house_net")
    _rewrite(path, checkpoints[-1], "rounds_settled")
    done = _verify(path)
    assert done.returncode == 1, done.stdout
    assert f"BAD: record {checkpoints[0]}: checkpoint differs" in done.stdout
    assert f"1 more checkpoint differs (records {checkpoints[-1]})" in done.stdout, done.stdout
