"""Logs as journald and a technician need them: a priority journald understands, one format
for every line of the process, and the round's cards in its settlement line."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from station.host.logging import configure_logging, writes_to_journald

from ..waiting import wait_for_line

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def test_lines_for_a_person_are_in_the_tables_time_and_journald_keeps_utc() -> None:
    out = io.StringIO()
    configure_logging("console", "info", stream=out, timezone="Asia/Tokyo")
    structlog.get_logger("station.service").info("expecting", text="place your bets")
    logging.getLogger("station.web.server").warning("viewer went away")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and all(" JST " in line for line in lines), lines
    out = io.StringIO()
    configure_logging("json", "info", stream=out, timezone="Asia/Tokyo")
    structlog.get_logger("station.service").info("expecting", text="place your bets")
    assert json.loads(out.getvalue())["timestamp"].endswith("Z")
    configure_logging("json", "info")


def test_standard_logging_goes_through_the_same_renderer() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    logging.getLogger("station.web.server").warning("viewer %s went away", "10.0.0.7")
    structlog.get_logger("station.service").info("expecting", text="deal Player 3rd card")
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["event"] == "viewer 10.0.0.7 went away" and first["level"] == "warning"
    assert first["logger"] == "station.web.server" and "timestamp" in first
    assert second["event"] == "expecting" and second["level"] == "info"


def test_only_the_stream_journald_named_counts_as_journald(tmp_path: Path, monkeypatch) -> None:
    with (tmp_path / "out").open("w") as stream:
        info = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino}")
        assert writes_to_journald(stream)
        monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino + 1}")
        assert not writes_to_journald(stream)  # a redirected stdout under a journald parent
    assert not writes_to_journald(io.StringIO())


def test_under_journald_every_line_carries_its_priority(tmp_path: Path) -> None:
    """The real ``station run`` with its stdout on a file that $JOURNAL_STREAM names, as
    systemd sets it: info lines are <6>, warnings <4>, and the settlement shows the cards."""
    out_path = tmp_path / "journal-stream"
    out = out_path.open("w")
    info = os.fstat(out.fileno())
    env = {**os.environ, "JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}", "PYTHONPATH": str(ROOT),
           "RUNTIME_DIRECTORY": str(tmp_path / "run")}
    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text().replace("pace_ms = 1500", "pace_ms = 0"))
    process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config),
                                "--journal", str(tmp_path / "j.sqlite3")], stdout=out, stderr=subprocess.STDOUT,
                               env=env)
    try:
        wait_for_line(out_path, '"round_settled"', 60)
    finally:
        process.terminate()
        process.wait(20)
        out.close()
    lines = out_path.read_text().splitlines()
    assert lines and all(line[:3] in ("<6>", "<4>", "<3>", "<7>") for line in lines), lines[:5]
    records = [(line[:3], json.loads(line[3:])) for line in lines]
    assert all(prefix == {"info": "<6>", "warning": "<4>", "error": "<3>"}[record["level"]]
               for prefix, record in records)
    settled = next(record for _, record in records if record["event"] == "round_settled")
    assert set(settled["cards"]) == {"player", "banker"} and settled["totals"].keys() == {"player", "banker"}
    assert settled["round_id"].startswith("1-")
