"""``/metrics`` of a real station after a shoe, parsed with Prometheus' own text parser: the
counters match what the journal says happened (recall), the commit histogram counts every
record the core loop wrote, and the values read at scrape time (devices, disk, anchor, state)
are there.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from station.config.options import journal_options
from station.core.recall import recall_rounds
from station.journal import JournalReader

from ..waiting import tail, wait_until
from .helpers import ROOT, expected_feed, free_port, station_env

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def _scrape(url: str) -> Samples:
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode("utf-8")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_the_counters_match_the_journal_after_a_shoe(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text().replace("pace_ms = 1500", "pace_ms = 0")
                      + f"\n[metrics]\nenabled = true\nport = {port}\n")
    journal = tmp_path / "journal.sqlite3"
    log = tmp_path / "station.log"
    url = f"http://127.0.0.1:{port}/metrics"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("station_child.py")), str(config),
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=station_env(tmp_path))
    try:
        def shoe_ended() -> bool:
            assert process.poll() is None, tail(log)
            samples = _scrape(url)
            return _value(samples, "station_table_state", state="shuffling") == 1 and \
                sum(v for (name, _), v in samples.items() if name == "station_rounds_total") > 0

        wait_until(shoe_ended, 120, "the shoe to end", poll=0.2, ignoring=(OSError,), detail=lambda: tail(log))
        # The dealer has halted: the counters are final once they have every round the
        # journal holds and the last record the journal wrote.
        def settled_in_journal() -> tuple[Any, list[dict[str, Any]]]:
            with JournalReader(journal) as reader:
                last = reader.last()
            return last, recall_rounds(journal, journal_options(journal, journal))

        def final() -> tuple[Samples, Any, list[dict[str, Any]]] | None:
            samples = _scrape(url)
            last, rounds = settled_in_journal()
            counted = sum(v for (name, _), v in samples.items() if name == "station_rounds_total")
            done = sum(1 for r in rounds if r["settlement"] is not None and not r["voided"])
            if last is None or _value(samples, "station_journal_last_seq") != last.seq or counted != done:
                return None
            return samples, last, rounds

        samples, last, rounds = wait_until(final, 60, "the counters to catch up with the journal")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]

    settled = [r for r in rounds if r["settlement"] is not None and not r["voided"]]
    outcomes = Counter(r["result"]["outcome"] for r in settled)
    assert len(settled) > 50
    for outcome, count in outcomes.items():
        assert _value(samples, "station_rounds_total", outcome=outcome) == count, outcome
    assert sum(v for (name, _), v in samples.items() if name == "station_rounds_total") == len(settled)
    assert _value(samples, "station_rounds_voided_total") == sum(1 for r in rounds if r["voided"])
    bets = Counter((s["region"], s["outcome"]) for r in settled for s in r["settlement"])
    for (region, result), count in bets.items():
        assert _value(samples, "station_bets_total", region=region, result=result) == count
    assert _value(samples, "station_bets_staked_minor_units_total") == sum(
        s["stake"] for r in settled for s in r["settlement"])
    house = -sum(s["net"] for r in settled for s in r["settlement"])
    assert _value(samples, "station_house_won_minor_units_total") - _value(
        samples, "station_house_lost_minor_units_total") == house
    refused = Counter(item["input"] for r in rounds for item in r["refused"])
    assert {labels[0][1]: v for (name, labels), v in samples.items() if name == "station_refusals_total"} == \
        dict(refused)
    assert sum(v for (name, _), v in samples.items() if name == "station_irregularities_total") == 0
    alerts = Counter((m["code"], m["severity"]) for m in expected_feed(journal, "metrics")
                     if m.get("type") == "integrity_alert")
    assert alerts, "the simulated table's seeded shoe ends with an advantage situation"
    assert {(dict(labels)["code"], dict(labels)["severity"]): v for (name, labels), v in samples.items()
            if name == "station_integrity_alerts_total"} == dict(alerts)
    # Every record the core loop wrote went through one timed commit; the records written at
    # start-up (the configuration) come before the start anchor.
    start_anchor = int(log.read_text().split('"reason": "start"')[0].rsplit('"seq": ', 1)[1].split(",")[0])
    assert _value(samples, "station_journal_commit_records_sum") == last.seq - start_anchor
    assert _value(samples, "station_journal_commit_seconds_count") == _value(
        samples, "station_journal_commit_records_count") > 0
    assert _value(samples, "station_journal_last_seq") == last.seq
    assert 0 < _value(samples, "station_anchor_seq") <= last.seq
    for device in ("shoe", "display", "pedals"):
        assert _value(samples, "station_device_connected", device=device) == 1
        assert ("station_device_bad_frames_total", (("device", device),)) in samples
    assert _value(samples, "station_journal_disk_free_bytes") > 0
    assert _value(samples, "station_journal_writable") == 1
    assert ("station_floor_backlog_records", ()) not in samples  # the feed is off
