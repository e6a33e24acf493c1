"""Advantage play on Dragon 7 through the real station (docs/integrity.md, docs/side-bets.md):
a stacked shoe deals its low cards first (aces to sixes, eights and nines, round by round),
so the cards left grow rich in tens and sevens and Dragon 7 turns in the players' favour. A
counter at box 3 bets Dragon 7 harder the better it gets, another player bets it flat. The
integrity monitor of ``station run`` raises the advantage alert for Dragon 7 by itself, and
it names the counter and only the counter."""

from __future__ import annotations

import random
from typing import Any

import pytest

from station.analysis.side_bet_odds import analyse_side_bets
from station.cards import FULL_DECK, ShoeComposition, parse_cards
from station.games.baccarat.rules import play_round

from .test_rule_corners_e2e import action, bet, draw

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SIDE_BETS = "[table.side_bets.dragon_7]\nmin = 500\nmax = 10000\n"
LOW = [card for card in FULL_DECK if card.rank.value not in ("T", "J", "Q", "K", "7")]


def stacked_shoe() -> list[Any]:
    """AS exposed and 2C burned, then 200 low cards (each kind five or six times, shuffled: in
    order, the monitor would rightly call the shoe unshuffled), then the rest of the eight decks."""
    first = parse_cards("AS,2C")
    low = [LOW[k % len(LOW)] for k in range(200)]
    random.Random(37).shuffle(low)
    shoe = ShoeComposition(8)
    shoe.remove_all([*first, *low])
    rest = [card for card, count in shoe for _ in range(count)]
    return [*first, *low, *rest]


def dragon_alerts(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in status["integrity"]["alerts"] if a["code"] == "advantage_situation"
            and "Dragon 7" in a["detail"]]


def test_a_shoe_turning_for_dragon_7_raises_the_alert_naming_the_counter(external_table: Any) -> None:
    table = external_table(table_extra=SIDE_BETS)
    table.start_station()
    table.wait_for(lambda s: s["state"] == "shuffling")
    cards = stacked_shoe()
    table.shoe.simulator.load(cards)
    table.ctl("action", {"action": "shuffle_done"})
    table.ctl("action", {"action": "confirm_cut"})
    draw(table, 2)
    table.wait_for(lambda s: s["state"] == "betting")
    read = 2
    for _ in range(40):
        left = ShoeComposition(8)
        left.remove_all(cards[:read])
        edge = analyse_side_bets(left, ["dragon_7_40"]).edge("dragon_7_40").house_edge * 100
        counted = 500 * max(1, min(20, int(10 - edge)))  # the count says bet more
        bet(table, "dragon_7", counted, box="3", player="ann")
        bet(table, "dragon_7", 500, box="1", player="bob")
        bet(table, "player", 1000, box="5", player="cat")
        action(table, "no_more_bets")
        result = play_round(iter(cards[read:]).__next__)  # the cards this round takes, as the rules deal them
        dealt = len(result.player) + len(result.banker)
        draw(table, dealt)
        read += dealt
        if dragon_alerts(table.wait_for(lambda s: s["state"] == "paying")):
            break
        action(table, "next_round")
        table.wait_for(lambda s: s["state"] == "betting")
    alerts = table.wait_for(lambda s: bool(dragon_alerts(s)), timeout=30)
    detail = dragon_alerts(alerts)[0]["detail"]
    assert "Dragon 7 (three card 7 40:1): the players' edge is +" in detail
    assert "bets rising with it: box 3 ann (r " in detail and "bob" not in detail and "cat" not in detail
    assert table.stop_station() == 0
