"""A table that knows its chips, in the core (docs/chips.md): stable reads of the betting spots
become bets (with one tap, or as read), a chip moved after no more bets stops the round, the
payout zones are checked against the settlement and a wrong payment holds the next round, a
chip that does not count raises an alarm naming the place and the chip, and all of it
survives a restart and a checkpoint exactly."""

from __future__ import annotations

from typing import Any

import pytest

from station.chip_inputs import ChipBetsConfirmed, ChipPaymentAccepted, ChipsOnPlace, ChipStatusSet
from station.chips.registry import ChipStanding, ChipStatus
from station.core import outputs as out
from station.core.chip_table import ChipRules
from station.core.state import machine_state, restore_machine
from station.events import Actor
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SUP = Actor("supervisor", "sam")
DEALER = Actor("dealer", "dee")
BANKER_WINS = "KH 2D 6S 2C 3H"  # player 6, banker 4 draws a 3: banker 7 wins
A, B, C, D, E = (f"E00401000000000{n}" for n in "ABCDE")


def chip(uid: str, value: int = 1000, status: ChipStatus = ChipStatus.ACTIVE) -> ChipStanding:
    return ChipStanding(uid, status, value)


def on(place: str, *chips: ChipStanding, read: int = 1) -> ChipsOnPlace:
    return ChipsOnPlace(place, chips, read=read, at_ms=read * 100)


def _table(make_table: Any, confirm: str = "tap", hold: bool = True) -> Any:
    return make_table(table=BaccaratTable(Variant.MINI, 7, 1000, 500_000, Chips((100, 500, 1000))),
                      chips=ChipRules(confirm, hold))


def same_after_restart_and_checkpoint(table: Any) -> None:
    before = table.machine.snapshot()
    assert restore_machine(table.options, machine_state(table.machine)).snapshot() == before
    table.restart()
    assert table.machine.snapshot() == before


def test_chips_read_propose_the_bets_and_one_tap_makes_them_the_bets(make_table: Any) -> None:
    table = _table(make_table).start_shoe()
    table.bet("1", "ann", "banker", 2000)
    table.post(on("spot:1:banker", chip(A, 2000), chip(B, 2000)), on("spot:2:player", chip(C, 500)))
    spots = {s["place"]: s for s in table.last(out.ChipBetsProposed).spots}
    assert (spots["spot:1:banker"]["chips"], spots["spot:1:banker"]["keyed"]) == (4000, 2000)
    assert not spots["spot:1:banker"]["agrees"] and spots["spot:1:banker"]["player"] == "ann"
    assert (spots["spot:2:player"]["chips"], spots["spot:2:player"]["keyed"]) == (500, 0)
    assert table.machine.round.bets == {("1", "ann", "banker"): 2000}  # nothing until the tap
    table.post(ChipBetsConfirmed(DEALER))
    # the 5.00 on box 2 is under the table's minimum: refused as a keyed bet would be
    assert table.machine.round.bets == {("1", "ann", "banker"): 4000}
    assert "minimum" in table.of(out.Refused)[-1].reason
    spots = {s["place"]: s for s in table.last(out.ChipBetsProposed).spots}
    assert spots["spot:1:banker"]["agrees"] and not spots["spot:2:player"]["agrees"]
    same_after_restart_and_checkpoint(table)


def test_as_read_a_spots_bet_follows_its_chips(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:3:player", chip(A), chip(B)))
    assert table.machine.round.bets == {("3", "P1", "player"): 2000}
    table.post(on("spot:3:player", chip(A), read=2))
    assert table.machine.round.bets == {("3", "P1", "player"): 1000}
    table.post(on("spot:3:player", read=3))
    assert table.machine.round.bets == {}


def test_a_chip_added_after_no_more_bets_stops_the_round_as_past_posting(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)))
    table.act("no_more_bets").cards("KH 2D")
    table.post(on("spot:1:banker", chip(A), chip(B), chip(C, 500), read=7))
    assert table.state == "irregularity"
    assert table.machine.irregularity.reason == "chips_moved"
    moved = table.last(out.ChipsMoved)
    assert (moved.found, moved.place, moved.chips, moved.amount, moved.read) == (
        "past_posting", "spot:1:banker", (C,), 500, 7)
    assert "Box 1 · Banker" in table.machine.irregularity.detail and C in table.machine.irregularity.detail
    same_after_restart_and_checkpoint(table)
    table.decide("resume")
    table.post(on("spot:1:banker", chip(A), chip(B), chip(C, 500), chip(D, 500), read=8))
    assert [m.chips for m in table.of(out.ChipsMoved)] == [(C,), (D,)]  # each chip once
    table.decide("resume").cards("6S 2C 3H")
    settled = table.last(out.RoundSettled)
    assert [(b.region, b.stake) for b in settled.bets] == [("banker", 2000)]  # the bet as locked


def test_a_chip_moved_on_one_spot_says_nothing_of_the_other_spots(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)), on("spot:1:player", chip(C)), on("spot:2:tie", chip(D)))
    table.act("no_more_bets")
    table.post(on("spot:1:banker", chip(A), chip(B), chip(E, 500), read=3))
    assert [(m.found, m.place, m.chips) for m in table.of(out.ChipsMoved)] == [("past_posting", "spot:1:banker", (E,))]


def test_a_chip_taken_after_no_more_bets_is_pinching_and_the_round_can_be_voided(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:2:player", chip(A), chip(B)))
    table.act("no_more_bets")
    table.post(on("spot:2:player", chip(A), read=3))
    moved = table.last(out.ChipsMoved)
    assert (moved.found, moved.chips, moved.amount) == ("pinching", (B,), 1000)
    table.decide("void")
    assert table.machine.round.voided


def test_payout_zones_are_checked_and_a_wrong_payment_holds_the_next_round(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)), on("spot:2:player", chip(C)))
    table.act("no_more_bets").cards(BANKER_WINS)
    # banker 20.00 wins 19.00 after commission; box 2's player bet lost
    table.post(on("payout:1", chip(D, 1000), chip(E, 500)))
    check = table.last(out.ChipPaymentChecked)
    assert (check.box, check.owed, check.paid, check.verdict) == ("1", 1900, 1500, "under")
    assert check.text == "Box 1 paid 15.00, owed 19.00: under by 4.00"
    table.act("next_round")
    assert "a wrong payment of round" in table.of(out.Refused)[-1].reason
    held = table.last(out.ChipPaymentHeld)
    assert held.difference == -400 and table.machine.chip_layout.counts["wrong_payments"] == 1
    assert "wrong payment" in table.expectation
    same_after_restart_and_checkpoint(table)
    table.post(ChipPaymentAccepted(str(held.round_id), DEALER))
    assert table.of(out.Refused)[-1].reason == "only a supervisor accepts a wrong payment"
    table.post(ChipPaymentAccepted(str(held.round_id), SUP, "paid the rest in cash plaques"))
    accepted = table.last(out.ChipPaymentWasAccepted)
    assert (accepted.who, accepted.note) == ("sam", "paid the rest in cash plaques")
    table.act("next_round")
    assert table.state == "betting"
    # box 2's losing chips were never taken: shown as the round left the table
    left = table.last(out.ChipsMoved)
    assert (left.found, left.place, left.chips) == ("left_on_losing_spot", "spot:2:player", (C,))


def test_a_payment_put_right_lets_the_round_go(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)))
    table.act("no_more_bets").cards(BANKER_WINS)
    table.post(on("payout:1", chip(D, 1000), chip(E, 1000)))
    assert table.last(out.ChipPaymentChecked).verdict == "over"
    table.act("next_round")
    assert table.state == "paying"
    table.post(on("payout:1", chip(D, 1000), chip(E, 500), chip(C, 100), *(chip(f"E0040100000001{n:02X}", 100)
                                                                          for n in range(3)), read=2))
    assert table.last(out.ChipPaymentChecked).verdict == "right"
    table.post(on("payout:1", read=3))  # the player takes the payment: not a payment taken back
    table.act("next_round")
    assert table.state == "betting"


def test_a_wrong_payment_does_not_hold_a_table_told_not_to(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read", hold=False).start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)))
    table.act("no_more_bets").cards(BANKER_WINS).act("next_round")
    assert table.state == "betting"


@pytest.mark.parametrize(("status", "words"), [(ChipStatus.FLAGGED, "flagged"), (ChipStatus.RETIRED, "retired"),
                                               (ChipStatus.UNKNOWN, "not in the registry")])
def test_a_chip_that_does_not_count_is_an_alarm_naming_the_place_and_the_chip(
        make_table: Any, status: ChipStatus, words: str) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    bad = chip(C, 0 if status is ChipStatus.UNKNOWN else 1000, status)
    table.post(on("spot:4:tie", chip(A), bad))
    alarm = table.last(out.AlertRaised)
    assert (alarm.code, alarm.severity) == (f"chip_{status.value}", "alarm")
    assert alarm.detail == f"Box 4 · Tie: chip {C} is {words}"
    assert table.machine.round.bets == {("4", "P1", "tie"): 1000}  # the bad chip is not counted
    table.post(on("spot:4:tie", chip(A), bad, chip(B), read=2))
    assert len(table.of(out.AlertRaised)) == 1  # once while it lies there


def test_a_supervisor_flags_a_chip_and_it_counts_no_more(make_table: Any) -> None:
    table = _table(make_table, confirm="as_read").start_shoe()
    table.post(on("spot:1:player", chip(A), chip(B)))
    table.post(ChipStatusSet(B, "flagged", "reported stolen", DEALER))
    assert table.of(out.Refused)[-1].reason == "only a supervisor changes a chip's status"
    table.post(ChipStatusSet(B, "flagged", "", SUP))
    assert table.of(out.Refused)[-1].reason == "a change of a chip's status says why"
    table.post(ChipStatusSet(B, "flagged", "reported stolen", SUP))
    assert table.last(out.ChipStatusChanged).status == "flagged"
    assert table.last(out.AlertRaised).detail == f"Box 1 · Player: chip {B} is flagged"
    table.post(on("spot:1:player", chip(A), chip(B), read=2))
    assert table.machine.round.bets == {("1", "P1", "player"): 1000}
    table.post(ChipStatusSet(B, "retired", "out of circulation", SUP))
    table.post(ChipStatusSet(B, "active", "found", SUP))
    assert "never goes back into play" in table.of(out.Refused)[-1].reason
    same_after_restart_and_checkpoint(table)


def test_a_place_that_cannot_be_read_or_is_no_bet_is_refused(make_table: Any) -> None:
    table = _table(make_table).start_shoe()
    table.post(on("spot:1"))
    assert "is not a place" in table.of(out.Refused)[-1].reason
    table.post(on("spot:1:war"))
    assert table.of(out.Refused)[-1].reason == "'war' is not a bet of this table"


def test_a_table_without_a_reader_refuses_chips(make_table: Any) -> None:
    table = make_table().start_shoe()
    table.post(on("spot:1:banker", chip(A)))
    assert table.of(out.Refused)[-1].reason == "this table reads no chips ([table.chips] is not configured)"


def test_a_round_keeps_what_its_chips_said_and_recall_reads_it(make_table: Any) -> None:
    from station.core.recall import describe, recall_rounds

    table = _table(make_table).start_shoe()
    table.post(on("spot:1:banker", chip(A), chip(B)), ChipBetsConfirmed(DEALER))
    table.act("no_more_bets").post(on("spot:1:banker", chip(A), chip(B), chip(C, 500, ChipStatus.FLAGGED), read=4))
    table.decide("resume").cards(BANKER_WINS)
    table.post(on("payout:1", chip(D, 1000), read=5)).act("next_round")
    table.post(ChipPaymentAccepted(table.machine.chip_layout.hold, SUP, "cash"))
    table.act("next_round")
    [record] = [c.record for c in table.of(out.RoundClosed)]
    chips = record["chips"]
    assert chips["confirmed"] == [{"boxes": [], "role": "dealer", "who": "dee"}]
    assert [m["found"] for m in chips["moved"]] == ["past_posting"]
    assert chips["payment"][0]["verdict"] == "under" and chips["held"]["difference"] == -900
    assert chips["accepted"] == {"role": "supervisor", "who": "sam", "note": "cash"}
    assert chips["alarms"] == [{"code": "chip_flagged", "detail": f"Box 1 · Banker: chip {C} is flagged"}]
    [recalled] = [r for r in recall_rounds(table.path, table.options) if r["round_id"] == record["round_id"]]
    text = describe(recalled, table.options.table.money)
    for words in ("chip bet     Box 1 · Banker: chips 20.00, bet 20.00 (agrees)",
                  "chip tap     confirmed as the bets by dealer dee", "chips moved  Box 1 · Banker: 1 chip",
                  "payment      Box 1 paid 10.00, owed 19.00: under by 9.00",
                  "payment      accepted by supervisor sam (cash)",
                  f"chip alarm   Box 1 · Banker: chip {C} is flagged"):
        assert words in text, text
