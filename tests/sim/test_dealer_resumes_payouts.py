"""A station restarted while a round's payouts wait for the dealer's confirmation: the station
said ``PayoutsDue`` before it stopped and does not say it again, so the simulated table tells its
dealer where the station stands, and the dealer confirms before it asks for the next round
(otherwise "next round" is refused, the next round's cards are dealt into the one being paid,
and the table stops for a supervisor: 'card drawn when the rules say stand')."""

from __future__ import annotations

from typing import Any

from drivers.simulators.shoe import ShoeSimulator
from station.core.options import CoreOptions
from station.events import DealerAction, Event, PayoutConfirmationRequired, PayoutsConfirmed
from station.sim.dealer import SIMULATED_DEALER, SimulatedDealer
from station.sim.plugin import resume_point
from station.sim.script import DealerScript

from .test_dealer_waits import until


def test_the_round_being_paid_is_in_the_resume_point_after_a_restart(make_table: Any) -> None:
    table = make_table()
    table.post(PayoutConfirmationRequired(True))
    table.start_shoe()
    table.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("2S 4H 3D 4C")
    loop = table.restart()
    resume = resume_point(loop.machine, table.state, table.expectation, table.options)
    assert (resume.state, resume.confirm_payouts, resume.payouts_due) == ("paying", True, "1-1")
    table.post(PayoutsConfirmed("1-1"))
    resume = resume_point(table.machine, table.state, table.expectation, table.options)
    assert (resume.confirm_payouts, resume.payouts_due) == (True, "")  # confirmed: nothing is due


def dealer_at_human_pace(posted: list[Event]) -> SimulatedDealer:
    """A dealer with a shoe of cards in hand, one step at a time (not dealing rounds ahead)."""
    shoe = ShoeSimulator()
    shoe.load_shuffled(decks=1, seed=1)
    return SimulatedDealer(posted.append, CoreOptions(), DealerScript(pace_s=0.001, bets={"banker": 2000}),
                           shoe=shoe, press=lambda button: False)


def test_a_resumed_dealer_confirms_the_payouts_then_asks_for_the_next_round() -> None:
    posted: list[Event] = []
    dealer = dealer_at_human_pace(posted)
    try:
        dealer.resume_payouts(True, "1-1")
        dealer.start("paying", "pay and collect, confirm the payouts of box 1, clear the layout, then next round")
        until(lambda: len(posted) >= 2)
        assert posted[:2] == [PayoutsConfirmed("1-1", (), SIMULATED_DEALER), DealerAction("next_round")]
    finally:
        dealer.stop()


def test_without_a_round_due_the_resumed_dealer_just_asks_for_the_next_round() -> None:
    posted: list[Event] = []
    dealer = dealer_at_human_pace(posted)
    try:
        dealer.resume_payouts(False, "")
        dealer.start("paying", "pay and collect, clear the layout, then next round")
        until(lambda: posted)
        assert posted[0] == DealerAction("next_round")
        assert not any(isinstance(event, PayoutsConfirmed) for event in posted)
    finally:
        dealer.stop()
