"""Anchors work with the floor feed off: the head is logged at info (journald carries it off
the PC) and shown in ``station ctl status``; ``station run --check`` finds what [floor] names
that cannot be used."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from station.journal import JournalReader
from station.service.control import ControlError, hash_token, request

from ..waiting import tail, wait_until
from .helpers import ROOT, station, station_env

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

TOKEN = "a-technician-token-for-tests"


def test_the_head_is_logged_and_in_ctl_status_with_the_feed_off(tmp_path: Path) -> None:
    socket_path = tmp_path / "control.sock"
    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text()
                      .replace("pace_ms = 1500", "pace_ms = 20")
                      .replace('socket = ""', f'socket = "{socket_path}"')
                      + '\n[[control.users]]\nname = "tess"\nrole = "technician"\n'
                      + f'token_sha256 = "{hash_token(TOKEN)}"\n'
                      + "\n[floor]\nanchor_records = 20\n")
    journal, log = tmp_path / "journal.sqlite3", tmp_path / "station.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal",
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=station_env(tmp_path))
    try:
        seen: list[dict[str, object]] = [{}]

        def anchored() -> dict[str, object] | None:
            seen[0] = request(socket_path, TOKEN, "status")["result"]
            anchor = seen[0].get("anchor")
            return seen[0] if isinstance(anchor, dict) and anchor["reason"] == "records" else None

        status = wait_until(anchored, 60, "an anchor in ctl status", poll=0.2, ignoring=(ControlError,),
                            detail=lambda: f"{seen[0]} {tail(log, 2000)}")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    assert status["floor"] is None and status["metrics"] is None
    anchor = status["anchor"]
    assert isinstance(anchor, dict)
    with JournalReader(journal) as reader:
        record = reader.get(int(anchor["seq"]))
        last = reader.last()
    assert record is not None and record.hash == anchor["head"] and last is not None
    logged = [json.loads(line) for line in log.read_text().splitlines()
              if line.startswith("{") and '"journal_anchor"' in line]
    assert next(a["reason"] for a in logged) == "start" and logged[-1]["reason"] == "stop"
    assert logged[-1]["seq"] == last.seq and logged[-1]["head"] == last.hash
    assert all(a["journal_id"] == logged[0]["journal_id"] and a["table"] == "mini-baccarat-1-simulated"
               for a in logged)


def test_check_names_the_floor_files_that_cannot_be_used(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text() + (
        '\n[floor]\nenabled = true\nbroker = "mqtts://floor.example:8883"\n'
        f'ca_file = "{tmp_path / "missing-ca.pem"}"\nanchor_key_file = "{tmp_path / "journal" / "anchor.key"}"\n'))
    result = station("run", "-c", str(config), "--check", "--journal", str(tmp_path / "journal" / "j.sqlite3"),
                     env=station_env(tmp_path))
    assert result.returncode == 78, result.stderr
    assert "error: floor.ca_file: cannot use" in result.stderr
    assert "error: floor.anchor_key_file:" in result.stderr and "journal's folder" in result.stderr
