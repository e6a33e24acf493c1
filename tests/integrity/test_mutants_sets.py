"""The batch shuffler's two sets, at corners mutation testing (tools/mutate.py,
docs/testing.md) found unguarded: each test here fails on a mutant that survived the rest of
the tests. A real core loop on a real journal; the shuffler's reports and counts go in as the
driver posts them."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.events import CutCardSeen, ShufflerState, ShufflerStatus


def status(state: ShufflerState, colour: str) -> ShufflerStatus:
    return ShufflerStatus("shuffler", state, 100, colour)


def _first_shoe_dealt(table: Any) -> None:
    """The red set through a shoe of two rounds (the cut card in the first)."""
    table.post(status(ShufflerState.DONE, "red")).counted()
    table.act("confirm_cut").cards("2S 2C 2D")


def _end_shoe(table: Any) -> None:
    table.act("no_more_bets").cards("9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    table.act("no_more_bets").cards("9H 2H KD 3D").act("next_round")


def test_the_set_just_dealt_never_goes_back_into_play_on_a_count_meant_for_the_other(make_table: Any) -> None:
    """The blue set was reported shuffled during the red shoe and its count is awaited; the
    shuffler then reports the red set (just dealt) shuffled. The count that comes in does not
    put the red set into play: the blue set is asked for again, and goes in once counted."""
    table = make_table(equipment="batch")
    _first_shoe_dealt(table)
    table.post(status(ShufflerState.DONE, "blue"))
    _end_shoe(table)
    assert table.state == "shuffling"
    table.clear()
    table.post(status(ShufflerState.DONE, "red"))
    assert table.last(out.Refused).reason == "the red set was dealt in the last shoe: waiting for the blue set"
    table.counted()
    assert table.state == "shuffling" and table.loop.snapshot()["shoe"]["set_in_shoe"] == "red"
    assert [r.reason for r in table.of(out.Refused)] == [
        "the red set was dealt in the last shoe: waiting for the blue set"] * 2
    table.post(status(ShufflerState.DONE, "blue"))
    assert table.last(out.DeckCheckWanted).set_colour == "blue"
    table.counted()
    assert table.state == "cutting" and table.loop.snapshot()["shoe"]["set_in_shoe"] == "blue"


def test_the_set_in_the_shuffler_is_the_one_it_shuffles_or_has_shuffled(make_table: Any) -> None:
    """Only a report of shuffling or shuffled names the set in the shuffler (what ``ctl
    status`` shows); an idle report, or one naming no set, leaves it as it was."""
    table = make_table(equipment="batch")

    def in_shuffler() -> str:
        return str(table.loop.snapshot()["shoe"]["set_in_shuffler"])

    table.post(status(ShufflerState.IDLE, "blue"))
    assert in_shuffler() == ""
    table.post(status(ShufflerState.SHUFFLING, "red"))
    assert in_shuffler() == "red"
    table.post(status(ShufflerState.SHUFFLING, ""))
    assert in_shuffler() == "red"
    table.post(status(ShufflerState.IDLE, "blue"))
    assert in_shuffler() == "red"
    table.post(status(ShufflerState.DONE, "blue"))
    assert in_shuffler() == "blue"


def test_after_a_shoe_of_the_second_colour_the_first_is_the_next(make_table: Any) -> None:
    """The blue set (the second of red and blue) went into the first shoe: once it is dealt,
    the red set is the one waited for, and blue reported shuffled again is refused."""
    table = make_table(equipment="batch")
    table.post(status(ShufflerState.DONE, "blue")).counted()
    table.act("confirm_cut").cards("2S 2C 2D")
    _end_shoe(table)
    assert table.state == "shuffling" and table.loop.snapshot()["shoe"]["set_in_shoe"] == "blue"
    table.post(status(ShufflerState.DONE, "blue"))
    assert table.last(out.Refused).reason == "the blue set was dealt in the last shoe: waiting for the red set"
    table.post(status(ShufflerState.DONE, "red")).counted()
    assert table.state == "cutting" and table.loop.snapshot()["shoe"]["set_in_shoe"] == "red"


def test_a_miscount_of_cards_returned_while_the_table_waits_for_a_supervisor_stops_nothing_more(
        make_table: Any) -> None:
    """The alarm is registered; the table already waits for a supervisor for the call, and
    that stays the decision awaited (no second stop over it)."""
    from station.events import CardsReturned

    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY)).counted("csm")
    table.act("no_more_bets").cards("2H KD 3H 7C 4S").act("next_round", "no_more_bets").cards("9H")
    table.act("call_supervisor")
    table.clear()
    table.post(CardsReturned("csm", 4))
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.stop) == ("cards_returned_mismatch", True)
    assert [type(o).__name__ for o in table.outputs] == ["AlertRaised"]
    assert table.state == "irregularity" and table.loop.snapshot()["irregularity"]["reason"] == "supervisor_called"


def test_a_failed_count_names_the_set_by_its_colour_or_as_the_shuffler_s(make_table: Any) -> None:
    """A set reported with its colour is named by it; one reported with none ("?") is the
    shuffler's set."""
    for colour, named in (("red", "the red set"), ("", "the shuffler's set")):
        table = make_table(equipment="batch")
        table.post(status(ShufflerState.DONE, colour)).counted(change={"7H": 7})
        alarm = table.last(out.AlertRaised)
        assert alarm.code == "deck_check_failed"
        assert alarm.detail.startswith(f"{named} failed its deck check: "), alarm.detail
