"""A whole table over real ptys: shuffler -> shoe -> a round dealt by the rules -> display.

This is how the service and the simulated dealer use the drivers and simulators
together; the game logic here is the pure engine, fed only by the shoe driver's events.
"""

from __future__ import annotations

import queue
from typing import TypeVar

from drivers.codec import display as wire
from drivers.devices import DisplayDriver, ShoeDriver, ShufflerDriver
from drivers.simulators import CUT_CARD, DisplaySimulator, ShoeSimulator, ShufflerSimulator, start_simulator
from station import events as ev
from station.cards import Card
from station.events import ShufflerState
from station.games.baccarat.rules import play_round

from .helpers import FAST, WAIT

E = TypeVar("E", bound=ev.Event)


def test_shuffle_load_deal_and_show_one_round() -> None:
    inbox: queue.Queue[ev.Event] = queue.Queue()  # the core's queue: every driver posts here

    def next_event(kind: type[E]) -> E:
        while True:
            event = inbox.get(timeout=WAIT)
            if isinstance(event, kind):
                return event

    with start_simulator("shuffler", decks=8, seed=11, step_delay=0.0, ack_timeout=0.05) as s_sim, \
            start_simulator("shoe", ack_timeout=0.05) as shoe_sim, \
            start_simulator("display", ack_timeout=0.05) as d_sim:
        shuffler_dev: ShufflerSimulator = s_sim.simulator
        shoe_dev: ShoeSimulator = shoe_sim.simulator
        board_dev: DisplaySimulator = d_sim.simulator
        shuffler = ShufflerDriver("shuffler", s_sim.url, inbox.put, settings=FAST)
        shoe = ShoeDriver("shoe", shoe_sim.url, inbox.put, settings=FAST)
        display = DisplayDriver("display", d_sim.url, inbox.put, settings=FAST)
        drivers = [shuffler, shoe, display]
        try:
            assert all(d.start(WAIT) for d in drivers)
            shuffler.start_shuffle()
            while next_event(ev.ShufflerStatus).state is not ShufflerState.DONE:
                pass
            assert shuffler.deck_check().complete
            cards = shuffler_dev.take_set()
            shoe_dev.load([*cards[:402], CUT_CARD, *cards[402:]])  # the dealer places the cut card
            next_event(ev.CardsPresent)

            dealt: list[Card] = []

            def draw_from_shoe() -> Card:
                shoe_dev.draw()  # the dealer pulls a card; the station only sees the event
                dealt.append(next_event(ev.CardDrawn).card)
                return dealt[-1]

            result = play_round(draw_from_shoe)
            display.show_round(result, round_no=1)
            shown = board_dev.commands(wire.ShowResult)[0]
            assert isinstance(shown, wire.ShowResult)
            assert shown.player_cards == result.player and shown.banker_cards == result.banker
            assert (shown.player_total, shown.banker_total) == (result.player_total, result.banker_total)
            assert dealt == cards[: len(dealt)] and 4 <= len(dealt) <= 6
            assert shoe_dev.remaining() == 416 - len(dealt)
        finally:
            for driver in drivers:
                driver.stop()
