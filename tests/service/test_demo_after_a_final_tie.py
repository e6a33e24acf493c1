"""``station demo`` across a shoe that ended on a Tie: the next shoe's first round takes every
bet of the script.

After a Tie the Banker and Player bets stay on the layout for the next round of the shoe (rule
5.16); at the shoe's end the station hands them back. Before, the simulated dealer kept
believing they were on the layout and dealt the new shoe's first round without them (the
default seed's first shoe ends on a Tie: ``station demo --shoes 2`` showed it). The rounds are
read back from the demo's journal (``station recall``), as an auditor would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
#: The script's bets: Banker and Player (a Tie leaves these on), and Tie (cleared every round).
BETS = {"banker": 2000, "player": 1000, "tie": 1000}
#: Exposed 3C: burn 3. Round 1: Banker natural 8 to Player 1. Round 2: Player natural 8. The cut
#: card comes out in place of round 3's first card: round 3 is the last, a natural Tie, 9 to 9.
SHOE_ENDING_ON_A_TIE = "3C AS 2S 3S\n9H KS 2D 8C\n4H 5D 4S 2C\nCUT\n4C 5H 5C 4D\n" + "KH " * 20


def _demo(journal: Path, *args: str) -> list[dict[str, Any]]:
    bets = [option for region, amount in BETS.items() for option in ("--bet", f"{region}={amount}")]
    run = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--json", "--journal", str(journal),
                          *bets, *args], capture_output=True, text=True, timeout=240, cwd=REPO)
    assert run.returncode == 0, run.stderr[-2000:]
    records = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert not [r for r in records if r["type"] == "refused"], "an input the station refused"
    return records


def _journal_rounds(journal: Path) -> list[dict[str, Any]]:
    recalled = subprocess.run([sys.executable, "-m", "station", "recall", "--journal", str(journal), "--last", "0",
                               "--json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert recalled.returncode == 0, recalled.stderr
    rounds: list[dict[str, Any]] = json.loads(recalled.stdout)
    return rounds


def _stakes(round_: dict[str, Any]) -> dict[str, int]:
    return {bet["region"]: bet["amount"] for bet in round_["bets"]}


def _assert_every_round_holds_the_scripts_bets(rounds: list[dict[str, Any]]) -> None:
    """Every round's Banker and Player bets are the script's, once each: placed afresh, or left
    on by a Tie just before it in the same shoe (then not placed again, which would double
    them), never missing; the Tie bet is placed every round."""
    before: dict[str, Any] | None = None
    for r in rounds:
        carried = before is not None and before["shoe"] == r["shoe"] and before["result"]["outcome"] == "tie"
        assert _stakes(r) == BETS, (r["round_id"], "after a Tie in the shoe" if carried else "no Tie before it",
                                    _stakes(r))
        before = r


def test_the_first_round_of_the_next_shoe_takes_the_banker_and_player_bets_again(tmp_path: Path) -> None:
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(SHOE_ENDING_ON_A_TIE)
    journal = tmp_path / "journal.sqlite3"
    records = _demo(journal, "--shoe-file", str(shoe), "--shoes", "2")
    rounds = _journal_rounds(journal)
    assert [(r["round_id"], r["result"]["outcome"]) for r in rounds] == [
        ("1-1", "banker"), ("1-2", "player"), ("1-3", "tie"), ("2-1", "banker"), ("2-2", "player"), ("2-3", "tie")]
    assert _stakes(rounds[3]) == BETS  # before: {"tie": 1000}, the Banker and Player bets thought left on
    _assert_every_round_holds_the_scripts_bets(rounds)
    streamed = [r for r in records if r["type"] == "round"]
    assert {b["region"]: b["stake"] for b in streamed[3]["bets"]} == BETS


def test_a_seeded_demo_over_a_shoe_that_ends_on_a_tie_bets_every_round(tmp_path: Path) -> None:
    """The default seed's first shoe ends on a Tie; the demo deals both shoes at full speed,
    with rounds dealt ahead of the station within each shoe."""
    journal = tmp_path / "journal.sqlite3"
    _demo(journal, "--seed", "1", "--shoes", "2")
    rounds = _journal_rounds(journal)
    first_shoe = [r for r in rounds if r["shoe"] == 1]
    assert first_shoe[-1]["result"]["outcome"] == "tie", "the seed no longer ends its first shoe on a Tie"
    assert any(r["shoe"] == 2 for r in rounds)
    assert sum(1 for r in rounds if r["result"]["outcome"] == "tie") > 1  # Ties within the shoes too
    _assert_every_round_holds_the_scripts_bets(rounds)
