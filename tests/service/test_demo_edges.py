"""``station demo`` at its edges, as a person runs it: a closed output ends it quietly, a
configuration or a bet it could never play is refused at once, and at human pace it says
each round as it is settled."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]


def _demo(*args: str) -> list[str]:
    return [sys.executable, "-m", "station", "demo", *args]


def _rounds_in(journal: Path) -> int:
    recalled = subprocess.run([sys.executable, "-m", "station", "recall", "--journal", str(journal), "--last", "0",
                               "--json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert recalled.returncode == 0, recalled.stderr
    return len(json.loads(recalled.stdout))


def test_a_reader_that_goes_away_ends_the_demo_quietly(tmp_path: Path) -> None:
    """``station demo --json | head -3``: before, 80-odd BrokenPipeError tracebacks, and the
    demo played on to its end."""
    journal = tmp_path / "journal.sqlite3"
    demo = subprocess.Popen(_demo("--json", "--fast", "--shoes", "5", "--journal", str(journal)), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert demo.stdout is not None and demo.stderr is not None
    first = [demo.stdout.readline() for _ in range(3)]
    demo.stdout.close()  # what `head -3` does once it has its lines
    _, err = demo.communicate(timeout=180)
    assert next(json.loads(line)["type"] for line in first) == "shoe"
    assert err.decode() == "", err.decode()[-2000:]
    assert demo.returncode == 0
    # It stopped soon after: far fewer rounds than five shoes (about 400). What it wrote before
    # the reader went is bounded by the pipe's buffer (64 KB, about a hundred rounds).
    assert _rounds_in(journal) < 200


def test_a_configuration_with_real_devices_is_refused_at_start(tmp_path: Path) -> None:
    """Before, the demo waited ten minutes for a simulated dealer that never came."""
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "/dev/serial/by-id/usb-ACME_Shoe-if00-port0"\n')
    run = subprocess.run(_demo("-c", str(config), "--fast"), capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 2
    assert run.stderr == (f"station demo: {config}: devices.shoe.url is '/dev/serial/by-id/usb-ACME_Shoe-if00-port0': "
                          "the demo's simulated dealer deals only on simulated devices (url = \"sim:\"); use the "
                          "default configuration or one of `station config examples`\n")


def test_a_bet_on_a_region_the_game_does_not_have_is_refused_as_an_argument() -> None:
    """Before, the demo played its shoe and reported "refused inputs: 82"."""
    run = subprocess.run(_demo("--fast", "--bet", "craps=100"), capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("station demo: --bet craps=100: unknown betting region 'craps' in baccarat; use one of "
                          "banker, player, tie\n")


def test_at_human_pace_each_round_is_said_as_it_is_settled(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "sim:"\n[dealer]\nsimulated = true\npace_ms = 300\n'
                      'bets = { banker = 2000 }\n')
    demo = subprocess.Popen(_demo("-c", str(config), "--rounds", "3"), cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert demo.stdout is not None
    first = demo.stdout.readline()
    running = demo.poll() is None  # two more rounds at 0.3 s an action are still to come
    out, err = demo.communicate(timeout=180)
    assert demo.returncode == 0, err[-2000:]
    assert re.match(r"\d\d:\d\d:\d\d  round 1-1: ", first) and "; house " in first  # at its local time
    assert running, "the first round's line came only when the demo ended"
    lines = [first, *out.splitlines(keepends=True)]
    assert [line[len("21:45:12  "):].split(":")[0] for line in lines[:3]] == ["round 1-1", "round 1-2", "round 1-3"]
    assert "3 rounds" in lines[3]
