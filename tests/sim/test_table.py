"""The simulated table's bridge keeps the dealer's screen and the shoe in order.

The screen actions travel over a pipe and the cards over the shoe's serial line; the bridge
posts an action only once the shoe's driver has handed over every shoe event the dealer had
set off before making it. (Whole demos through the real child process are in test_demo.py.)"""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest

from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.sim import cpus, screen_order
from station.sim.screen_order import ScreenOrder
from station.sim.script import DealerScript
from station.sim.spec import TableSpec
from station.sim.table import SimulatedTable

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


class _Order:
    """A ScreenOrder with what it posts and confirms written down."""

    def __init__(self) -> None:
        self.posted: list[Event] = []
        self.confirmed: list[int] = []
        self.order = ScreenOrder(self.posted.append, self.confirmed.append)


def test_an_action_waits_for_the_cards_slid_out_before_it() -> None:
    o = _Order()
    o.order.delivered(5)
    action = DealerAction("next_round")
    o.order.arrived(1, 7, action)
    assert o.posted == []  # two shoe events are still on their way
    o.order.delivered(6)
    assert o.posted == []
    o.order.delivered(7)  # the shoe's reader posts it, and confirms it, itself
    assert o.posted == [action]
    assert o.confirmed == [1]


def test_an_action_behind_nothing_goes_in_at_once_and_a_burst_is_confirmed_once() -> None:
    o = _Order()
    o.order.delivered(3)
    o.order.arrived(1, 3, DealerAction("next_round"))
    o.order.arrived(2, 3, DealerAction("no_more_bets"))
    assert o.posted == [DealerAction("next_round"), DealerAction("no_more_bets")]
    assert o.confirmed == []
    o.order.caught_up()
    assert o.confirmed == [2]


def test_an_action_never_overtakes_one_that_waits() -> None:
    o = _Order()
    o.order.arrived(1, 2, DealerAction("next_round"))
    o.order.arrived(2, 0, DealerAction("no_more_bets"))  # needs no card, but comes after the first
    assert o.posted == []
    o.order.delivered(2)
    assert o.posted == [DealerAction("next_round"), DealerAction("no_more_bets")]
    assert o.confirmed == [2]


def test_posted_actions_are_confirmed_before_one_waits_for_cards() -> None:
    """The dealer's side holds the cards drawn after an unconfirmed action: an action that
    waits for such cards would wait forever if the ones before it were not confirmed first."""
    o = _Order()
    o.order.arrived(1, 0, DealerAction("next_round"))
    assert o.confirmed == []  # more may be coming in the same burst
    o.order.arrived(2, 5, DealerAction("next_round"))
    assert o.posted == [DealerAction("next_round")]
    assert o.confirmed == [1]


def test_a_shoe_that_lost_events_delays_the_action_only_so_long(monkeypatch: Any) -> None:
    monkeypatch.setattr(screen_order, "ORDER_TIMEOUT_S", 0.05)
    o = _Order()
    o.order.arrived(1, 1, DealerAction("reveal"))  # no shoe event ever comes
    o.order.arrived(2, 0, DealerAction("next_round"))
    due = o.order.due_in()
    assert due is not None and due <= 0.05
    o.order.post_overdue()
    assert o.posted == []  # not yet due
    wait_until(lambda: o.order.due_in() == 0, 10, "the parked action overdue", poll=0.01)
    o.order.post_overdue()
    assert o.posted == [DealerAction("reveal"), DealerAction("next_round")]
    assert o.confirmed == [2]
    assert o.order.due_in() is None




def test_the_table_takes_one_cpu_and_the_station_keeps_the_rest() -> None:
    assert cpus.split_for_table(None) is None
    assert cpus.split_for_table({0}) is None  # one CPU: nothing is pinned
    assert cpus.split_for_table({0, 1, 2, 3}) == ({0, 1, 2}, 3)


def test_a_running_table_has_a_cpu_of_its_own_and_gives_the_station_its_cpus_back() -> None:
    allowed = cpus.allowed_cpus()
    if allowed is None or len(allowed) < 2:
        pytest.skip("needs a machine with two CPUs or more")
    table = SimulatedTable(TableSpec({"shoe": ("shoe", {})}, CoreOptions(), DealerScript()),
                           post=lambda event: None, press=lambda button: None)
    table.start()
    try:
        assert os.sched_getaffinity(table._process.pid) == {max(allowed)}
        assert os.sched_getaffinity(0) == allowed - {max(allowed)}
        seen: list[set[int]] = []
        later = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
        later.start()
        later.join()
        assert seen == [allowed - {max(allowed)}]  # threads started meanwhile keep to them too
    finally:
        table.stop()
    assert os.sched_getaffinity(0) == allowed


def test_a_pedal_press_never_overtakes_an_action_that_waits_for_cards() -> None:
    """The dealer bets on the screen, then presses "no more bets" on the pedal: the press
    reaches the station by another path and must not arrive before the bets."""
    o = _Order()
    done: list[str] = []
    o.order.arrived(1, 2, DealerAction("next_round"))  # waits for two shoe events
    o.order.then(lambda: done.append("press"))
    assert done == [] and o.posted == []
    o.order.delivered(2)
    assert o.posted == [DealerAction("next_round")] and done == ["press"]
    o.order.then(lambda: done.append("second press"))  # nothing waits: at once
    assert done == ["press", "second press"]
