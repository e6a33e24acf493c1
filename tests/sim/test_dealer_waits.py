"""How the simulated dealer waits for the station: in ``station run`` for as long as a person
takes (saying so in the log at one patience, two, four...), then on from where the station
stands; in ``station demo``, where nobody can decide, it stops at its first patience or the
first irregularity. The dealer here plays an unstarted shoe simulator (it never draws: the
states it is shown need no card)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from drivers.simulators.shoe import ShoeSimulator
from station.core import outputs as out
from station.core.options import CoreOptions
from station.events import DealerAction, Event
from station.sim.dealer import SimulatedDealer
from station.sim.script import DealerScript
from station.sim.watch import StationWatch

from ..waiting import wait_until

PATIENCE_S = 0.05


class Dealer:
    """A simulated dealer and what it posted."""

    def __init__(self, gives_up: bool) -> None:
        self.posted: list[Event] = []
        script = DealerScript(pace_s=0, patience_s=PATIENCE_S, gives_up=gives_up, bets={"banker": 2000})
        self.dealer = SimulatedDealer(self.posted.append, CoreOptions(), script, shoe=ShoeSimulator(),
                                      press=lambda button: False)


@pytest.fixture
def make() -> Iterator[Callable[[bool], Dealer]]:
    made: list[Dealer] = []

    def dealer(gives_up: bool) -> Dealer:
        made.append(Dealer(gives_up))
        return made[-1]

    yield dealer
    for each in made:
        each.dealer.stop()


def until(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """The simulated dealer's tests' wait (tests/sim/test_dealer_*.py): until ``predicate``
    holds, by tests/waiting.py."""
    return wait_until(predicate, timeout, "the simulated dealer's next step", poll=0.01)


def waits(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [entry for entry in logs if entry["event"] == "simulated_dealer_waiting"]


@pytest.mark.parametrize(("state", "expecting"), [
    ("paused", "paused by sam"),
    ("irregularity", "waiting for supervisor: the dealer called the supervisor"),
])
def test_in_a_run_the_dealer_waits_for_the_person_then_goes_on(make: Any, state: str, expecting: str) -> None:
    with capture_logs() as logs:
        table = make(False)
        dealer = table.dealer
        dealer.start(state, expecting)
        wait_until(lambda: len(waits(logs)) >= 4, 10, "the dealer to say four times that it waits", poll=0.01,
                   detail=lambda: waits(logs))
        assert not dealer.stopped.is_set() and dealer.error is None
        reported = waits(logs)[:4]
        assert {(e["waiting_for"], e["state"], e["expecting"]) for e in reported} == {("a person", state, expecting)}
        waited = [e["waited_s"] for e in reported]
        for patiences, seconds in zip((1, 2, 4, 8), waited, strict=True):  # ever rarer
            assert seconds >= patiences * PATIENCE_S
        dealer.observed("betting", "place your bets")  # resumed, or decided
        wait_until(lambda: DealerAction("no_more_bets") in table.posted, 10, "the dealer to go on (no_more_bets)",
                   poll=0.01, detail=lambda: table.posted)
        assert any(e["event"] == "simulated_dealer_goes_on" for e in logs)


def test_in_a_run_a_raised_irregularity_is_waited_for(make: Any) -> None:
    with capture_logs() as logs:
        dealer = make(False).dealer
        dealer.start("revealing", "turn the cards in order, then press reveal")
        dealer.on_output(out.IrregularityRaised(1, "supervisor_called", "called by dana", "1-4", ("resume", "void")))
        dealer.observed("irregularity", "waiting for supervisor: the dealer called the supervisor")
        wait_until(lambda: any(e["event"] == "simulated_dealer_waits_for_a_supervisor" for e in logs), 10,
                   "the dealer to wait for a supervisor", poll=0.01, detail=lambda: logs)
        wait_until(lambda: len(waits(logs)) >= 2, 10, "the dealer to say twice that it waits", poll=0.01,
                   detail=lambda: waits(logs))
        assert not dealer.stopped.is_set()


def test_in_a_demo_the_dealer_stops_at_its_first_patience(make: Any) -> None:
    dealer = make(True).dealer
    started = time.monotonic()
    dealer.start("paused", "paused by sam")
    assert dealer.stopped.wait(10)
    assert time.monotonic() - started < 5
    assert dealer.error is not None and dealer.error.startswith("the station has not moved for 0.")
    assert "'paused'" in dealer.error


def test_in_a_demo_an_irregularity_stops_the_dealer_with_what_is_to_decide(make: Any) -> None:
    dealer = make(True).dealer
    dealer.start("revealing", "turn the cards in order, then press reveal")
    dealer.on_output(out.IrregularityRaised(1, "card_when_stand", "6H drawn when the rules say stand", "1-4",
                                            ("burn", "dummy", "void")))
    assert dealer.stopped.wait(10)
    assert dealer.error == ("irregularity: 6H drawn when the rules say stand "
                            "(a supervisor must decide: burn, dummy, void)")


def test_a_closed_watch_stops_every_wait_at_once_even_after_a_catch_up_took_the_close() -> None:
    """The dealer stops when the station halts it: no wait may sit out its patience after the
    watch is closed (a catch-up that took the close left the next wait blocked, the halt
    waited 5 s for the dealer's thread and the station's screen actions timed out)."""
    watch = StationWatch(DealerScript(patience_s=30, gives_up=True))
    watch.hear(("betting", "place your bets"))
    watch.close()
    assert watch.catch_up()  # takes the view, then the close
    started = time.monotonic()
    assert watch.wait_for_change() is False
    watch.wait_for_rounds_closed(5, threading.Event())
    assert time.monotonic() - started < 1
