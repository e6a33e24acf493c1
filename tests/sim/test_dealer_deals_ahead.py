"""The simulated dealer dealing whole rounds ahead at full speed (styles A and C) acts on where
the station stands once it has caught up, never on a state the station has already left.

The station's news reaches the dealer in two streams: its outputs (a round settled) and its
state after each event. When the last round dealt ahead is settled, the state that says so
("paying") may still be on its way; the dealer must not act on the state before it ("press
reveal") and press reveal for a round already revealed, which the station refuses."""

from __future__ import annotations

from typing import Any

from drivers.simulators.shoe import ShoeSimulator
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.events import DealerAction, Event
from station.sim.dealer import SimulatedDealer
from station.sim.script import DealerScript

from .test_dealer_waits import until

PAYING = ("paying", "pay and collect, clear the layout, then next round")
REVEALING = ("revealing", "turn the cards in order, then press reveal")


def settled(number: int) -> out.RoundSettled:
    return out.RoundSettled(RoundId(1, number), "baccarat", (), (), "banker", False, False, False, (), 0)


def test_the_last_round_dealt_ahead_settled_before_its_state_arrives_is_not_revealed_again() -> None:
    posted: list[Event] = []
    shoe = ShoeSimulator()
    shoe.load_shuffled(decks=8, seed=3)
    script = DealerScript(pace_s=0, patience_s=30, rounds=3, bets={"banker": 2000})
    dealer = SimulatedDealer(posted.append, CoreOptions(dealing_style="C"), script, shoe=shoe,
                             press=lambda button: False)
    reveals = DealerAction("reveal")
    try:
        dealer.start(*PAYING)
        until(lambda: posted.count(reveals) == 3)  # three whole rounds, each revealed at its end
        for number in (1, 2, 3):
            dealer.observed(*REVEALING)
            dealer.on_output(settled(number))
            if number < 3:
                dealer.observed(*PAYING)
        # The third settlement is heard; its "paying" is not there yet.
        heard: Any = dealer.watch._heard  # the watch's queue: taken when the dealer has read it all
        until(heard.empty)
        dealer.observed(*PAYING)  # the session's last round: nothing to do on it
        until(heard.empty)
        dealer.observed("betting", "place your bets")  # something the dealer acts on at once
        closes = DealerAction("no_more_bets")
        until(lambda: posted.count(closes) == 4)
        assert posted.count(reveals) == 3, [e for e in posted if isinstance(e, DealerAction)]
    finally:
        dealer.stop()
