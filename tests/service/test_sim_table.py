"""The simulated table's bridge keeps the dealer's screen and the shoe in order.

The screen actions travel over a pipe and the cards over the shoe's serial line; the bridge
posts an action only once the shoe's driver has handed over every shoe event the dealer had
set off before making it. (Whole demos through the real child process are in test_demo.py.)"""

from __future__ import annotations

import threading
from typing import Any

from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.service import sim_table
from station.service.sim_dealer import DealerScript
from station.service.sim_table import SimulatedTable, TableSpec


def _table(posted: list[Event]) -> SimulatedTable:
    return SimulatedTable(TableSpec({}, CoreOptions(), DealerScript()), post=posted.append, press=lambda _: None)


def test_an_action_waits_for_the_cards_slid_out_before_it() -> None:
    posted: list[Event] = []
    table = _table(posted)
    table._on_shoe_delivered(5)
    action = DealerAction("next_round")
    poster = threading.Thread(target=table._post_in_order, args=(7, action))
    poster.start()
    poster.join(0.2)
    assert poster.is_alive() and posted == []  # two shoe events are still on their way
    table._on_shoe_delivered(6)
    poster.join(0.2)
    assert posted == []
    table._on_shoe_delivered(7)
    poster.join(10)
    assert not poster.is_alive() and posted == [action]


def test_an_action_behind_nothing_goes_in_at_once() -> None:
    posted: list[Event] = []
    table = _table(posted)
    table._on_shoe_delivered(3)
    table._post_in_order(3, DealerAction("no_more_bets"))
    assert posted == [DealerAction("no_more_bets")]


def test_a_shoe_that_lost_events_delays_the_action_only_so_long(monkeypatch: Any) -> None:
    monkeypatch.setattr(sim_table, "ORDER_TIMEOUT_S", 0.05)
    posted: list[Event] = []
    table = _table(posted)
    table._post_in_order(1, DealerAction("reveal"))  # no shoe event ever comes
    assert posted == [DealerAction("reveal")]
