"""``station demo``: the service code path, simulated devices and dealer, bounded."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from station.cards import parse_card
from station.games.baccarat.rules import result_of

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]


def demo(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "demo", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A record without the time it was written (``test_json_records_carry_the_time...``)."""
    return {key: value for key, value in record.items() if key != "time"}


def test_full_eight_deck_shoe_json() -> None:
    run = demo("--shoes", "1", "--fast", "--json", "--seed", "3")
    assert run.returncode == 0, run.stderr[-2000:]
    lines = records(run.stdout)
    shoe, *rounds, end, summary = lines
    assert shoe["type"] == "shoe" and shoe["shoe"] == 1
    assert len(shoe["burned"]) == parse_card(shoe["exposed"]).rank.pip
    assert untimed(end) == {"type": "shoe_end", "shoe": 1, "rounds": len(rounds)}
    assert 70 <= len(rounds) <= 90  # 416 cards less the burn and the 15 behind the cut card
    seen = [shoe["exposed"], *shoe["burned"]]
    house = 0
    for number, r in enumerate(rounds, start=1):
        assert r["type"] == "round" and r["round"] == number
        result = result_of([parse_card(c) for c in r["player"]], [parse_card(c) for c in r["banker"]])
        assert (result.player_total, result.banker_total, result.outcome.value, result.natural) == (
            r["player_total"], r["banker_total"], r["outcome"], r["natural"])
        assert sum(b["net"] for b in r["bets"]) == -r["house_net"]
        house += r["house_net"]
        seen += r["player"] + r["banker"]
    assert max(seen.count(c) for c in set(seen)) <= 8, "no card more often than the 8 decks hold"
    assert summary["rounds"] == len(rounds) and summary["house_net"] == house


def test_stacked_shoe_and_bets(tmp_path: Path) -> None:
    # Exposed 3C: burn 3. Round 1: P 9H 2D, B KS 8C -> Banker natural 8 v Player 1.
    # Round 2: P 4H 4S, B 5D 2C -> Player 8 natural (a pair). The cut card comes out in
    # place of round 3's first card: round 3 is the last. Round 3: 9 v 9, a natural tie.
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("# a stacked shoe\n3C AS 2S 3S\n9H KS 2D 8C\n4H 5D 4S 2C\nCUT\n4C 5H 5C 4D\n" + "KH " * 20)
    run = demo("--shoe-file", str(shoe), "--fast", "--json", "--bet", "banker=2000", "--bet", "tie=1000")
    assert run.returncode == 0, run.stderr[-2000:]
    lines = records(run.stdout)
    assert untimed(lines[0]) == {"type": "shoe", "shoe": 1, "exposed": "3C", "burned": ["AS", "2S", "3S"]}
    first, second, third = (r for r in lines if r["type"] == "round")
    assert (first["player"], first["banker"], first["outcome"]) == (["9H", "2D"], ["KS", "8C"], "banker")
    assert {(b["region"], b["stake"], b["net"]) for b in first["bets"]} == {
        ("banker", 2000, 1900),
        ("tie", 1000, -1000),
    }
    assert (second["outcome"], second["player_pair"]) == ("player", True)
    assert (third["player"], third["banker"], third["outcome"]) == (["4C", "5C"], ["5H", "4D"], "tie")
    assert {(b["region"], b["net"]) for b in third["bets"]} == {("banker", 0), ("tie", 8000)}
    assert untimed(lines[-2]) == {"type": "shoe_end", "shoe": 1, "rounds": 3}


def test_dealing_ahead_reads_a_tie_off_the_cards_and_leaves_the_carried_bets(tmp_path: Path) -> None:
    """At --fast the dealer deals round 3 without waiting for the station to settle round 2,
    so it reads the Tie off its own cards: the Banker bet the Tie left on the layout is not
    placed a second time."""
    # Exposed 3C: burn 3. Round 1: P 9H 2D, B KS 8C (Banker 8 v 1). Round 2: P 4C 5H, B 5C 4D
    # (a natural tie, 9 v 9). The cut card comes out first in round 3, the last round:
    # P 4H 4S, B 5D 2C (Player 8 v 7).
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("3C AS 2S 3S\n9H KS 2D 8C\n4C 5C 5H 4D\nCUT\n4H 5D 4S 2C\n" + "KH " * 20)
    run = demo("--shoe-file", str(shoe), "--fast", "--json", "--bet", "banker=2000", "--bet", "tie=1000", "-v")
    assert run.returncode == 0, run.stderr[-2000:]
    rounds = [r for r in records(run.stdout) if r["type"] == "round"]
    assert [r["outcome"] for r in rounds] == ["banker", "tie", "player"]
    assert sorted((b["region"], b["stake"], b["net"]) for b in rounds[1]["bets"]) == [
        ("banker", 2000, 0),
        ("tie", 1000, 8000),
    ]
    assert sorted((b["region"], b["stake"], b["net"]) for b in rounds[2]["bets"]) == [
        ("banker", 2000, -2000),
        ("tie", 1000, -1000),
    ]
    assert not [r for r in records(run.stdout) if r["type"] == "refused"]
    assert '"dealt_ahead"' in run.stderr and '"last_outcome": "tie"' in run.stderr  # read off the cards


def test_dealing_ahead_under_style_c_turns_each_round_before_the_next() -> None:
    """Style C (cards turned at the end): at --fast the dealer deals whole rounds in one go,
    and presses reveal after each round's cards, before it clears the layout for the next."""
    run = demo("-c", str(REPO / "config" / "examples" / "midi-baccarat.toml"), "--rounds", "40", "--fast", "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    lines = records(run.stdout)
    assert len([r for r in lines if r["type"] == "round"]) == 40
    assert not [r for r in lines if r["type"] == "refused"]


@pytest.mark.parametrize("example", ["station.toml", "examples/casino-war.toml"])
def test_a_human_pace_demo_says_each_round_as_it_is_dealt_at_the_tables_time(tmp_path: Path, example: str) -> None:
    """A line per round while the demo runs (not all at the end), each at its time in the
    table's zone, the money in the table's currency; then the summary with the same times."""
    text = (REPO / "config" / example).read_text()
    text = re.sub(r"(?m)^pace_ms = .*$", "", text)
    text = re.sub(r"(?m)^\[dealer\]$", "[dealer]\npace_ms = 100", text)
    text = re.sub(r"(?m)^timezone = .*$", "", text)
    text = re.sub(r"(?m)^\[table\]$", '[table]\ntimezone = "Asia/Tokyo"', text)
    config = tmp_path / "table.toml"
    config.write_text(text)
    tokyo = ZoneInfo("Asia/Tokyo")
    proc = subprocess.Popen([sys.executable, "-m", "station", "demo", "-c", str(config), "--rounds", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not (lines and " round 1-1: " in lines[-1]):
            line = proc.stdout.readline()
            assert line, f"the demo ended before its first round: {proc.communicate(timeout=60)}"
            lines.append(line)
        assert proc.poll() is None  # said while the other three rounds are still to be dealt
        said = datetime.strptime(lines[-1][:8], "%H:%M:%S").time()
        now = datetime.now(tokyo)
        assert abs(datetime.combine(now.date(), said, tokyo) - now) < timedelta(minutes=2)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-2000:]
    rounds = [line for line in lines + out.splitlines() if re.match(r"^\d\d:\d\d:\d\d  round 1-\d+: ", line)]
    assert len(rounds) == 4
    currency = "EUR" if example == "station.toml" else ""
    assert all(re.search(rf"; house [+-]?[\d,]+\.\d\d{' ' + currency if currency else ''}$", r) for r in rounds), rounds
    assert re.search(r"(?m)^dealt \d{4}-\d\d-\d\d \d\d:\d\d:\d\d JST to \d\d:\d\d:\d\d JST$", out), out


def test_json_records_carry_the_time_in_the_tables_zone(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text((REPO / "config" / "station.toml").read_text().replace(
        'timezone = "Europe/Vienna"', 'timezone = "Asia/Tokyo"'))
    run = demo("-c", str(config), "--rounds", "3", "--fast", "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    lines = records(run.stdout)
    now = datetime.now(ZoneInfo("Asia/Tokyo"))
    for record in lines[:-1]:
        moment = datetime.fromisoformat(record["time"])
        assert moment.utcoffset() == timedelta(hours=9) and abs(moment - now) < timedelta(minutes=5), record
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["first"] <= summary["last"]
    assert summary["first"].endswith("+09:00")


def test_refused_bets_are_reported() -> None:
    # 1000 on Banker cannot be paid exactly in chips of 100 at 0.95 (5.12); 500 is below the minimum.
    run = demo("--rounds", "1", "--fast", "--json", "--bet", "banker=1000", "--bet", "tie=500")
    assert run.returncode == 0, run.stderr[-2000:]
    refused = [r for r in records(run.stdout) if r["type"] == "refused"]
    assert any("Banker bet of 10.00 EUR" in r["reason"] for r in refused)
    assert any("minimum" in r["reason"] for r in refused)


def test_bad_arguments_and_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[table]\ndecks = 10\n")
    run = demo("-c", str(bad), "--fast")
    assert run.returncode == 78 and "table.decks" in run.stderr and str(bad) in run.stderr
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("3C XX 2S\n")
    run = demo("--shoe-file", str(shoe), "--fast")
    assert run.returncode == 2 and "line 1" in run.stderr and "XX" in run.stderr
    run = demo("--bet", "banker=12.5", "--fast")
    assert run.returncode == 2 and "minor units" in run.stderr


def test_casino_war_demo() -> None:
    run = demo("-c", str(REPO / "config" / "examples" / "casino-war.toml"), "--rounds", "30", "--fast", "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    rounds = [r for r in records(run.stdout) if r["type"] == "round"]
    assert len(rounds) == 30 and all(r["game"] == "war" for r in rounds)
    for r in rounds:
        assert sum(b["net"] for b in r["bets"]) == -r["house_net"]


def test_a_broken_command_module_does_not_break_the_others(tmp_path: Path, monkeypatch, capsys) -> None:
    from station.cli import commands
    from station.cli.main import main

    (tmp_path / "zz_broken_for_test.py").write_text("import module_that_does_not_exist\n")
    monkeypatch.setattr(commands, "__path__", [*commands.__path__, str(tmp_path)])
    assert main(["roads", "BPT"]) == 0
    assert main(["zz_broken_for_test"]) == 1
    assert "ModuleNotFoundError" in capsys.readouterr().err


def test_the_simulated_table_runs_in_a_process_of_its_own_and_ends_with_the_station() -> None:
    """The simulators and the dealer are a child process, reached over pseudo-terminals as
    real devices are; the station reaps it when it stops."""
    proc = subprocess.Popen([sys.executable, "-m", "station", "demo", "--rounds", "3", "--fast", "--json", "-v"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    started = next(json.loads(line) for line in err.splitlines() if '"simulated_table_started"' in line)
    assert started["pid"] != proc.pid and started["method"] == "fork"
    assert set(started["ports"]) == {"shoe", "display"}  # the configured serial sim: devices
    assert not Path(f"/proc/{started['pid']}").exists()
    assert len([r for r in records(out) if r["type"] == "round"]) == 3


def test_a_dealer_who_cannot_go_on_stops_the_demo_with_the_reason(tmp_path: Path) -> None:
    shoe = tmp_path / "short.txt"
    shoe.write_text("3C AS 2S 3S 9H KS 2D\n")  # the burn, then three cards: round 1 needs four
    run = demo("--shoe-file", str(shoe), "--fast")
    assert run.returncode == 1
    assert "stopped early" in run.stderr and "the shoe is empty" in run.stderr


def test_a_station_with_threads_already_running_starts_its_table_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """Forking a process with threads is unsafe; the table then starts by spawning instead.

    The fresh interpreter logs as the station does (to stderr under ``--json``): a dead
    table's folder, which the new table removes and says so, leaves stdout all JSON records."""
    dead_table = tmp_path / "station-sim-dead"
    dead_table.mkdir()
    (dead_table / "table.lock").touch()  # nobody holds it: what a killed table leaves
    code = ("import sys, threading\n"  # a thread that is running when the table starts:
            "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
            "from station.cli.main import main\n"
            "sys.exit(main(['demo', '--rounds', '2', '--fast', '--json', '-v']))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"method": "spawn"' in run.stderr
    assert "simulated_table_leftovers_removed" in run.stderr
    assert not dead_table.exists()
    assert len([r for r in records(run.stdout) if r["type"] == "round"]) == 2
