"""After a restart, the cards the simulated dealer takes back from a continuous shuffler are
exactly those out of it.

A simulated continuous shuffler restarts full, so the cards the journal says are out of it
come out of its pool and go back to the dealer, who returns them with the next round's. At
full speed the dealer may drop a settled round's cards in before "next round"; the station
counts them back then (``returned_ahead``). Before, the resume point counted them as out once
more: the dealer returned them twice, the count differed from the station's, and a SIGKILL at
that moment stopped the table for a supervisor ("the shuffler counted a different number of
cards back"). Casino War's war burns are on the layout too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from station.events import CardsReturned, DealerAction, ShufflerState, ShufflerStatus
from station.sim.plugin import resume_point

from ..core.test_styles_and_shoes import counted


def _out(table: Any) -> Counter[str]:
    loop = table.loop
    resume = resume_point(loop.machine, loop.state, loop.expectation, table.options)
    return Counter(card.code for card in resume.out_cards)


def _ready(table: Any) -> Any:
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    return counted(table, "csm")


def test_cards_counted_back_ahead_of_next_round_are_not_out(make_table: Any) -> None:
    table = _ready(make_table(equipment="continuous", decks=4))
    table.bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 2H KD 3D")  # Player natural
    assert _out(table) == Counter({"9H": 1, "2H": 1, "KD": 1, "3D": 1})
    table.post(CardsReturned("csm", 4))  # dropped in before "next round"
    assert _out(table) == Counter()
    table.act("next_round").bet("1", "ann", "player", 1000).act("no_more_bets").cards("QC")
    assert _out(table) == Counter({"QC": 1})
    # What the dealer then returns (the card handed back and the rest of the round) is what the
    # station counts: no irregularity.
    table.restart()
    table.cards("4H 6H 6C 5H")
    table.post(CardsReturned("csm", 5))
    assert table.state == "paying", table.expectation


def test_a_war_burn_is_out_of_the_shuffler(make_table: Any) -> None:
    table = _ready(make_table(game="war", equipment="continuous", decks=6))
    table.bet("1", "ann", "war", 1000).act("no_more_bets").cards("7H 7S")  # box 1 ties the dealer
    table.post(DealerAction("war", box="1"))
    assert table.state == "war_burning"
    table.cards("2C 3C 4C")
    assert _out(table) == Counter({"7H": 1, "7S": 1, "2C": 1, "3C": 1, "4C": 1})
    table.restart()
    table.cards("KH 5D")  # the war cards: the box wins
    assert table.state == "paying"
    table.act("next_round").post(CardsReturned("csm", 7))
    assert table.state == "betting", table.expectation
