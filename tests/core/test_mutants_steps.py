"""Corners of the table's steps that mutation testing (tools/mutate.py, docs/testing.md) found
unguarded: each test here fails on a mutant that survived the rest of tests/core.

Every test drives the real core loop on a real journal (inputs in, outputs and state out)."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import FULL_DECK
from station.core import outputs as out
from station.events import Actor, BetChanged, BetWithdrawn, DealerAction, LateBetOverride, ShoeEmpty, Timer

from .conftest import card

SUP = Actor("supervisor", "sam")


def test_changing_a_bet_nobody_placed_is_refused_and_places_nothing(table: Any) -> None:
    """A change names a bet on the layout; one that is not there is refused, not placed."""
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.clear()
    table.post(BetChanged("2", "bo", "banker", 3000))
    assert table.last(out.Refused).reason == "bo has no banker bet on box 2 to change"
    assert not table.of(out.BetAccepted)
    table.post(BetWithdrawn("2", "bo", "banker"))
    assert table.last(out.Refused).reason == "bo has no banker bet on box 2"
    assert not table.of(out.BetRemoved)
    table.act("no_more_bets").cards("9H 2H KD 3D")  # Player 9, Banker 5: only ann's bet is settled
    settled = table.last(out.RoundSettled)
    assert [(b.box, b.player, b.net) for b in settled.bets] == [("1", "ann", 1000)]


def test_a_card_read_with_no_shoe_in_play_never_goes_back_into_a_shoe(table: Any) -> None:
    """A card read before the cut was never in the shoe's count: held as not from the shoe,
    burned, and the shoe that follows is a full one that refuses a ninth copy of a card."""
    table.act("shuffle_done")
    table.cards("AS")
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "card_without_shoe" and raised.decisions == ("burn",)
    assert table.loop.snapshot()["irregularity"]["held"] == [{"card": "AS", "in_shoe": False, "device": "shoe"}]
    table.decide("burn")
    assert table.state == "cutting" and table.machine.discarded == [card("AS")]
    table.act("confirm_cut").cards("2S 2C 2D")
    assert table.last(out.CardsAccounted).left[0] == 8  # all eight aces of spades still in the shoe


def _deal_until(table: Any, read: int, codes: list[str]) -> None:
    """Rounds dealt from ``codes`` (in order) until ``read`` cards have left the shoe; the last
    round may be left in the middle."""
    position = 3  # the exposed card and its two burns
    while position < read:
        table.act("no_more_bets")
        while table.state == "dealing" and position < read:
            table.cards(codes[position])
            position += 1
        if table.state == "paying":
            table.act("next_round")


def _full_shoe(decks: int) -> list[str]:
    """Every card of ``decks`` decks, the exposed 2S and its two burns first."""
    codes = [c.code for _ in range(decks) for c in FULL_DECK]
    for code in ("2S", "2C", "2D"):
        codes.remove(code)
    return ["2S", "2C", "2D", *codes]


def test_an_empty_shoe_names_up_to_twenty_unread_cards_and_says_when_there_are_more(make_table: Any) -> None:
    codes = _full_shoe(4)
    assert len(codes) == 4 * 52
    for unread, more in ((20, False), (21, True)):
        table = make_table(decks=4)
        table.start_shoe()
        _deal_until(table, 4 * 52 - unread, codes)
        table.post(ShoeEmpty("shoe"))
        alert = table.last(out.AlertRaised)
        assert alert.code == "cards_unaccounted" and f"with {unread} card(s) of 4 decks never read" in alert.detail
        shown = alert.detail.split("never read: ", 1)[1]
        assert shown.endswith(" ...") is more
        assert len(shown.removesuffix(" ...").split()) == 20


def test_a_change_the_rules_refuse_keeps_the_bet_as_it_was(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "banker", 2000)
    table.clear()
    table.post(BetChanged("1", "ann", "banker", 2500))
    assert "cannot be paid exactly" in table.last(out.Refused).reason and not table.of(out.BetAccepted)
    table.act("no_more_bets").cards("KH 3H 2D 3D 2S")  # Banker 6 v Player 4: 0.95 of 2000
    assert table.last(out.RoundSettled).bets[0].net == 1900


def test_bets_cannot_be_changed_or_withdrawn_once_closed(table: Any) -> None:
    """Refused in words, and the round goes on untouched (no stop for a supervisor)."""
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.post(BetChanged("1", "ann", "player", 5000))
    assert "supervisor may allow late bets" in table.last(out.Refused).reason
    table.post(BetWithdrawn("1", "ann", "player"))
    assert "supervisor may allow late bets" in table.last(out.Refused).reason
    table.bet("1", "ann", "player", 1000)
    assert "supervisor may allow late bets" in table.last(out.Refused).reason
    assert table.state == "dealing" and not table.of(out.IrregularityRaised)
    table.cards("9H 2H KD 3D")
    assert [b.net for b in table.last(out.RoundSettled).bets] == [1000]


def test_late_bets_reopen_the_round_for_bets_and_record_each_change(make_table: Any) -> None:
    """Late bets (5.14) reopen betting: a new opening (its own timer), and every bet placed,
    changed or withdrawn by the supervisor is recorded with the round."""
    table = make_table(dealing_style="C", betting_seconds=30)
    table.start_shoe().bet("1", "ann", "player", 1000).bet("2", "bo", "banker", 2000)
    assert table.machine.wanted_timer() == ("close-betting:1-1:1", 30.0)
    table.act("no_more_bets").cards("2H 3H")
    assert table.loop.snapshot()["round"]["bets_closed"] is True
    table.post(LateBetOverride(SUP, "arrived late"))
    assert table.state == "betting" and table.loop.snapshot()["round"]["bets_closed"] is False
    assert table.machine.wanted_timer() == ("close-betting:1-1:2", 30.0)
    table.post(Timer("close-betting:1-1:1"))  # the first opening's timer closes nothing now
    assert table.state == "betting"
    table.post(BetWithdrawn("2", "bo", "banker", SUP), BetChanged("1", "ann", "player", 3000, SUP))
    records = [d for d in table.machine.round.decisions if "late_bet" in d]
    assert [(d["late_bet"], d["bet"]) for d in records] == [("withdrawn", ["2", "bo", "banker", 0]),
                                                           ("changed", ["1", "ann", "player", 3000])]
    table.post(Timer("close-betting:1-1:2"))
    assert table.state == "dealing" and table.loop.snapshot()["round"]["bets_closed"] is True


def test_an_internal_error_while_stopped_is_added_to_the_decision_awaited(
        table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is already waiting for a supervisor when applying an input fails: the same
    irregularity, its detail now naming the error too (cut at 600 characters), not a second one."""
    from station.core.machine import TableMachine

    original = TableMachine.apply

    def broken(self: TableMachine, event: Any) -> None:
        if isinstance(event, DealerAction) and event.action == "reveal":
            raise KeyError("x" * 700)
        original(self, event)

    monkeypatch.setattr(TableMachine, "apply", broken)
    table.start_shoe().act("no_more_bets").cards("9H").act("call_supervisor")
    first = table.last(out.IrregularityRaised)
    table.act("reveal")
    again = table.last(out.IrregularityRaised)
    assert (again.ident, again.reason) == (first.ident, "supervisor_called")
    assert again.detail.startswith(f"{first.detail}; then KeyError: 'xxx") and len(again.detail) < 600
    table.act("reveal")  # an error's summary is at most 300 characters: the second one reaches 600
    assert len(table.last(out.IrregularityRaised).detail) == 600
    assert table.machine.irregularities_raised == 1 and table.state == "irregularity"
    table.decide("resume")
    assert table.state == "dealing"


def test_the_cut_names_who_cut_and_the_shoe_start_its_exposed_and_burned_cards(table: Any) -> None:
    from station.core.outputs import ShoeStarted

    table.act("shuffle_done")
    table.post(DealerAction("confirm_cut", box="3", player="ann"))
    assert table.state == "burning" and table.loop.snapshot()["shoe"]["cut_by"] == ["3", "ann"]
    table.cards("3H 4C 5D 6S")
    started = table.last(ShoeStarted)
    assert (started.shoe, started.exposed, started.burned) == (1, card("3H"), (card("4C"), card("5D"), card("6S")))
    assert table.state == "betting"


def test_cut_cards_and_empty_shoes_out_of_turn_are_refused(table: Any) -> None:
    from station.events import CutCardSeen

    table.post(CutCardSeen("shoe"))
    assert table.last(out.Refused).reason == "no cut card is expected now"
    table.post(ShoeEmpty("shoe"))
    assert table.last(out.Refused).reason == "the shoe reported empty while no round is being dealt"
    table.act("shuffle_done", "confirm_cut").cards("2S").post(CutCardSeen("shoe"))
    assert table.last(out.Refused).reason == "the cut card came out during the burn"
    table.cards("2C 2D").post(CutCardSeen("shoe"), CutCardSeen("shoe"))
    assert table.last(out.Refused).reason == "the cut card has already come out of this shoe"
    assert table.state == "betting" and not table.of(out.IrregularityRaised)


def test_pauses_resumes_and_calls_out_of_turn_are_refused_with_the_reason(table: Any) -> None:
    from station.events import DeviceRecovered, PauseRequested, ResumeRequested

    table.post(ResumeRequested(SUP))
    assert table.last(out.Refused).reason == "the table is not paused"
    table.post(DeviceRecovered("shoe"))  # never faulted: nothing to announce
    assert not table.of(out.DeviceBack)
    table.start_shoe().act("no_more_bets").cards("9H")
    table.act("next_round", "no_more_bets", "reveal")  # none of them now
    assert [r.reason for r in table.of(out.Refused)][-3:] == [
        "cannot next round now: deal Banker first card", "cannot no more bets now: deal Banker first card",
        "cannot reveal now: deal Banker first card"]
    table.cards("2H KD 3D").post(PauseRequested(SUP, "break"))
    assert table.state == "paused"
    table.act("call_supervisor")
    assert table.last(out.Refused).reason == "paused by sam" and table.state == "paused"
    table.act("next_round")
    assert table.last(out.Refused).reason == "paused by sam"
    table.post(ResumeRequested(SUP))
    assert table.state == "paying"


def test_a_restarted_table_publishes_nothing_of_what_it_replayed(table: Any) -> None:
    """Replay rebuilds the state silently: after a restart the table's devices and screens hear
    only what happens from then on, never the shoe start or the bets of before again."""
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.restart()
    table.clear()
    table.bet("2", "bo", "banker", 2000)
    assert [type(o).__name__ for o in table.outputs] == ["BetAccepted"]
    assert table.last(out.BetAccepted).box == "2"


def test_an_internal_error_s_summary_is_cut_at_300_characters(
        table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Applying an input fails while the round is dealt: the table stops for a supervisor with
    the error's first 300 characters (the journal and the screens get a line, not a dump)."""
    from station.core.machine import TableMachine

    original = TableMachine.apply

    def broken(self: TableMachine, event: Any) -> None:
        if isinstance(event, DealerAction) and event.action == "reveal":
            raise KeyError("x" * 700)
        original(self, event)

    monkeypatch.setattr(TableMachine, "apply", broken)
    table.start_shoe().act("no_more_bets").cards("9H")
    table.act("reveal")
    raised = table.last(out.IrregularityRaised)
    assert table.state == "irregularity" and raised.detail.startswith("KeyError: 'xxx")
    assert len(raised.detail) == 300


def test_a_pause_asked_while_the_table_waits_for_a_supervisor_is_one_to_come(table: Any) -> None:
    """Waiting for a supervisor mid-round is no pause: a pause asked then begins when the round
    ends. And a table that was paused, stopped, back to the pause and resumed is not paused any
    more: a pause asked then begins at once."""
    from station.cards import parse_card
    from station.events import CardDrawn, PauseRequested, ResumeRequested

    table.start_shoe().post(PauseRequested(SUP, "fill"))
    table.post(CardDrawn("shoe", parse_card("2H")))  # a card during the pause stops the table
    assert table.last(out.IrregularityRaised).reason == "card_before_no_more_bets"
    table.decide("burn")
    assert table.state == "paused"
    table.post(ResumeRequested(SUP))
    assert table.state == "betting"
    table.post(PauseRequested(SUP, "again"))
    assert table.state == "paused" and table.machine.paused_by["reason"] == "again"
    table.post(ResumeRequested(SUP))
    table.act("no_more_bets").cards("2H").act("call_supervisor")
    assert table.state == "irregularity"
    table.clear()
    table.post(PauseRequested(SUP, "after this round"))
    assert not table.of(out.Refused)
    assert table.last(out.PausePending) == out.PausePending("supervisor", "sam", "after this round")


def test_the_shoe_reported_empty_while_the_table_waits_for_a_supervisor_is_noted_not_refused(table: Any) -> None:
    table.start_shoe().act("no_more_bets").cards("9H").act("call_supervisor")
    table.clear()
    table.post(ShoeEmpty("shoe"))
    assert not table.of(out.Refused) and table.state == "irregularity"
    assert table.loop.snapshot()["shoe"]["empty"] is True


def test_the_shoe_reported_empty_while_bets_are_taken_stops_the_round(table: Any) -> None:
    """Betting is open on a round: a shoe that says it is empty cannot deal it."""
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.post(ShoeEmpty("shoe"))
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "shoe_empty" and table.state == "irregularity"
    assert not table.of(out.Refused)


def test_resume_withdraws_a_pause_to_come_and_says_nothing_else(table: Any) -> None:
    from station.events import PauseRequested, ResumeRequested

    table.start_shoe().act("no_more_bets").cards("9H").post(PauseRequested(SUP, "float"))
    table.clear()
    table.post(ResumeRequested(SUP))
    assert [type(o).__name__ for o in table.outputs if not isinstance(o, out.ExpectationChanged)] == [
        "PauseWithdrawn"]
    assert table.state == "dealing" and not table.machine.pause_pending


def test_a_pause_asked_while_paused_is_refused_whether_or_not_an_irregularity_came_between(table: Any) -> None:
    """A second pause is refused as "already paused", not taken for a pause to begin when the
    round ends; so is one asked while a card read during the pause waits for a supervisor."""
    from station.cards import parse_card
    from station.events import CardDrawn, PauseRequested

    table.start_shoe().post(PauseRequested(SUP, "fill"))
    table.post(PauseRequested(Actor("supervisor", "sue"), "again"))
    assert table.last(out.Refused).reason == "the table is already paused (asked by sam)"
    assert not table.of(out.PausePending)
    table.post(CardDrawn("shoe", parse_card("2H")))  # stops the paused table for a supervisor
    assert table.state == "irregularity"
    table.post(PauseRequested(Actor("supervisor", "sue"), "and again"))
    assert table.last(out.Refused).reason == "the table is already paused (asked by sam)"
    assert not table.of(out.PausePending)
