"""``station recall`` reads times in the table's zone and amounts in its money (``[table]
timezone``, ``currency`` and ``minor_digits`` as the journal's configuration records them), and
shows a corrected round as it was settled with the correction after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.config.options import CONFIGURATION_RECORD, new_journal_record
from station.core.options import CoreOptions
from station.events import Actor, BetCorrected
from station.localtime import local_time, zone
from station.service.config import parse_config

from ..core_table import Table

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_recall_in_the_tables_zone_with_its_corrections(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    table = Table(journal, CoreOptions())
    config = parse_config({"table": {"timezone": "Asia/Tokyo", "currency": "JPY", "minor_digits": 0}},
                          tmp_path / "station.toml")
    table.loop.journal.append(CONFIGURATION_RECORD, new_journal_record(config))
    table.start_shoe()
    table.bet("1", "ann", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H 3D 4C")
    table.act("next_round")
    table.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 2000, "chips were on Player",
                            Actor("supervisor", "sue")))
    table.loop.close()
    run = [sys.executable, "-m", "station", "recall", "--journal", str(journal)]
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=60, check=True).stdout)
    first = data[0]
    assert first["timezone"] == "Asia/Tokyo"
    assert first["opened"] == local_time(first["opened_at"], zone("Asia/Tokyo")) and first["opened"].endswith("JST")
    assert first["bets"] == [{"box": "1", "player": "ann", "region": "banker", "amount": 2000}]
    assert first["corrections"][0]["differences"] == [["1", "ann", "banker", -1900], ["1", "ann", "player", -2000]]
    text = subprocess.run([*run, "--round", "1-1"], capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"Round 1-1 (baccarat)  {first['opened']} .. {first['closed']}" in text
    assert "bet          box 1 ann Banker 2,000 -> win +1,900" in text  # yen: no minor digits
    assert "by supervisor sue (chips were on Player): box 1 ann Banker 2,000 -> box 1 ann Player 2,000; " \
           "differences box 1 ann Banker -1,900, box 1 ann Player -2,000; house -1,900 -> +2,000" in text
    assert "JST" in text.split("correction", 1)[1]
