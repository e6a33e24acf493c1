"""A restart while the table waits for the cut: the simulated dealer puts back the shoe it had
shuffled and put in, so that after the cut there are cards to burn and deal.

The station's count of a new shoe starts at the cut, so the resume point still carries the
last shoe's leftover cards; those must not go in. Found by the kill-and-restart test: killed
between "shuffle done" and the cut, the station came back to an empty simulated shoe, the
dealer confirmed the cut and stopped with "cannot draw a card: the shoe is empty".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from drivers.simulators import CUT_CARD
from drivers.simulators.shoe import ShoeSimulator
from station.cards import Card, ShoeComposition
from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.sim.dealer import SimulatedDealer
from station.sim.script import DealerScript

from .test_dealer_waits import until

CUT_WORDS = "cut the cards and place the cut card, then confirm the cut"


@pytest.fixture
def dealing() -> Iterator[Any]:
    made: list[SimulatedDealer] = []

    def dealer(shoe: ShoeSimulator, posted: list[Event]) -> tuple[SimulatedDealer, DealerScript]:
        script = DealerScript(pace_s=0, patience_s=5, gives_up=False, bets={"banker": 2000})
        made.append(SimulatedDealer(posted.append, CoreOptions(), script, shoe=shoe, press=lambda button: False))
        return made[-1], script

    yield dealer
    for each in made:
        each.stop()


def _leftover() -> ShoeComposition:
    """What the station's count says after a shoe ended: a few cards of the last shoe."""
    full = ShoeComposition(8)
    for card in [Card.parse(code) for code in ("AS", "KD", "7C")]:
        full.remove(card)
    return full


def test_restarted_at_the_cut_the_dealer_puts_the_shuffled_shoe_back_and_cuts(dealing: Any) -> None:
    shoe, posted = ShoeSimulator(), list[Event]()
    dealer, script = dealing(shoe, posted)
    dealer.resume_round([], "banker", shoes_dealt=5)
    dealer.start("cutting", CUT_WORDS, remaining=_leftover(), cut_card_out=True)
    until(lambda: any(isinstance(e, DealerAction) and e.action == "confirm_cut" for e in posted))
    expected = [item for item in script.shoe(6) if item is not CUT_CARD]
    assert shoe.remaining() == len(expected) == 8 * 52, "the new shoe, whole: not the leftover"
    assert [shoe.draw() for _ in range(3)] == expected[:3], "the same shoe as before the restart: shoe 6's"


def test_a_shoe_that_still_holds_cards_at_the_cut_is_left_as_it_is(dealing: Any) -> None:
    shoe, posted = ShoeSimulator(), list[Event]()
    stacked = [Card.parse(code) for code in ("2H", "3H", "4H")]
    shoe.load(stacked)
    dealer, _ = dealing(shoe, posted)
    dealer.resume_round([], "", shoes_dealt=1)
    dealer.start("cutting", CUT_WORDS, remaining=_leftover())
    until(lambda: any(isinstance(e, DealerAction) and e.action == "confirm_cut" for e in posted))
    assert [shoe.draw() for _ in range(3)] == stacked
