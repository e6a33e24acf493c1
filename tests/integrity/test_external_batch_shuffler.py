"""A real ``station run`` against a batch shuffler and a shoe simulated in this process (ptys),
played through the control socket: a set the shuffler reports shuffled, counted and waiting
for the next shoe, then reported otherwise (its door opened), is never dealt: at the end of
the shoe the station waits for it to be shuffled again instead of calling for the cut. A
shuffler that reboots is asked its state again."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.codec.shuffler import RequestDeckCheck, ShufflerGetStatus
from drivers.simulators import CUT_CARD
from station.cards import FULL_DECK, Card

from .external import Station

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def a_set(seed: int) -> list[Card]:
    cards = [card for _ in range(6) for card in FULL_DECK]
    random.Random(seed).shuffle(cards)
    return cards


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    running = Station(tmp_path, equipment="batch")
    yield running
    running.close()


def test_a_set_that_loses_its_shuffled_status_is_never_dealt(station: Station) -> None:
    shuffler = station.shuffler.simulator
    shuffler.load_set(a_set(1), colour="red")
    assert shuffler.start_shuffle() is None and shuffler.wait_shuffled()
    # The station counts the red set (its deck check) and calls for the cut.
    station.wait_for(lambda s: s["state"] == "cutting")
    red = shuffler.take_set()
    station.shoe.simulator.load([*red[:40], CUT_CARD, *red[40:]])  # a short shoe: the cut card comes early
    station.ctl("action", {"action": "confirm_cut"})
    station.deal_while(("burning",))  # the exposed card and the burn
    station.wait_for(lambda s: s["state"] == "betting")

    # The blue set is shuffled and counted during the shoe: ready for the next one ...
    shuffler.load_set(a_set(2), colour="blue")
    assert shuffler.start_shuffle() is None and shuffler.wait_shuffled()
    # ... until the shuffler reports it otherwise: the door opened, then idle (not shuffled).
    shuffler.open_door()
    shuffler.close_door()
    status = station.wait_for(lambda s: "alert:set_not_shuffled" in s["integrity"]["raised"])
    assert status["integrity"]["alerts"][-1]["code"] == "set_not_shuffled"

    while status["state"] == "betting":
        station.play_round()
        status = station.wait_for(lambda s: s["state"] == "paying")
        station.ctl("action", {"action": "next_round"})
        status = station.wait_for(lambda s: s["state"] in ("betting", "shuffling", "cutting"))
    assert status["state"] == "shuffling", status  # never "cutting" with the blue set
    assert status["expecting"] == "shoe finished: waiting for the shuffler: blue set"

    # Shuffled again, the blue set is counted and only then goes into play.
    assert shuffler.start_shuffle() is None and shuffler.wait_shuffled()
    station.wait_for(lambda s: s["state"] == "cutting")


def test_a_shuffler_that_reboots_is_asked_its_state_and_a_set_it_shuffled_is_counted(station: Station) -> None:
    shuffler = station.shuffler.simulator

    def asked() -> int:
        return sum(isinstance(m, ShufflerGetStatus) for m in list(shuffler.received))

    station.wait_for(lambda s: s["state"] == "shuffling" and asked() >= 1)  # asked once at start
    shuffler.load_set(a_set(3), colour="red")
    shuffler.reboot("watchdog reset")  # it may have shuffled or lost anything meanwhile
    station.wait_for(lambda s: asked() >= 2)
    assert station.ctl("status")["state"] == "shuffling"
    assert shuffler.start_shuffle() is None and shuffler.wait_shuffled()
    station.wait_for(lambda s: s["state"] == "cutting")
    assert any(isinstance(m, RequestDeckCheck) for m in list(shuffler.received))
