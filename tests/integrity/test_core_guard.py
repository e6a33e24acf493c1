"""The core's side: the shuffler guards the game, the alert register, the decisions, replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from station.cards import Card, Rank, Suit
from station.core import outputs as out
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.events import (
    Actor,
    AlertAcknowledged,
    CardDrawn,
    CardsReturned,
    CutCardSeen,
    DealerAction,
    DeckCheckUnanswered,
    DeviceBooted,
    IntegrityAlert,
    ShoeEmpty,
    ShufflerState,
    ShufflerStatus,
)
from station.integrity.monitor import IntegritySettings
from station.integrity.service import IntegrityService

from .conftest import SUPERVISOR

DONE = ShufflerState.DONE


def done(colour: str) -> ShufflerStatus:
    return ShufflerStatus("shuffler", DONE, 100, colour)


def test_a_batch_set_one_card_short_never_reaches_the_shoe(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(done("red"))
    assert table.state == "shuffling" and "checking the red set" in table.loop.expectation
    assert table.last(out.DeckCheckWanted).set_colour == "red"
    table.counted(change={"7H": 7})
    assert table.state == "irregularity"
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "deck_check_failed" and "short 7H" in raised.detail and "7: 31 of 32" in raised.detail
    assert raised.decisions == ("reject", "recheck")
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.severity) == ("deck_check_failed", "alarm")
    table.act("confirm_cut")  # nothing moves the short set into play
    assert table.state == "irregularity"
    table.decide("recheck")
    assert table.state == "shuffling" and len(table.of(out.DeckCheckWanted)) == 2
    table.counted(change={"7H": 7})
    table.decide("reject")
    assert table.state == "shuffling" and table.machine.shoe.ready_set == ""
    # Made complete and shuffled again: counted, and only then cut.
    table.post(ShufflerStatus("shuffler", ShufflerState.SHUFFLING, 10, "red"), done("red"))
    assert table.state == "shuffling"
    table.counted()
    assert table.state == "cutting" and table.machine.shoe.set_in_shoe == "red"


def test_an_over_full_set_or_one_counted_for_other_decks_is_refused(make_table: Any) -> None:
    table = make_table(equipment="batch", decks=6)
    table.post(done("red")).counted(change={"AS": 7})  # a foreign Ace of spades
    assert table.last(out.IrregularityRaised).reason == "deck_check_failed"
    assert "over AS" in table.last(out.IrregularityRaised).detail
    table.decide("reject")
    table.post(ShufflerStatus("shuffler", ShufflerState.SHUFFLING, 0, "red"), done("red"))
    table.post(DeckCheckUnanswered("shuffler", "no answer to RequestDeckCheck after 4 attempt(s)"))
    assert "gave no count" in table.last(out.IrregularityRaised).detail


def test_a_set_that_loses_its_shuffled_status_is_not_dealt(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(done("red")).counted().act("confirm_cut").cards("2S 2C 2D")
    assert table.state == "betting"
    table.post(done("blue")).counted()  # the next set, shuffled and counted during the shoe
    assert table.machine.shoe.ready_set == "blue"
    table.post(ShufflerStatus("shuffler", ShufflerState.DOOR_OPEN, 0, "blue", "door open"),
               ShufflerStatus("shuffler", ShufflerState.IDLE, 0, "blue"))
    assert table.machine.shoe.ready_set == ""
    assert table.last(out.AlertRaised).code == "set_not_shuffled"
    table.act("no_more_bets").cards("9H 2D KH 5D").post(CutCardSeen("shoe")).act("next_round", "no_more_bets")
    table.cards("9S 2C KS 5C").act("next_round")
    assert table.state == "shuffling"  # not cutting: the blue set must be shuffled again
    assert table.loop.expectation == "shoe finished: waiting for the shuffler: blue set"
    table.post(done("blue"))
    assert table.state == "shuffling"
    table.counted()
    assert table.state == "cutting" and table.machine.shoe.set_in_shoe == "blue"


def test_a_continuous_set_is_counted_before_the_session_and_its_returns_checked(make_table: Any) -> None:
    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    assert table.state == "shuffling"
    table.counted("csm", {"7C": 5})
    assert table.last(out.IrregularityRaised).reason == "deck_check_failed"
    table.decide("reject").post(ShufflerStatus("csm", ShufflerState.READY))
    table.counted("csm")
    assert table.state == "betting"
    table.act("no_more_bets").cards("2H KD 3H 7C 4S").act("next_round")
    table.post(CardsReturned("csm", 4))
    alarm = table.last(out.AlertRaised)
    assert alarm.code == "cards_returned_mismatch" and "counted 4 cards back; 5 were dealt" in alarm.detail
    assert table.state == "irregularity" and table.last(out.IrregularityRaised).reason == "cards_returned_mismatch"
    table.decide("resume")
    assert table.state == "betting"


def test_cards_dropped_in_before_next_round_are_no_mismatch(make_table: Any) -> None:
    table = make_table(equipment="continuous", decks=6)
    table.post(ShufflerStatus("csm", ShufflerState.READY)).counted("csm")
    table.act("no_more_bets").cards("2H KD 3H 7C 4S")
    table.post(CardsReturned("csm", 5)).act("next_round")  # dropped in first, then "next round"
    table.act("no_more_bets").cards("9S 2C KS 5C").act("next_round").post(CardsReturned("csm", 4))
    assert not table.of(out.AlertRaised) and table.state == "betting"
    assert len(table.machine.shoe.composition) == 6 * 52


def test_a_shuffler_boot_makes_the_station_ask_its_state(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(DeviceBooted("shuffler", "power cycle"))
    assert table.last(out.ShufflerStateWanted).device == "shuffler"


def test_a_shoe_that_runs_out_with_cards_unread_is_an_alert(make_table: Any) -> None:
    table = make_table()
    table.act("shuffle_done", "confirm_cut").cards("2S 2C 2D").act("no_more_bets").cards("9H 9D 2H 2D")
    table.post(ShoeEmpty("shoe"))
    alert = table.last(out.AlertRaised)
    assert alert.code == "cards_unaccounted" and "409 card(s)" in alert.detail and alert.severity == "alert"


def test_a_card_beyond_the_decks_is_an_alarm_and_the_round_stops(make_table: Any) -> None:
    table = make_table(decks=4)
    table.act("shuffle_done", "confirm_cut").cards("2S 2C 2D").act("no_more_bets").cards("KH KH KH KH")
    table.act("next_round", "no_more_bets").cards("KH")
    assert table.last(out.IrregularityRaised).reason == "impossible_card"
    alarm = table.last(out.AlertRaised)
    assert alarm.code == "card_beyond_decks" and alarm.detail.startswith("KH read once more than 4 decks")


def alert(key: str = "unshuffled:1", stop: bool = True, shoe: int = 1) -> IntegrityAlert:
    return IntegrityAlert("shoe_unshuffled", "alarm", "shoe 1 is in an ordered arrangement", key, shoe, "1-2", stop)


def test_a_monitor_alarm_stops_the_round_once_and_a_supervisor_may_end_the_shoe(make_table: Any) -> None:
    table = make_table()
    table.act("shuffle_done", "confirm_cut").cards("2S 2C 2D").act("no_more_bets").cards("9H 9D")
    table.post(alert())
    assert table.state == "irregularity" and table.last(out.IrregularityRaised).reason == "integrity_alarm"
    table.post(alert())
    assert "has been raised already" in table.last(out.Refused).reason and len(table.machine.alerts) == 1
    table.decide("end_shoe")
    assert table.state == "paying" and table.of(out.RoundVoided)
    table.act("next_round")
    assert table.state == "shuffling" and table.of(out.ShoeEnded)


def test_an_alert_is_acknowledged_once_by_a_supervisor(make_table: Any) -> None:
    table = make_table()
    table.post(alert(stop=False))
    table.post(AlertAcknowledged(1, Actor("dealer", "dana")))
    assert "only a supervisor" in table.last(out.Refused).reason
    table.post(AlertAcknowledged(1, SUPERVISOR, "checked on camera"))
    cleared = table.last(out.AlertCleared)
    assert (cleared.ident, cleared.who, cleared.note) == (1, "sam", "checked on camera")
    table.post(AlertAcknowledged(1, SUPERVISOR))
    assert "acknowledged by sam" in table.last(out.Refused).reason
    table.post(AlertAcknowledged(9, SUPERVISOR))
    assert "no alert 9" in table.last(out.Refused).reason
    assert table.machine.open_alerts() == []


def test_replay_rebuilds_the_register_and_the_stopped_table(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(done("red")).counted(change={"7H": 7})
    table.post(alert(stop=False, shoe=0))
    before = table.loop.snapshot()
    table.restart()
    assert table.loop.snapshot() == before
    assert table.state == "irregularity" and len(table.machine.alerts) == 2


def test_the_monitor_catches_up_from_the_journal_and_raises_nothing_twice(tmp_path: Path) -> None:
    """A station restarted in the middle of a shoe: the monitor's history comes from the
    journal; a finding already journaled is not posted again."""
    journal = tmp_path / "journal.sqlite3"
    options = CoreOptions()
    posted: list[Any] = []
    with CoreLoop(journal, options) as loop:
        service = IntegrityService(loop.post, options, IntegritySettings(), journal, loop.journal.head()[0])
        loop.subscribe(service.on_output, IntegrityService.KINDS)
        service.start()
        loop.post(DealerAction("shuffle_done"))
        ordered = [Card(rank, Suit.SPADES) for rank in Rank] + [Card(rank, Suit.HEARTS) for rank in Rank]
        loop.post(DealerAction("confirm_cut"))
        for card in ordered[:2]:  # Ace exposed: one card burned
            loop.post(CardDrawn("shoe", card))
        loop.run_pending()
        position = 2
        while position < 22 and loop.state != "irregularity":
            loop.post(DealerAction("no_more_bets"))
            loop.run_pending()
            while loop.state == "dealing":
                loop.post(CardDrawn("shoe", ordered[position]))
                position += 1
                loop.run_pending()
            loop.post(DealerAction("next_round"))
            loop.run_pending()
            assert service.wait_idle(10)
            loop.run_pending()
        assert [a.code for a in loop.machine.alerts] == ["shoe_unshuffled"]
        service.stop()
        head = loop.journal.head()[0]
    with CoreLoop(journal, options) as loop:
        again = IntegrityService(posted.append, options, IntegritySettings(), journal, head)
        again.start()
        assert again.caught_up.wait(10) and again.wait_idle(10)
        again.stop()
    assert posted == []  # the journal already holds the alarm
    assert again.monitor.shoe is not None and again.monitor.shoe.order is not None
