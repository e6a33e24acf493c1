"""Every winning hand of every side bet through the real station (docs/side-bets.md): one
stacked shoe whose 22 rounds hold, between them, each hand every default pay table names (a
Dragon 7, a Panda 8, each pair, Perfect Pair one and both suited, each Dragon Bonus margin,
its natural win and natural tie, each hand of the progressive, its jackpot included). A
player bets every side bet in every round through the control socket; ``station recall``
must show each bet paid what the oracle written from the rules' text says
(tests/side_bet_oracle.py), to the minor unit, and the journal verify by a deep replay."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_cards
from station.games.baccarat.rules import play_round
from station.games.baccarat.side_bets import DEFAULT_PAY_TABLES, PAY_TABLES, side_hand

from ..side_bet_oracle import ORACLE
from .conftest import SUPERVISOR_TOKEN
from .test_rule_corners_e2e import action, bet, draw, open_stacked_shoe, recalled
from .test_side_bets_e2e import verified_deep

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: Found by a seeded search of shuffled shoes (the rare ones written by hand first): together
#: they deal each hand of each default pay table.
ROUNDS = (
    "4S 9H 4S 9H", "4S 9H 4D 9C", "7S 7H 7S 7H 2C 2D", "TC 7D AS KS 9H", "7S 3H 6H KC 7S AD", "AD 8C 8S 5C",
    "KC 5C KD 3S", "9S KC 6S 4D 5C 2S", "TH 4D 2C QC 7H 9D", "AS 5C 5D 6C QH", "AC 9S AC 6C 7S AH",
    "7C JH 9D KH 2C", "QD 8S 4S 5C TH 6S", "TS KC 7C KS TH", "QD 9H AS 9H", "9S KD 5S 2H JC 5D",
    "2H 8C 8S 7D 8H", "4D TS 4C 9S", "3D QH AD 4C 5S 7H", "AC JS 2H 3S 7S 5H", "5S AC 8D 3S 7C 5D",
    "KC JS 2H TS 7S JD",
)
TABLES = [PAY_TABLES[name] for name in DEFAULT_PAY_TABLES.values()]
STAKES = {table.bet.value: (100 if table.meter else 500) for table in TABLES}
OFFERED = "".join(f"[table.side_bets.{region}]\nmin = {stake}\nmax = 10000\n" for region, stake in STAKES.items())
PROGRESSIVE = '[table.progressive]\npool = "every-hand"\nseed = 100000\nshare_bp = 1000\n'


def result_of(cards: str) -> Any:
    return play_round(iter(parse_cards(cards.replace(" ", ","))).__next__)


def test_the_stacked_rounds_hold_every_hand_of_every_pay_table() -> None:
    dealt = {(t.name, side_hand(t.bet, result_of(cards))) for cards in ROUNDS for t in TABLES}
    named = {(t.name, hand) for t in TABLES for hand in (*t.awards, *t.pushes, *t.meter)}
    assert named <= dealt, named - dealt


def test_every_hand_of_every_side_bet_is_paid_as_the_rules_say_through_the_station(external_table: Any) -> None:
    table = external_table(table_extra=OFFERED + PROGRESSIVE)
    table.start_station()
    open_stacked_shoe(table, "  ".join(ROUNDS))
    for cards in ROUNDS:
        for region, stake in STAKES.items():
            bet(table, region, stake, box="2", player="ann")
        action(table, "no_more_bets")
        draw(table, len(cards.split()))
        status = table.wait_for(lambda s: s["state"] == "paying")
        pending = status["progressive"]["pending"]
        if pending is not None:  # the jackpot round: a supervisor signs it off first
            table.ctl("progressive-sign-off", {"round_id": pending["round_id"]}, token=SUPERVISOR_TOKEN)
            table.wait_for(lambda s: s["progressive"]["pending"] is None)
        action(table, "next_round")
        table.wait_for(lambda s: s["state"] == "betting")
    assert table.stop_station() == 0
    rounds = recalled(table)[:len(ROUNDS)]
    for cards, recall in zip(ROUNDS, rounds, strict=True):
        result = result_of(cards)
        paid = {s["region"]: (s["outcome"], s["net"]) for s in recall["settlement"]}
        for t in TABLES:
            odds, stake = ORACLE[t.name](result), STAKES[t.bet.value]
            hand = side_hand(t.bet, result)
            expected = (("win", stake * odds) if odds > 0 else ("win", 0) if hand in t.meter
                        else ("push", 0) if odds == 0 else ("lose", -stake))
            assert paid[t.bet.value] == expected, (cards, t.name, hand)
    assert rounds[0]["jackpot"]["signed_off"]["total"] > 100_000  # the seed and the first round's share
    verified_deep(table.journal)
