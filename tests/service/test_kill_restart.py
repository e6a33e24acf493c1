"""The real ``station run``, its simulated dealer at full speed, SIGKILLed at random moments
(start-up included) and started again on the same journal, many times over.

After all of it the journal is intact, the rounds of each shoe are numbered without a gap,
no round is settled twice, and no card of a shoe appears more often than its decks hold.
The default run kills the station 30 times; ``-m soak`` kills it 200 times.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
DECKS = 8


def _station(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def _kill_and_restart(tmp_path: Path, kills: int, seed: int) -> None:
    journal = tmp_path / "journal.sqlite3"
    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text().replace("pace_ms = 1500", "pace_ms = 0"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RUNTIME_DIRECTORY": str(tmp_path / "run")}
    chance = random.Random(seed)
    log = tmp_path / "station.log"
    for kill in range(kills):
        # Every fifth kill lands during the start (the replay, the devices' handshakes); the
        # others are measured from READY, however long the start took on a busy machine: from
        # the first instructions to well into dealing.
        during_start = kill % 5 == 4
        process = _start_ready(config, journal, env, log, wait=not during_start)
        time.sleep(chance.uniform(0.0, 0.5 if during_start else 1.6))  # a random moment to kill at: the test
        alive = process.poll() is None
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        assert alive, f"the station stopped by itself: {log.read_text()[-3000:]}"
    # One last, orderly run: the table must still deal after everything.
    before = len(_rounds(config, journal, env))
    settled = log.read_text().count("round_settled")
    process = _start_ready(config, journal, env, log)
    try:
        wait_until(lambda: process.poll() is not None or log.read_text().count("round_settled") >= settled + 3,
                   120, "three more rounds settled after the kills")
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0, log.read_text()[-3000:]
    finally:  # a failing wait never leaves the station running behind the test
        if process.poll() is None:
            process.kill()
            process.wait(10)
    _assert_consistent(config, journal, env, before, log)


def _start_ready(config: Path, journal: Path, env: dict[str, str], log: Path,
                 wait: bool = True) -> subprocess.Popen[str]:
    """``station run``, once its log says it is ready (the log is shared by every run); with
    ``wait`` false, at once."""
    ready = log.read_text().count("station_ready") if log.exists() else 0
    with log.open("a") as out:
        process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal",
                                    str(journal)], stdout=out, stderr=subprocess.STDOUT, env=env, text=True)
    if wait:
        try:
            wait_until(lambda: process.poll() is not None or log.read_text().count("station_ready") > ready, 120,
                       "the station to be ready")
        except BaseException:  # never leave it running behind the failing test
            process.kill()
            process.wait(10)
            raise
    return process


def _rounds(config: Path, journal: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    recalled = _station("recall", "--last", "0", "--json", "--config", str(config), "--journal", str(journal), env=env)
    assert recalled.returncode == 0, recalled.stderr
    return list(json.loads(recalled.stdout))


def _assert_consistent(config: Path, journal: Path, env: dict[str, str], before: int, log: Path) -> None:
    verified = _station("journal", "verify", "--journal", str(journal), env=env)
    assert verified.returncode == 0 and "intact" in verified.stdout, verified.stdout + verified.stderr
    rounds = _rounds(config, journal, env)
    assert len(rounds) > before, f"the table stopped dealing: {log.read_text()[-3000:]}"
    ids = [r["round_id"] for r in rounds]
    assert len(ids) == len(set(ids)), "a round was recorded twice"
    by_shoe: dict[int, list[int]] = {}
    for round_id in ids:
        shoe, number = (int(part) for part in round_id.split("-"))
        by_shoe.setdefault(shoe, []).append(number)
    for shoe, numbers in by_shoe.items():
        assert numbers == list(range(1, len(numbers) + 1)), f"shoe {shoe} has a gap: {numbers}"
    unfinished = [r["round_id"] for r in rounds[:-1] if not r.get("result") and not r.get("voided")]
    assert unfinished == [], f"rounds left without a result: {unfinished}"
    exported = _station("journal", "export", "--format", "jsonl", "--journal", str(journal), env=env)
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    for settled in (r for r in rounds if r.get("result")):  # the journal holds inputs; settling is replayed
        assert len(settled["settlement"]) == len(settled["bets"]), f"{settled['round_id']} settled oddly"
    shoe_cards: Counter[str] = Counter()
    for record in records:
        payload = record["payload"]
        if record["kind"] == "DealerAction" and payload.get("action") == "shuffle_done":
            shoe_cards = Counter()
        elif record["kind"] == "CardDrawn" and payload.get("device") == "shoe":
            shoe_cards[payload["card"]] += 1
            assert shoe_cards[payload["card"]] <= DECKS, f"{payload['card']} drawn more than {DECKS} times in a shoe"
    assert "Traceback" not in log.read_text()
    irregular = [r for r in records if r["kind"] == "SupervisorDecision"]
    assert irregular == []


def test_thirty_kills_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    """Short enough for every run; long enough to land in the middle of a round's cards
    (without the simulated dealer resuming the round it left, this run stops the table)."""
    _kill_and_restart(tmp_path, kills=30, seed=5)


@pytest.mark.soak
def test_two_hundred_kills_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    _kill_and_restart(tmp_path, kills=200, seed=2026)
