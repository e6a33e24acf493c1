"""Casino War through the core loop: first cards, war or surrender, burn three, war cards."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.events import DealerAction


@pytest.fixture
def war_table(make_table: Any) -> Any:
    table = make_table(game="war")
    table.start_shoe()
    return table


def test_one_card_to_each_box_then_the_dealer(war_table: Any) -> None:
    t = war_table
    t.bet("1", "ann", "war", 2000).bet("3", "bo", "war", 2000).bet("3", "bo", "tie", 1000)
    t.act("no_more_bets")
    assert t.expectation == "deal box 1"
    t.cards("KH")
    assert t.expectation == "deal box 3"
    t.cards("5D")
    assert t.expectation == "deal Dealer"
    t.cards("9C")
    assert t.state == "paying"
    settled = t.last(out.RoundSettled)
    nets = {(b.box, b.region): (b.outcome, b.net) for b in settled.bets}
    assert nets == {("1", "war"): ("win", 2000), ("3", "war"): ("lose", -2000), ("3", "tie"): ("lose", -1000)}
    revealed = [(o.position, o.card.code) for o in t.of(out.CardRevealed)]
    assert revealed == [("box 1", "KH"), ("box 3", "5D"), ("dealer", "9C")]


def test_tie_then_war_burn_three_and_war_cards(war_table: Any) -> None:
    t = war_table
    t.bet("1", "ann", "war", 2000).bet("1", "ann", "tie", 1000).bet("2", "bo", "war", 2000)
    t.act("no_more_bets").cards("9H 9D 9C")  # both boxes tie the dealer
    assert t.state == "war_decision"
    assert t.last(out.WarDecisionNeeded).boxes == ("1", "2")
    assert t.expectation == "box 1: ann goes to war or surrenders"
    t.cards("2S")  # no card before the decisions
    assert t.last(out.IrregularityRaised).reason == "card_when_stand"
    t.decide("burn")
    t.post(DealerAction("war", box="1"))
    t.post(DealerAction("surrender", box="2", player="bo"))
    assert (t.state, t.expectation) == ("war_burning", "burn 3 cards")
    t.cards("3S 4S 5S")
    assert (t.state, t.expectation) == ("war_dealing", "deal box 1 war card")
    t.cards("QH")
    assert t.expectation == "deal Dealer war card"
    t.cards("QD")  # tie in the war: go-to-war wins, original stands off
    settled = t.last(out.RoundSettled)
    got = [(b.box, b.region, b.outcome, b.net) for b in settled.bets]
    assert got == [
        ("1", "war", "push", 0),
        ("1", "go_to_war", "win", 2000),
        ("1", "tie", "win", 10000),
        ("2", "war", "surrender", -1000),
    ]
    assert settled.house_net == -11000
    assert [c.code for c in t.machine.round.burned] == ["2S", "3S", "4S", "5S"]  # 2S by decision


def test_everyone_surrenders_so_no_war(war_table: Any) -> None:
    t = war_table
    t.bet("4", "cy", "war", 2000).act("no_more_bets").cards("7H 7D")
    t.post(DealerAction("surrender", box="4"))
    assert t.state == "paying" and t.last(out.RoundSettled).bets[0].net == -1000


def test_war_decisions_are_checked(war_table: Any) -> None:
    t = war_table
    t.bet("4", "cy", "war", 2000).act("no_more_bets").cards("7H 7D")
    t.post(DealerAction("war", box="5"))
    assert "nobody on box 5" in t.last(out.Refused).reason
    t.post(DealerAction("war", box="4"))
    assert t.state == "war_burning"


def test_a_round_needs_a_wager(war_table: Any) -> None:
    war_table.act("no_more_bets")
    assert "needs at least one" in war_table.last(out.Refused).reason
    assert war_table.state == "betting"


def test_restart_during_a_war(war_table: Any) -> None:
    t = war_table
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("9H 9C")
    t.post(DealerAction("war", box="1")).cards("3S")
    before = t.loop.snapshot()
    t.restart()
    assert t.loop.snapshot() == before and t.expectation == "burn 2 cards"
