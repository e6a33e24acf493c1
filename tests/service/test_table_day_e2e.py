"""A whole day of one table on the simulated hardware, on a real ``station run`` over ptys,
everything through ``station ctl`` (docs/tray.md, docs/limits.md, docs/ratings.md): the table
opens with an opener, takes two fills and a credit, changes its limits, changes dealers twice,
rates three players who buy in with cash, then closes with its closer and its drop. The dealer
overpaid one bet from the tray by 25.00 (the chips left the tray, the rounds did not pay them).

Checked against the journal, by this test's own arithmetic: the win by inventory equals
closer - opener + credits - fills + drop to the chip; the variance equals the overpay; each
rating's theoretical win equals an independent sum of each of its bets' stake times the exact
edge of its wager (worked out here from the enumeration's counts); recall gives each round the
limits it was played under; the dealers' sessions are the day's three."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest

from station.analysis.baccarat_odds import count_rounds
from station.cards import ShoeComposition

from .conftest import SUPERVISOR_TOKEN

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

PLAYERS = (("1", "P1", "4000000000011"), ("2", "P2", "4000000000022"), ("3", "P3", "4000000000033"))
OPENER = [[100, 2000], [500, 400], [1000, 200], [2500, 200]]
FILLS = ([[2500, 40]], [[1000, 50]])
CREDIT = [[100, 500]]
OVERPAY = 2500


def worth(chips: list[list[int]]) -> int:
    return sum(d * n for d, n in chips)


def edges() -> dict[str, Fraction]:
    """Banker (5% commission), Player and Tie 8:1 for 8 decks, from the counts of every round."""
    c = count_rounds(ShoeComposition(8).by_baccarat_value())
    total = c.banker + c.player + c.tie
    return {"banker": Fraction(c.player - c.banker * Fraction(95, 100), total),
            "player": Fraction(c.banker - c.player, total), "tie": Fraction(c.banker + c.player - 8 * c.tie, total)}


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_table_s_whole_day(external_table: Any) -> None:
    table = external_table()
    table.start_station()

    def supervisor(command: str, args: dict[str, Any]) -> None:
        assert str(table.ctl(command, args, token=SUPERVISOR_TOKEN)).startswith("applied"), command

    def place_bets() -> None:  # the three rated players' bets, each round
        for box, who, _ in PLAYERS:
            region = ("banker", "player", "tie")[int(box) - 1]
            table.ctl("bet", {"box": box, "player": who, "region": region, "amount": 2000})  # Banker: 20.00 steps

    table.place_bets = place_bets
    supervisor("tray", {"what": "opener", "chips": OPENER, "witness": "dana"})
    supervisor("dealer", {"name": "dana"})
    for box, who, card in PLAYERS:
        supervisor("rate", {"box": box, "player": who, "card": card})
        table.ctl("buy-in", {"box": box, "player": who, "amount": 20_000})

    def rounds(count: int) -> None:
        status = table.play_until(lambda s: s["state"] == "betting")
        for _ in range(count):
            number = status["round"]
            status = table.play_until(lambda s, n=number: s["state"] == "betting" and s["round"] != n)

    rounds(3)
    supervisor("tray", {"what": "fill", "chips": FILLS[0], "witness": "rob", "slip": "F-1"})
    supervisor("limits", {"min_bet": 1000, "reason": "evening"})
    supervisor("dealer", {"name": "sam"})
    rounds(3)
    supervisor("tray", {"what": "fill", "chips": FILLS[1], "witness": "rob", "slip": "F-2"})
    supervisor("tray", {"what": "credit", "chips": CREDIT, "witness": "rob", "slip": "C-1"})
    supervisor("dealer", {"name": "dana"})
    rounds(2)
    supervisor("pause", {"reason": "the table closes"})
    table.wait_for(lambda s: s["state"] == "paused")
    for box, who, _ in PLAYERS:
        table.ctl("unrate", {"box": box, "player": who})
    house = table.status()["tray"]["house"]
    drop = 3 * 20_000
    # The tray as the day left it: opener, fills in, the credit out, the buy-ins' chips out to
    # the players, the rounds' result in, and the overpay's 25.00 chip gone.
    closing = worth(OPENER) + worth(FILLS[0]) + worth(FILLS[1]) - worth(CREDIT) - drop + house - OVERPAY
    closer = [[100, closing // 100]]
    supervisor("tray", {"what": "closer", "chips": closer, "witness": "dana"})
    supervisor("drop", {"amount": drop, "note": "count room"})
    assert table.stop_station() == 0

    day = json.loads(run("meters", "--json", "--journal", str(table.journal)))["days"][-1]
    totals = day["totals"]
    win = worth(closer) - worth(OPENER) + worth(CREDIT) - worth(FILLS[0]) - worth(FILLS[1]) + drop
    assert (totals["win"], totals["drop"]) == (win, drop)
    assert totals["variance"] == -OVERPAY and totals["house"] == house
    assert totals["hold_percent"] == round(win * 100 / drop, 2)

    # Each rating's theoretical win: its bets (from recall of the rounds) times their edges.
    recalled = [r for r in json.loads(run("recall", "--last", "0", "--json", "--config", str(table.config)))
                if r["settlement"]]  # the rounds dealt (the next one was open, and empty, when the table paused)
    edge = edges()
    theo: dict[str, Fraction] = {who: Fraction(0) for _, who, _ in PLAYERS}
    for round_ in recalled:
        for bet in round_["bets"]:
            theo[bet["player"]] += bet["amount"] * edge[bet["region"]]
    rated = {r["player"]: r for r in day["rated_play"]}
    assert set(rated) == {"P1", "P2", "P3"}
    for who, expected in theo.items():
        assert Fraction(rated[who]["theo_exact"]) == expected, who
        assert rated[who]["hands"] == len(recalled) and rated[who]["average_bet"] == 2000
    assert {c["player"]: c["cash"] for c in day["cash_by_player"]} == {card: 20_000 for _, _, card in PLAYERS}

    # Recall gives each round its limits: the minimum raised from the round after the change.
    minimums = [r["limits"]["min_bet"] for r in recalled]
    assert minimums[:3] == [500] * 3 and set(minimums[4:]) == {1000}, minimums
    sessions = [s["dealer"] for s in day["sessions"] if s["session"]]
    assert sessions == ["dana", "sam", "dana"], sessions
