"""Rated play on a real ``station run`` against simulators over ptys (docs/ratings.md): a
player rated by a card a supervisor types, a buy-in, rounds dealt, the rating closed through
``station ctl``; what ``status`` shows meanwhile, and the rating, its theoretical win and the
player's cash flagged in ``station meters``."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest

from station.analysis import analyse_baccarat
from station.cards import ShoeComposition
from station.service.control import ControlError

from .conftest import SUPERVISOR_TOKEN

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_a_rated_player_and_their_cash_through_ctl(external_table: Any) -> None:
    table = external_table(bets={"banker": 2000})  # the test dealer's bets: box 1, player P1
    table.start_station()
    with pytest.raises(ControlError, match="refused: no card has been read"):
        table.ctl("rate", {"box": "1", "player": "P1"})
    with pytest.raises(ControlError, match="refused: a dealer rates a player by their card"):
        table.ctl("rate", {"box": "1", "player": "P1", "card": "4000123456789"})
    reply = table.ctl("rate", {"box": "1", "player": "P1", "card": "4000123456789"}, token=SUPERVISOR_TOKEN)
    assert reply.startswith("applied: RatingOpened")
    [rating] = table.status()["ratings"]
    assert (rating["card"], rating["box"], rating["player"]) == ("4000123456789", "1", "P1")
    table.ctl("buy-in", {"box": "1", "player": "P1", "amount": 350_000})
    status = table.play_until(lambda s: s["state"] == "betting")
    for _ in range(3):
        number = status["round"]
        status = table.play_until(lambda s, n=number: s["state"] == "betting" and s["round"] != n)
    assert table.ctl("unrate", {"box": "1", "player": "P1"}).startswith("applied: RatingClosed")
    assert table.status()["ratings"] == []
    assert table.stop_station() == 0

    report = json.loads(subprocess.run(
        [sys.executable, "-m", "station", "meters", "--json", "--journal", str(table.journal)],
        capture_output=True, text=True, timeout=120, check=True).stdout)
    day = report["days"][-1]
    [rated] = day["rated_play"]
    assert rated["card"] == "4000123456789" and rated["hands"] == rated["bets"] >= 3
    assert rated["stakes"] == 2000 * rated["bets"] and rated["average_bet"] == 2000
    # Each Banker bet priced at the Banker's exact edge for 8 decks (1.0579%), rounded at the end.
    banker = analyse_baccarat(ShoeComposition(8)).edge("banker_commission").house_edge
    assert Fraction(rated["theo_exact"]) == 2000 * rated["bets"] * banker
    assert rated["theo"] == round(Fraction(rated["theo_exact"]))
    assert day["cash_by_player"] == [{"player": "4000123456789", "cash": 350_000, "flag": "log"}]
