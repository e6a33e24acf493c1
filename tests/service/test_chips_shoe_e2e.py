"""A whole shoe at the shipped chip table with not one bet keyed (docs/chips.md): ``station
demo`` of config/examples/baccarat-chips.toml on a stacked shoe, its simulated dealer betting,
paying and clearing with chips on the simulated reader's layout only. Every round is settled
again here from its cards alone (the hands' totals, the Banker's commission of 5%, the Tie's
8 to 1, a Tie's Banker and Player bets left on), to the minor unit; every payment was found
right; the journal holds no keyed bet and verifies deep."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..shipped import shipped

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: A stacked shoe's cards, dealt in order by the third-card rules (the cut card after the fifth
#: group): Banker, Player and Tie results, naturals and third cards among them.
ROUNDS = ("KH 2D 6S 2C 3H", "8H 2D KS 3C", "KH KD 7S 7C", "2H 9D 3S KC", "4H 5D 4S 3C", "9H 2D KS 5C 6H",
          "3H 2D 2S 3C 9D 8S")
VALUE = {**{str(n): n for n in range(2, 10)}, "A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
BETS = {"banker": 2000, "player": 1000}


def total(cards: list[str]) -> int:
    return sum(VALUE[card[0]] for card in cards) % 10


def settled_again(round_: dict[str, Any]) -> dict[str, int]:
    """Each bet's net from the round's cards alone (not from the station's settlement)."""
    hands: dict[str, list[str]] = {}
    for position, card in round_["dealt"]:
        hands.setdefault(position, []).append(card)
    player, banker = total(hands["player"]), total(hands["banker"])
    if player == banker:
        return {"banker": 0, "player": 0}
    if banker > player:
        return {"banker": BETS["banker"] * 95 // 100, "player": -BETS["player"]}
    return {"banker": -BETS["banker"], "player": BETS["player"]}


def test_a_whole_shoe_of_chips_and_no_keyed_bet_is_settled_exactly(tmp_path: Path) -> None:
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C " + " ".join(ROUNDS[:5]) + " CUT " + " ".join(ROUNDS[5:]) + " 9S 9D 9C 9H 8S 8D\n")
    journal = tmp_path / "journal.sqlite3"
    config = shipped("baccarat-chips")
    done = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--shoe-file", str(shoe), "--journal",
                           str(journal), "-c", str(config)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    said = [line for line in done.stdout.splitlines() if line.startswith("chips: ")]
    assert len(said) == 1 and "0 wrong payments; 0 chips moved" in said[0], done.stdout
    checked, right = (int(n) for n in re.findall(r"(\d+) (?:payments checked|right)", said[0]))
    assert checked == right > 0, said
    recalled = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--journal",
                               str(journal), "--config", str(config)], capture_output=True, text=True, timeout=300,
                              check=True)
    rounds = [r for r in json.loads(recalled.stdout) if r["settlement"]]
    outcomes = {r["result"]["outcome"] for r in rounds}
    assert len(rounds) >= 6 and outcomes == {"banker", "player", "tie"}, [r["round_id"] for r in rounds]
    for round_ in rounds:
        nets = {s["region"]: s["net"] for s in round_["settlement"]}
        assert nets == settled_again(round_), round_["round_id"]
        chips = round_["chips"]
        assert chips["confirmed"], f"{round_['round_id']}: no tap confirmed its chips"
        owed = sum(n for n in nets.values() if n > 0)  # the winnings paid in the payout zone
        if owed:
            assert [(p["owed"], p["verdict"]) for p in chips["payment"]] == [(owed, "right")], round_["round_id"]
        assert not chips["moved"] and not chips["alarms"] and chips["held"] is None
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        kinds = dict(db.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
    assert "BetPlaced" not in kinds and "BetChanged" not in kinds  # not one bet keyed
    assert kinds["ChipBetsConfirmed"] >= len(rounds) and kinds["ChipsOnPlace"] > 0
    verified = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--deep", "--journal",
                               str(journal)], capture_output=True, text=True, timeout=300)
    assert verified.returncode == 0 and "intact" in verified.stdout, verified.stdout + verified.stderr


def test_a_simulated_dealer_told_to_key_its_bets_keys_them_while_the_reader_reads(tmp_path: Path) -> None:
    import tomllib

    import tomli_w

    data = tomllib.loads(shipped("baccarat-chips").read_text())
    data["chip_reader"]["registry"] = str(shipped("baccarat-chips").parent / data["chip_reader"]["registry"])
    data["dealer"]["bets_by"] = "keys"
    data["table"]["chip_bets"]["hold_wrong_payment"] = False
    config = tmp_path / "keys.toml"
    config.write_text(tomli_w.dumps(data))
    journal = tmp_path / "journal.sqlite3"
    done = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--rounds", "3", "--journal",
                           str(journal), "-c", str(config)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        kinds = dict(db.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
    assert kinds["BetPlaced"] >= 3 and "ChipBetsConfirmed" not in kinds and kinds["ChipRegistryInForce"] == 1
