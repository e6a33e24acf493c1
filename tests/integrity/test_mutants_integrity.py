"""Corners of the integrity steps that mutation testing (tools/mutate.py, docs/testing.md)
found unguarded: each test here fails on a mutant that survived the rest of the tests.

Every test drives the real core loop on a real journal (inputs in, outputs and state out)."""

from __future__ import annotations

from typing import Any

from station.cards import parse_card
from station.core import outputs as out
from station.events import (
    Actor,
    AlertAcknowledged,
    CardsReturned,
    DeckCheckUnanswered,
    IntegrityAlert,
    ShoeEmpty,
    ShufflerState,
    ShufflerStatus,
)

from .conftest import SUPERVISOR


def monitor_alert(key: str, stop: bool = False, shoe: int = 1) -> IntegrityAlert:
    return IntegrityAlert("shoe_unshuffled", "alarm", f"finding {key}", key, shoe, "1-2", stop)


def test_acknowledging_one_alert_clears_that_one_and_no_other(make_table: Any) -> None:
    table = make_table()
    table.post(monitor_alert("a"), monitor_alert("b"), monitor_alert("c"))
    assert [a.ident for a in table.machine.open_alerts()] == [1, 2, 3]
    table.post(AlertAcknowledged(1, SUPERVISOR, "first"))
    assert table.last(out.AlertCleared).ident == 1
    assert [a.ident for a in table.machine.open_alerts()] == [2, 3]
    table.post(AlertAcknowledged(3, Actor("supervisor", "kim"), "third"))
    assert [a.ident for a in table.machine.open_alerts()] == [2]
    assert [(a.ident, a.key) for a in table.machine.alerts] == [(1, "a"), (2, "b"), (3, "c")]
    table.post(AlertAcknowledged(2, SUPERVISOR))
    assert [(c.ident, c.who) for c in table.of(out.AlertCleared)] == [(1, "sam"), (3, "kim"), (2, "sam")]
    table.post(AlertAcknowledged(3, SUPERVISOR))
    assert table.last(out.Refused).reason == "alert 3 was acknowledged by kim"
    assert len(table.of(out.AlertCleared)) == 3 and table.machine.alerts[2].acknowledged["who"] == "kim"
    table.post(AlertAcknowledged(0, SUPERVISOR))
    assert table.last(out.Refused).reason == "there is no alert 0"
    assert table.machine.open_alerts() == []


def test_a_card_beyond_the_decks_raises_an_alarm_that_stops_the_round(make_table: Any) -> None:
    table = make_table(decks=4)
    table.act("shuffle_done", "confirm_cut").cards("2S 2C 2D").act("no_more_bets").cards("KH KH KH KH")
    table.act("next_round", "no_more_bets").cards("KH")
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.severity, alarm.stop) == ("card_beyond_decks", "alarm", True)
    assert table.machine.alerts[-1].data == {"card": "KH", "decks": 4, "seen": 5}
    assert table.state == "irregularity"
    # Held as never taken from the shoe: the shoe's count is not changed by it.
    assert table.loop.snapshot()["irregularity"]["held"] == [{"card": "KH", "in_shoe": False, "device": "shoe"}]


def test_the_alarms_that_stop_a_round_say_so(make_table: Any) -> None:
    """A set the shuffler gave no count for, and a continuous shuffler counting back a
    different number of cards, are alarms that stop the table (``stop`` on the alarm)."""
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    table.post(DeckCheckUnanswered("shuffler", "no answer"))
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.stop) == ("deck_check_failed", True) and table.state == "irregularity"
    continuous = make_table(equipment="continuous", decks=6)
    continuous.post(ShufflerStatus("csm", ShufflerState.READY)).counted("csm")
    continuous.act("no_more_bets").cards("2H KD 3H 7C 4S").act("next_round").post(CardsReturned("csm", 6))
    alarm = continuous.last(out.AlertRaised)
    assert (alarm.code, alarm.stop) == ("cards_returned_mismatch", True) and continuous.state == "irregularity"


def test_no_count_from_the_shuffler_matters_only_while_a_count_is_awaited(make_table: Any) -> None:
    """A stale "no count" (no set waiting for its count, or one already counted) changes
    nothing: no alarm, no stop, and the counted set still goes into play."""
    table = make_table(equipment="batch")
    table.post(DeckCheckUnanswered("shuffler", "late"))
    assert table.state == "shuffling" and not table.of(out.AlertRaised) and not table.of(out.IrregularityRaised)
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red")).counted()
    table.act("confirm_cut").cards("2S 2C 2D")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "blue")).counted()  # the next set, counted
    table.post(DeckCheckUnanswered("shuffler", "a late timeout"))
    assert not table.of(out.AlertRaised) and table.state == "betting"
    table.act("no_more_bets").cards("9H 2D KH 5D").act("next_round", "no_more_bets").cards("9S 2C KS 5C")
    from station.events import CutCardSeen

    table.post(CutCardSeen("shoe"))
    table.act("next_round")
    while table.state == "betting":  # the last round after the cut card
        table.act("no_more_bets").cards("9C 2H KC 5H").act("next_round")
    assert table.state == "cutting" and table.machine.shoe.set_in_shoe == "blue"
    assert not table.of(out.IrregularityRaised)


def test_a_continuous_shuffler_that_took_cards_back_is_no_longer_empty(make_table: Any) -> None:
    """The shoe of a continuous shuffler reported empty; once cards are returned it deals
    again, its accounts no longer say it is empty, and a monitor alarm stops its rounds."""
    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY)).counted("csm")
    table.act("no_more_bets").cards("2H KD 3H 7C 4S").act("next_round").post(CardsReturned("csm", 5))
    table.act("no_more_bets").cards("9S").post(ShoeEmpty("csm"))
    assert table.last(out.IrregularityRaised).reason == "shoe_empty"
    table.decide("void")
    assert table.last(out.CardsAccounted).emptied is True
    table.act("next_round").post(CardsReturned("csm", 1))
    table.act("no_more_bets").cards("2D KC 3D 7S 4H")
    assert table.last(out.CardsAccounted).emptied is False
    table.act("next_round", "no_more_bets").cards("9D")
    table.post(monitor_alert("unshuffled:1", stop=True))
    assert table.state == "irregularity" and table.last(out.IrregularityRaised).reason == "integrity_alarm"


def test_an_alert_keeps_the_shoe_round_and_figures_it_was_raised_for(make_table: Any) -> None:
    """A monitor finding is about the shoe and round it names, whatever the table is dealing
    now; the core's own alerts are about the shoe and round in play."""
    table = make_table()
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 9D")  # round 1-1
    table.post(IntegrityAlert("tie_advantage", "alert", "the Tie favours the players", "edge:0-7", 0, "0-7", False,
                              {"edge": -1.5, "wager": "tie"}))
    raised = table.last(out.AlertRaised)
    assert (raised.shoe, raised.round_id, raised.stop, raised.source) == (0, "0-7", False, "monitor")
    assert table.machine.alerts[-1].data == {"edge": -1.5, "wager": "tie"}
    table.post(ShoeEmpty("shoe"))
    unread = table.of(out.AlertRaised)[-1]
    assert (unread.code, unread.shoe, unread.round_id, unread.stop) == ("cards_unaccounted", 1, "1-1", False)
    assert len(table.machine.alerts[-1].data["missing"]) == 8 * 52 - 5
    assert table.machine.alert_counts == {"alert:tie_advantage": 1, "alert:cards_unaccounted": 1}


def test_the_alert_counts_add_up_by_severity_and_code(make_table: Any) -> None:
    table = make_table()
    table.post(monitor_alert("a"), monitor_alert("b"),
               IntegrityAlert("tie_advantage", "alert", "edge", "edge:1", 1, "1-1", False))
    assert table.machine.alert_counts == {"alarm:shoe_unshuffled": 2, "alert:tie_advantage": 1}


def test_an_alert_of_no_known_severity_is_refused_and_not_registered(make_table: Any) -> None:
    table = make_table()
    table.post(IntegrityAlert("shoe_unshuffled", "warning", "odd", "odd:1", 1, "1-1", True))
    assert table.last(out.Refused).reason == "an integrity alert is an alarm or an alert, not 'warning'"
    assert table.machine.alerts == [] and not table.of(out.AlertRaised) and table.state == "shuffling"


def test_a_monitor_alarm_stops_only_the_shoe_in_play_and_only_when_it_asks_to(make_table: Any) -> None:
    table = make_table()
    table.start_shoe().act("no_more_bets").cards("9H 9D")
    table.post(monitor_alert("other-shoe", stop=True, shoe=2))  # not the shoe in play
    table.post(monitor_alert("no-shoe", stop=True, shoe=0))
    table.post(monitor_alert("no-stop", stop=False, shoe=1))
    assert table.state == "dealing" and not table.of(out.IrregularityRaised)
    assert [a.stop for a in table.of(out.AlertRaised)] == [False, False, False]
    table.post(monitor_alert("this-shoe", stop=True, shoe=1))
    assert table.state == "irregularity" and table.last(out.AlertRaised).stop is True


def test_a_monitor_alarm_after_the_shoe_has_ended_stops_nothing(make_table: Any) -> None:
    from station.events import CutCardSeen

    table = make_table()
    table.start_shoe().post(CutCardSeen("shoe"))  # the cut card before the first round: one more round
    table.act("no_more_bets").cards("9H 2D KH 5D").act("next_round")
    assert table.state == "shuffling"
    table.post(monitor_alert("late", stop=True, shoe=1))
    assert table.state == "shuffling" and table.last(out.AlertRaised).stop is False


def test_an_alarm_while_the_table_is_stopped_is_added_to_the_decision_awaited(make_table: Any) -> None:
    table = make_table()
    table.start_shoe().act("no_more_bets").cards("9H").act("call_supervisor")
    first = table.last(out.IrregularityRaised)
    assert first.reason == "supervisor_called"
    table.post(IntegrityAlert("shoe_unshuffled", "alarm", "x" * 700, "long", 1, "1-1", True))
    again = table.last(out.IrregularityRaised)
    assert (again.ident, again.reason) == (first.ident, "supervisor_called")
    assert again.detail.startswith(f"{first.detail}; then alert 1: xxx") and len(again.detail) == 600
    assert table.state == "irregularity" and len(table.of(out.IrregularityRaised)) == 2
    table.decide("resume")
    assert table.state == "dealing"


def test_a_set_that_lost_its_shuffled_status_is_an_alert_that_stops_nothing(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    table.post(ShufflerStatus("shuffler", ShufflerState.IDLE, 0, "red"))
    alert = table.last(out.AlertRaised)
    assert (alert.code, alert.severity, alert.stop) == ("set_not_shuffled", "alert", False)
    assert table.state == "shuffling"


def test_a_recount_is_asked_of_the_shuffler_that_counted_the_set(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler-2", ShufflerState.DONE, 100, "red")).counted("shuffler-2", {"7H": 7})
    assert table.last(out.IrregularityRaised).reason == "deck_check_failed"
    table.decide("recheck")
    wanted = table.last(out.DeckCheckWanted)
    assert (wanted.device, wanted.set_colour) == ("shuffler-2", "red") and len(table.of(out.DeckCheckWanted)) == 2
    table.counted("shuffler-2")
    assert table.state == "cutting"


def test_ending_the_shoe_after_the_round_was_settled_voids_nothing(make_table: Any) -> None:
    table = make_table()
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 2H KD 3D")
    assert table.state == "paying"
    table.post(monitor_alert("late", stop=True))
    assert table.state == "irregularity"
    table.decide("end_shoe")
    assert table.state == "paying" and not table.of(out.RoundVoided)
    assert [b.net for b in table.last(out.RoundSettled).bets] == [1000]
    table.act("next_round")
    assert table.state == "shuffling" and table.last(out.ShoeEnded).shoe == 1


def test_ending_the_shoe_during_the_burn_sets_the_cards_read_aside(make_table: Any) -> None:
    """No round is open during the burn: a card read while the table waits for the decision is
    set aside with the shoe, not dealt."""
    table = make_table()
    table.act("shuffle_done", "confirm_cut").cards("2S")  # exposed: two to burn
    table.post(monitor_alert("burn", stop=True))
    assert table.last(out.IrregularityRaised).decisions == ("resume", "end_shoe")
    table.cards("5H")
    table.decide("end_shoe")
    assert table.state == "burning" and not table.of(out.Refused)
    assert table.machine.discarded == [parse_card("5H")]


def test_the_batch_shuffler_reporting_the_set_in_the_shoe_is_refused(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red")).counted()
    table.act("confirm_cut").cards("2S 2C 2D")
    asked = len(table.of(out.DeckCheckWanted))
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    assert table.last(out.Refused).reason == "the shuffler reports the red set, which is in the shoe"
    assert len(table.of(out.DeckCheckWanted)) == asked and table.machine.shoe.ready_set == ""


def test_a_continuous_set_counted_while_paused_goes_into_play_when_next_ready(make_table: Any) -> None:
    from station.events import PauseRequested, ResumeRequested

    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    table.post(PauseRequested(SUPERVISOR, "a break")).counted("csm")  # the count comes in while paused
    assert table.state == "paused"
    table.post(ResumeRequested(SUPERVISOR))
    assert table.state == "shuffling"
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    assert table.state == "betting" and len(table.of(out.DeckCheckWanted)) == 1


def test_what_the_dealer_is_told_in_each_state_of_each_equipment(make_table: Any) -> None:
    """The expectation, word for word, through a continuous, a batch and a manual table."""
    from station.events import CutCardSeen, DeviceFault, DeviceRecovered, PauseRequested, ResumeRequested

    continuous = make_table(equipment="continuous", decks=6)
    assert continuous.expectation == "waiting for the continuous shuffler to be ready"
    continuous.post(ShufflerStatus("csm", ShufflerState.READY))
    assert continuous.expectation == "checking the shuffled set: waiting for the shuffler's deck check"
    continuous.counted("csm")
    assert continuous.expectation == "place your bets"
    continuous.act("no_more_bets").cards("2H KD 3H 7C 4S")
    assert continuous.expectation == "pay and collect, return the cards to the shuffler, then next round"

    batch = make_table(equipment="batch")
    assert batch.expectation == "waiting for the shuffler: a set"
    batch.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    assert batch.expectation == "checking the red set: waiting for the shuffler's deck check"
    batch.counted()
    assert batch.expectation == "cut the cards and place the cut card, then confirm the cut"
    batch.act("confirm_cut").cards("2S")
    assert batch.expectation == "burn 2 cards"
    batch.cards("2C 2D").post(PauseRequested(Actor("supervisor", ""), "count"))
    assert batch.expectation == "paused by supervisor"
    batch.post(ResumeRequested(SUPERVISOR)).post(CutCardSeen("shoe"))
    assert batch.expectation == "cut card out: last round: place your bets"
    batch.act("no_more_bets").cards("9H").post(DeviceFault("shoe", "link lost"))
    assert batch.expectation == "waiting for supervisor: device lost during the round (shoe still faulted)"
    batch.post(DeviceRecovered("shoe"))
    assert batch.expectation == "waiting for supervisor: device lost during the round (shoe recovered)"
    batch.decide("void")
    assert batch.expectation == "round void: return all bets, then next round (shoe finished)"
    batch.act("next_round")
    assert batch.expectation == "shoe finished: waiting for the shuffler: blue set"

    squeeze = make_table(dealing_style="B")
    squeeze.start_shoe().act("no_more_bets").cards("9H 2H KD 3D")
    assert squeeze.expectation == "players squeeze and turn the cards: press reveal when turned"
    hidden = make_table(dealing_style="C")
    hidden.start_shoe().act("no_more_bets").cards("9H 2H KD 3D")
    assert hidden.expectation == "turn the cards in order, then press reveal"


def test_a_set_reported_shuffled_twice_is_counted_once_and_a_wrong_colour_not_at_all(make_table: Any) -> None:
    table = make_table(equipment="batch")
    red = ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red")
    table.post(red, red)
    assert len(table.of(out.DeckCheckWanted)) == 1
    table.counted().act("confirm_cut").cards("2S 2C 2D")
    table.post(ShufflerStatus("shuffler", ShufflerState.SHUFFLING, 50, "blue"))
    assert table.loop.snapshot()["shoe"]["set_in_shuffler"] == "blue"
    # A set reported with no colour is counted as "the shuffled set", whatever its colour.
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, ""))
    wanted = table.last(out.DeckCheckWanted)
    assert wanted.set_colour == "?" and len(table.of(out.DeckCheckWanted)) == 2
    table.counted()
    checked = table.last(out.DeckChecked)
    assert (checked.set_colour, checked.passed, checked.counted, checked.expected) == ("?", True, 416, 416)
    assert (checked.short, checked.over) == ((), ())


def test_a_count_no_set_waits_for_is_judged_but_stops_nothing(make_table: Any) -> None:
    from station.events import DeckCheck

    table = make_table(equipment="batch")
    table.post(DeckCheck("shuffler", 8, (("AS", 8),), ("2S",), ()))  # a count nobody asked for
    checked = table.last(out.DeckChecked)
    assert (checked.set_colour, checked.passed, checked.counted, checked.expected) == ("", False, 8, 416)
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.stop) == ("deck_check_failed", False)
    assert alarm.detail.startswith("the shuffler's set failed its deck check: ")
    assert table.state == "shuffling" and not table.of(out.IrregularityRaised)
    assert table.loop.snapshot()["deck_check"] == {"device": "shuffler", "decks": 8, "complete": False,
                                                   "missing": ["2S"], "extra": []}


def test_the_shuffler_is_asked_its_state_after_a_reboot_only_when_there_is_one(make_table: Any) -> None:
    from station.events import DeviceBooted

    for equipment, asked in (("manual", 0), ("batch", 1), ("continuous", 1)):
        table = make_table(equipment=equipment)
        table.post(DeviceBooted("shuffler", "power cycle"))
        assert len(table.of(out.ShufflerStateWanted)) == asked, equipment


def test_shuffle_done_is_the_shufflers_word_with_a_shuffler(make_table: Any) -> None:
    batch = make_table(equipment="batch")
    batch.act("shuffle_done")
    assert batch.last(out.Refused).reason == "the batch shuffler reports when a set is shuffled"
    continuous = make_table(equipment="continuous")
    continuous.act("shuffle_done")
    assert continuous.last(out.Refused).reason == "the continuous shuffler reports when it is ready"
    manual = make_table()
    manual.act("shuffle_done", "shuffle_done")
    assert manual.state == "cutting" and manual.last(out.Refused).reason.startswith("cannot shuffle done now: ")


def test_cards_counted_back_by_a_continuous_shuffler_leave_the_next_account_untouched(make_table: Any) -> None:
    """Cards of the next round already dealt when the last round's cards are counted back (the
    same card may be in both, six decks) stay in that round's account."""
    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY)).counted("csm")
    table.act("no_more_bets").cards("2H KD 3H 7C 4S").act("next_round", "no_more_bets").cards("2H")
    table.post(CardsReturned("csm", 5))
    table.cards("KC 3D 7S 4D")
    account = table.last(out.CardsAccounted)
    assert [c.code for c in account.cards] == ["2H", "KC", "3D", "7S", "4D"]
    assert not table.of(out.AlertRaised)


def test_a_jammed_shuffler_is_faulted_until_it_reports_again(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.JAM, 40, "red", "card jam"))
    assert table.last(out.DeviceFaulted).device == "shuffler" and not table.of(out.DeviceBack)
    assert table.loop.snapshot()["faulted"] == {"shuffler": "shuffler jam"}
    table.post(ShufflerStatus("shuffler", ShufflerState.IDLE, 0, "red"))
    assert table.last(out.DeviceBack).device == "shuffler" and table.loop.snapshot()["faulted"] == {}


def test_a_different_set_reported_shuffled_before_the_count_is_the_one_counted(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "blue"))
    assert [w.set_colour for w in table.of(out.DeckCheckWanted)] == ["red", "blue"]
    table.counted()
    assert table.state == "cutting" and table.loop.snapshot()["shoe"]["set_in_shoe"] == "blue"


def test_cards_returned_without_a_continuous_shuffler_are_refused(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(CardsReturned("shuffler", 4))
    assert table.last(out.Refused).reason == "cards are returned to a continuous shuffler only"
    assert not table.of(out.AlertRaised) and table.state == "shuffling"
