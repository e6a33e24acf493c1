"""A journal written before the ``[table]`` keys of issue 13 existed (currency, minor digits,
tie and pair limits) still opens under the default configuration; a new key set to
something other than its default is still a change of configuration, named by its key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.config.options import CONFIGURATION_RECORD, changed_keys, configuration_record
from station.journal import Journal
from station.service.config import load_config

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "config" / "station.toml"
NEW_KEYS = ("currency", "minor_digits", "tie_min", "tie_max", "pair_min", "pair_max")


def old_record(config_path: Path) -> dict[str, Any]:
    """The record a station without the new keys wrote for this configuration."""
    record = configuration_record(load_config(config_path).config)
    record["table"] = {k: v for k, v in record["table"].items() if k not in NEW_KEYS}
    return record


def check(config: Path, journal: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journal),
                           "--check"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_an_old_default_journal_reads_as_unchanged() -> None:
    record = old_record(DEFAULT)
    current = configuration_record(load_config(DEFAULT).config)
    assert current["table"]["currency"] == "EUR"  # the default file names its currency now
    assert changed_keys(record, current) == []


def test_a_new_limit_set_on_an_old_journal_is_a_change(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text(DEFAULT.read_text().replace("# tie_min = 500", "tie_min = 500")
                      .replace("# tie_max = 50000", "tie_max = 50000"))
    record = old_record(DEFAULT)
    assert changed_keys(record, configuration_record(load_config(config).config)) == ["table.tie_max",
                                                                                       "table.tie_min"]


def test_station_run_accepts_an_old_default_journal(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, old_record(DEFAULT))
    result = check(DEFAULT, journal)
    assert result.returncode == 0, result.stderr
    assert "written under another configuration" not in result.stderr
