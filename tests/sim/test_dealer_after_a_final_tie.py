"""The simulated dealer after a shoe that ended on a Tie.

After a baccarat Tie the Banker and Player bets stay on the layout for the next round (rule
5.16), so the dealer does not place them again. At the end of a shoe, though, the core hands
those bets back to their owners: the next shoe's first round takes them afresh. Before, the
dealer's watch never forgot the Tie (and a restart's resume point said "tie" from the last
shoe's results until the next cut), so the first round of the new shoe was dealt without its
Banker and Player bets. tests/service/test_demo_after_a_final_tie.py plays it end to end.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators.shoe import ShoeSimulator
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.events import BetPlaced, CutCardSeen, DealerAction, Event
from station.sim.dealer import SimulatedDealer
from station.sim.plugin import resume_point
from station.sim.script import DealerScript
from station.sim.watch import StationWatch

from ..core_table import Table
from .test_dealer_waits import until

BETS = {"banker": 2000, "player": 1000, "tie": 500}
LAST_PAYING = ("paying", "pay and collect, clear the layout, then next round (shoe finished)")
PAYING = ("paying", "pay and collect, clear the layout, then next round")
SHUFFLING = ("shuffling", "shoe finished: shuffle the cards, then press shuffle done")
CUTTING = ("cutting", "cut the cards and place the cut card, then confirm the cut")
BETTING = ("betting", "place your bets")
#: A natural Tie: Player 4C 5C, Banker 5H 4D (9 to 9), in dealing order.
TIE_CARDS = "4C 5H 5C 4D"


def settled(outcome: str, number: int = 80) -> out.RoundSettled:
    return out.RoundSettled(RoundId(1, number), "baccarat", (), (), outcome, False, False, False, (), 0)


# --- the watch ---------------------------------------------------------------------------------


def _watch_after(*heard: out.Output | tuple[str, str]) -> StationWatch:
    watch = StationWatch(DealerScript(pace_s=0, bets=BETS))
    for item in heard:
        watch.hear(item)
    watch.catch_up()
    return watch


def test_the_watch_forgets_the_tie_when_the_shoe_ends() -> None:
    assert _watch_after(settled("tie"), LAST_PAYING).last_outcome == "tie"  # the bets are still out
    assert _watch_after(settled("tie"), LAST_PAYING, SHUFFLING).last_outcome == ""


def test_the_watch_forgets_the_tie_when_a_batch_shuffler_goes_straight_to_the_cut() -> None:
    """A batch shuffler's next set can be ready as the shoe ends: the station's state after
    "next round" is then "cutting", and the dealer never hears "shuffling"."""
    assert _watch_after(settled("tie"), LAST_PAYING, CUTTING).last_outcome == ""


def test_a_tie_within_the_shoe_is_remembered() -> None:
    assert _watch_after(settled("tie", 12), PAYING, BETTING).last_outcome == "tie"


# --- the dealer --------------------------------------------------------------------------------


@pytest.fixture
def dealing() -> Iterator[Any]:
    made: list[SimulatedDealer] = []

    def dealer(posted: list[Event]) -> SimulatedDealer:
        # A little pace: at full speed the dealer would deal the next round ahead of the station.
        script = DealerScript(pace_s=0.001, patience_s=30, gives_up=False, bets=BETS)
        shoe = ShoeSimulator()
        shoe.load_shuffled(decks=8, seed=3)  # cards in it: the shoe is not over
        made.append(SimulatedDealer(posted.append, CoreOptions(), script, shoe=shoe, press=lambda button: False))
        return made[-1]

    yield dealer
    for each in made:
        each.stop()


def _bets(posted: list[Event]) -> list[str]:
    return [event.region for event in posted if isinstance(event, BetPlaced)]


def _posted(posted: list[Event], action: str) -> bool:
    return DealerAction(action) in posted


def test_after_a_shoe_that_ended_on_a_tie_the_next_shoe_opens_with_every_bet(dealing: Any) -> None:
    posted: list[Event] = []
    dealer = dealing(posted)
    dealer.on_output(settled("tie"))
    dealer.start(*LAST_PAYING)
    until(lambda: _posted(posted, "next_round"))
    dealer.observed(*SHUFFLING)  # the shoe ended: its carried bets went back to their owners
    until(lambda: _posted(posted, "shuffle_done"))
    dealer.observed(*BETTING)  # straight to the bets (the cut and the burn need no bets)
    until(lambda: _posted(posted, "no_more_bets"))
    assert _bets(posted) == ["banker", "player", "tie"]


def test_after_a_tie_within_the_shoe_the_banker_and_player_bets_stay_on(dealing: Any) -> None:
    posted: list[Event] = []
    dealer = dealing(posted)
    dealer.on_output(settled("tie", 12))
    dealer.start(*PAYING)
    until(lambda: _posted(posted, "next_round"))
    dealer.observed(*BETTING)
    until(lambda: _posted(posted, "no_more_bets"))
    assert _bets(posted) == ["tie"]


# --- a restart's resume point --------------------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    made = Table(tmp_path / "journal.sqlite3", CoreOptions())
    yield made
    made.loop.close()


def _last_outcome(table: Table) -> str:
    return resume_point(table.machine, table.state, table.expectation, table.options).last_outcome


def _bet_everything(table: Table) -> Table:
    for region, amount in BETS.items():
        table.bet("1", "P1", region, amount)
    return table


def test_a_restart_after_a_final_tie_does_not_say_tie_once_the_shoe_has_ended(table: Table) -> None:
    _bet_everything(table.start_shoe()).act("no_more_bets").post(CutCardSeen("shoe"))  # the last round
    table.cards(TIE_CARDS)
    assert table.state == "paying" and table.machine.carried is not None
    assert _last_outcome(table) == "tie"  # settled, its bets left on: the next round would take them
    table.act("next_round")
    assert table.state == "shuffling" and table.machine.carried is None  # handed back at the shoe's end
    assert _last_outcome(table) == ""
    table.act("shuffle_done")
    assert table.state == "cutting" and _last_outcome(table) == ""  # the shoe's results end on the Tie still
    table.act("confirm_cut").cards("2S").cards("2C 2D")
    assert table.state == "betting" and _last_outcome(table) == ""


def test_a_restart_after_a_tie_within_the_shoe_says_tie_while_its_bets_are_out(table: Table) -> None:
    _bet_everything(table.start_shoe()).act("no_more_bets").cards(TIE_CARDS)
    assert table.state == "paying" and _last_outcome(table) == "tie"
    table.act("next_round")  # the carried bets are the new round's now
    assert table.state == "betting" and table.machine.carried is None
    assert set(table.machine.round.bets) == {("1", "P1", "banker"), ("1", "P1", "player")}
    assert _last_outcome(table) == "tie"  # the dealer must not place them a second time
    table.bet("1", "P1", "tie", 500).act("no_more_bets").cards("9H 2H KD 3D")  # Player 9 to Banker 3
    assert table.state == "paying" and _last_outcome(table) == "player"
