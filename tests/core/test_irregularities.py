"""Every irregularity stops the round and waits; every decision does what it says."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_card
from station.core import outputs as out
from station.events import Actor, CardDrawn, DeviceFault, DeviceRecovered, ShoeEmpty, SupervisorDecision


def dealing(table: Any) -> Any:
    return table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")


def test_card_when_the_rules_say_stand_waits_for_a_decision(table: Any) -> None:
    dealing(table).cards("9H 2H KD 3D")  # Player natural 9: round over
    assert table.state == "paying"
    table.cards("5S")
    assert table.state == "irregularity"
    assert table.expectation == "waiting for supervisor: card drawn when the rules say stand"
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "card_when_stand" and raised.decisions == ("burn", "dummy")  # already settled
    table.decide("void")
    assert table.last(out.Refused).what == "SupervisorDecision"
    table.decide("burn")
    assert table.state == "paying"
    assert [c.code for c in table.machine.round.burned] == ["5S"]


@pytest.mark.parametrize("decision, expect", [("burn", "burned"), ("dummy", "dummy")])
def test_card_before_no_more_bets(table: Any, decision: str, expect: str) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).cards("4H")
    assert table.last(out.IrregularityRaised).reason == "card_before_no_more_bets"
    left = len(table.machine.shoe.composition)
    table.decide(decision)
    assert table.state == "betting"
    assert [c.code for c in getattr(table.machine.round, expect)] == ["4H"]
    assert len(table.machine.shoe.composition) == left  # the card stays out of the shoe


def test_void_returns_every_bet(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).bet("2", "bo", "tie", 1000)
    table.act("no_more_bets").cards("4H 5H")
    table.post(ShoeEmpty("shoe"))
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("shoe_empty", ("void",))
    table.decide("void")
    voided = table.last(out.RoundVoided)
    assert [(b.box, b.stake, b.void, b.net) for b in voided.returned] == [("1", 1000, 1000, 0), ("2", 1000, 1000, 0)]
    assert table.state == "paying" and table.expectation.startswith("round void")
    assert (table.machine.rounds_settled, table.machine.rounds_voided) == (0, 1)
    table.act("next_round")  # an empty shoe ends it
    assert table.state == "shuffling"
    assert table.last(out.ShoeEnded).rounds == 1


def test_impossible_card_is_never_placed(make_table: Any) -> None:
    table = make_table(decks=4)
    table.start_shoe(exposed="AS", burns="AH")
    table.bet("1", "ann", "player", 1000).act("no_more_bets")
    table.cards("AS AS AS")  # with the exposed card, all four AS of four decks are out
    left = len(table.machine.shoe.composition)
    table.cards("AS")
    assert table.state == "irregularity"
    assert table.last(out.IrregularityRaised).reason == "impossible_card"
    assert [c.code for _, c in table.machine.round.dealt] == ["AS", "AS", "AS"]
    assert len(table.machine.shoe.composition) == left
    table.decide("burn")
    assert table.state == "dealing" and table.expectation == "deal Banker second card"


def test_foreign_card_stops_the_round(make_table: Any) -> None:
    table = make_table(decks=4)
    table.start_shoe()
    table.bet("1", "ann", "player", 1000).act("no_more_bets")
    table.cards("2C 2C 2C")  # 2C burned already once: the fourth copy is fine, a fifth is not
    assert table.state == "dealing"
    table.cards("2C")
    assert table.state == "irregularity" and table.last(out.IrregularityRaised).reason == "impossible_card"


def test_device_lost_mid_round_resumes_only_after_recovery(table: Any) -> None:
    dealing(table).cards("2H 3H")
    table.post(DeviceFault("shoe", "no reply", "E7"))
    assert table.state == "irregularity"
    assert table.last(out.DeviceFaulted).reason == "no reply"
    assert table.expectation == "waiting for supervisor: device lost during the round (shoe still faulted)"
    table.decide("resume")
    assert "still faulted" in table.last(out.Refused).reason and table.state == "irregularity"
    table.post(DeviceRecovered("shoe"))
    assert table.expectation.endswith("(shoe recovered)")
    table.decide("resume")
    assert table.state == "dealing" and table.expectation == "deal Player second card"


def test_card_read_during_a_fault_is_held_then_taken_on_resume(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.post(DeviceFault("shoe", "checksum errors"))  # idle: no stop, but noted
    assert table.state == "betting"
    table.act("no_more_bets").cards("2H")
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "card_during_fault" and "resume" in raised.decisions
    table.post(DeviceRecovered("shoe")).decide("resume")
    assert table.state == "dealing"
    assert [(p, c.code) for p, c in table.machine.round.dealt] == [("player", "2H")]


def test_cards_read_while_stopped_are_held_and_decided_together(table: Any) -> None:
    dealing(table).cards("2H")
    table.post(DeviceFault("shoe", "lost"))
    table.cards("3H 4H")
    assert [h.card.code for h in table.machine.irregularity.held] == ["3H", "4H"]
    table.decide("void")
    assert table.machine.round.voided
    assert [c.code for c in table.machine.round.burned] == ["3H", "4H"]


def test_any_device_stops_a_round_by_default(table: Any) -> None:
    dealing(table).cards("9S")
    table.post(DeviceFault("display", "lost"))
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("device_fault", ("resume", "void"))
    table.cards("8S")  # held while stopped; taken on resume
    table.post(DeviceRecovered("display")).decide("resume")
    assert table.state == "dealing"
    assert [c.code for _, c in table.machine.round.dealt] == ["9S", "8S"]


def test_round_devices_limit_which_faults_stop_a_round(make_table: Any) -> None:
    table = make_table(round_devices=frozenset({"shoe"}))
    dealing(table).post(DeviceFault("display", "lost"))
    assert table.state == "dealing"


def test_only_a_supervisor_decides(table: Any) -> None:
    dealing(table).post(ShoeEmpty("shoe"))
    table.post(SupervisorDecision("void", Actor("dealer", "dee")))
    assert table.state == "irregularity"
    assert table.last(out.Refused).reason == "only a supervisor may decide an irregularity"


def test_dealer_calls_the_supervisor(table: Any) -> None:
    dealing(table).cards("2H").act("call_supervisor")
    assert table.last(out.IrregularityRaised).decisions == ("resume", "void")
    table.decide("resume")
    assert table.expectation == "deal Banker first card"


def test_card_with_no_shoe_in_play(table: Any) -> None:
    table.cards("2H")
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("card_without_shoe", ("burn",))
    table.decide("burn")
    assert table.state == "shuffling" and [c.code for c in table.machine.discarded] == ["2H"]


def test_impossible_card_during_the_burn_counts_as_burned(make_table: Any) -> None:
    table = make_table(decks=4)
    table.act("shuffle_done", "confirm_cut").cards("5S 2C 2C 2C 2C")
    assert table.expectation == "burn 1 card"
    table.cards("2C")  # all four 2C of four decks are out already
    assert table.state == "irregularity" and table.last(out.IrregularityRaised).decisions == ("burn",)
    table.decide("burn")
    assert table.state == "betting"


def test_an_irregularity_survives_a_restart(table: Any) -> None:
    dealing(table).cards("2H 3H").post(DeviceFault("shoe", "lost"))
    before = table.loop.snapshot()
    table.restart()
    assert table.loop.snapshot() == before
    assert table.state == "irregularity"
    table.clear()
    table.loop.announce()
    assert table.last(out.IrregularityRaised).reason == "device_fault"
    assert table.last(out.DeviceFaulted).device == "shoe"


def test_a_card_during_a_pause_stops_the_table(table: Any) -> None:
    from station.events import PauseRequested, ResumeRequested

    table.start_shoe().post(PauseRequested(Actor("supervisor", "sam"), "fill"))
    assert table.state == "paused" and table.expectation == "paused by sam"
    table.act("no_more_bets")
    assert table.state == "paused"
    table.post(CardDrawn("shoe", parse_card("2H")))
    assert table.last(out.IrregularityRaised).reason == "card_before_no_more_bets"
    table.decide("burn")
    assert table.state == "paused"
    table.post(ResumeRequested(Actor("supervisor", "sam")))
    assert table.state == "betting"


def test_a_round_device_that_failed_its_self_test_holds_the_first_round_for_a_supervisor(table: Any) -> None:
    """READY comes after replay and the self-tests whatever they said; a failed self-test of
    a device the rounds need stops the table before any round starts on it."""
    table.post(DeviceFault("shoe", "self-test failed: reader lamp", "selftest"))
    assert table.state == "irregularity"
    raised = table.last(out.IrregularityRaised)
    assert raised.reason == "self_test_failed" and raised.decisions == ("resume",)
    table.act("shuffle_done")
    assert table.state == "irregularity"  # no shoe starts on it
    table.decide("resume")  # the supervisor had it checked
    assert table.state == "shuffling" and "shoe" not in table.machine.faulted
    table.start_shoe()
    assert table.state == "betting"


def test_a_self_test_failure_of_a_device_the_rounds_do_not_need_is_only_a_fault(make_table: Any) -> None:
    table = make_table(round_devices=("shoe",))
    table.post(DeviceFault("display", "self-test failed: panel", "selftest"))
    assert table.state == "shuffling" and table.machine.faulted == {"display": "self-test failed: panel"}
