"""A pause asked mid-round is accepted and begins when the round ends ("pause the table after
the current round"); until then the dealer's line (the display board's expected action, and
``ctl status``) says it is coming. A real core loop on a real journal (tests/core_table.py)."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.events import Actor, PauseRequested, ResumeRequested

SAM = Actor("supervisor", "sam")
COMING = "(pause asked by sam: it begins when the round ends)"


def dealing(table: Any) -> Any:
    return table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")


def test_a_pause_asked_with_cards_in_flight_begins_when_the_round_is_decided(table: Any) -> None:
    dealing(table).cards("2H 3H")
    table.clear()
    table.post(PauseRequested(SAM, "fill the float"))
    assert not table.of(out.Refused)
    assert table.last(out.PausePending) == out.PausePending("supervisor", "sam", "fill the float")
    assert table.state == "dealing" and table.expectation.endswith(COMING)
    assert table.last(out.ExpectationChanged).text.endswith(COMING)  # what the board is sent
    table.cards("4H 5H")  # Player 6, Banker 8: decided
    assert table.state == "paused" and table.expectation == "paused by sam"
    assert table.machine.paused_by == {"role": "supervisor", "who": "sam", "reason": "fill the float"}
    assert table.of(out.RoundSettled), "the round is settled before the pause begins"
    table.act("next_round")
    assert table.state == "paused"
    table.post(ResumeRequested(SAM))
    assert table.state == "paying"
    table.act("next_round")
    assert table.state == "betting"


def test_a_pause_coming_survives_a_restart(table: Any) -> None:
    dealing(table).cards("2H").post(PauseRequested(SAM, ""))
    before = table.loop.snapshot()
    table.restart()
    assert table.loop.snapshot() == before and table.expectation.endswith(COMING)
    table.cards("3H 4H 5H")
    assert table.state == "paused"


def test_resume_withdraws_a_pause_that_has_not_begun(table: Any) -> None:
    dealing(table).post(PauseRequested(SAM, ""))
    table.clear()
    table.post(ResumeRequested(SAM))
    assert table.last(out.PauseWithdrawn) == out.PauseWithdrawn("supervisor", "sam")
    assert not table.expectation.endswith(COMING)
    table.cards("2H 3H 4H 5H")
    assert table.state == "paying"


def test_a_second_pause_while_one_is_coming_is_refused_saying_so(table: Any) -> None:
    dealing(table).post(PauseRequested(SAM, ""))
    table.clear()
    table.post(PauseRequested(Actor("supervisor", "kim"), ""))
    assert table.last(out.Refused).reason == ("a pause is already asked for (asked by sam): it begins when the "
                                              "round ends")


def test_a_pause_asked_while_the_shoe_is_burned_begins_when_betting_opens(table: Any) -> None:
    table.act("shuffle_done", "confirm_cut").cards("5S")  # five cards to burn
    table.post(PauseRequested(SAM, ""))
    assert table.state == "burning"
    table.cards("2C 3C 4C 5C 6C")
    assert table.state == "paused"
    table.post(ResumeRequested(SAM))
    assert table.state == "betting"


def test_between_rounds_a_pause_begins_at_once_as_before(table: Any) -> None:
    table.start_shoe().post(PauseRequested(SAM, ""))
    assert table.state == "paused" and not table.of(out.PausePending)
