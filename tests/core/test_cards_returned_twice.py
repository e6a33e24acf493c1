"""A continuous shuffler's count of cards back, reported more than once before "next round".

The dealer may drop a settled round's cards into the shuffler before pressing "next round";
the station notes them as returned ahead, so that the round's cards, cleared at "next round",
are not counted back twice. A second report before "next round" (a count of nothing: the
shuffler saying where it stands) made the station forget that note: the round's cards were then
put back into the shoe's account a second time, which no shoe can hold (``ImpossibleComposition``
raised, and every round after that latched an internal error), or the next count differed.
"""

from __future__ import annotations

from typing import Any

from station.cards import parse_card
from station.core import outputs as out
from station.core.shoe import ShoeTracking
from station.events import CardsReturned, ShufflerState, ShufflerStatus

from .test_styles_and_shoes import counted


def _continuous(make_table: Any) -> Any:
    table = make_table(equipment="continuous", decks=4)
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    return counted(table, "csm")


def test_a_second_report_before_next_round_keeps_the_cards_counted_once(make_table: Any) -> None:
    table = _continuous(make_table)
    table.bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 2H KD 3D")  # a Player natural
    table.post(CardsReturned("csm", 4))  # dropped in before "next round"
    table.post(CardsReturned("csm", 0))  # the shuffler says where it stands
    table.act("next_round").bet("1", "ann", "player", 1000).act("no_more_bets").cards("9C 2C KC 3C")
    table.post(CardsReturned("csm", 4)).act("next_round")
    assert not [o for o in table.outputs if isinstance(o, out.IrregularityRaised)], table.expectation
    assert len(table.machine.shoe.composition) == 4 * 52
    assert table.state == "betting"


def test_the_shoe_takes_back_no_copy_its_decks_do_not_have() -> None:
    """Put back, a card of which the account holds every copy is refused, not raised: the core
    says so as a mismatch for a person instead of latching an internal error."""
    shoe = ShoeTracking(decks=4, continuous=True)
    shoe.start()
    shoe.take(parse_card("9H"))
    assert shoe.put_back([parse_card("9H"), parse_card("9H")], returned=True) == [parse_card("9H")]
    assert shoe.composition is not None and shoe.composition.count(parse_card("9H")) == 4
