"""Limits and chips changed by an event: refused with a reason where a role or a rule forbids
it, taken from the next round to open, kept by each round, and replayed the same after a
restart from the start or from a checkpoint (docs/limits.md)."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.core.limit_steps import CONFIGURATION_ROLE
from station.events import Actor, BetCorrected, BetPlaced, LimitsChanged

SUP = Actor("supervisor", "sam")
DEALER = Actor("dealer", "dee")


def change(actor: Actor = SUP, reason: str = "", **changes: Any) -> LimitsChanged:
    return LimitsChanged(dict(changes), actor, reason)


@pytest.mark.parametrize(("event", "reason"), [
    (change(DEALER, min_bet=2000), "only a supervisor may change the table's limits"),
    (LimitsChanged({}, SUP), "limits: name at least one limit to change"),
    (change(box_max=10000), "box_max: this table has no such limit; it has min_bet, max_bet, chips, differential, "
                            "tie_min, tie_max, pair_min, pair_max"),
    (change(min_bet=600_000), "max_bet: maximum 5,000.00 is below the minimum 6,000.00"),
    (change(min_bet=-5), "min_bet: must be a whole number of minor units, 0 or more, got -5"),
    (change(min_bet="2000"), "min_bet: must be a whole number of minor units, 0 or more, got '2000'"),
    (change(chips=[100, 100]), "chips: a denomination is listed twice: 1.00, 1.00"),
    (change(chips=250), "chips: give the chips as a list of denominations, got 250"),
    (change(chips=[1000, 2500]), "chips: every chip must be a multiple of the smallest chip 10.00; 25.00 not"),
    (change(min_bet=1050), "min_bet: 10.50 cannot be made of chips of 1.00"),
    (change(differential=500), "differential: a differential of 5.00 is below the table minimum 10.00"),
    (change(tie_min=500), "tie_max: tie limits need 0 < tie_min <= tie_max (both 0: none), got 5.00 - 0.00"),
    (change(min_bet=1000), "the limits are already so: nothing to change"),
])
def test_a_change_is_refused_with_its_reason_and_changes_nothing(table: Any, event: LimitsChanged,
                                                                  reason: str) -> None:
    table.start_shoe()
    before = table.machine.limits
    table.post(event)
    refused = table.last(out.Refused)
    assert (refused.what, refused.reason) == ("LimitsChanged", reason)
    assert table.machine.pending_limits is None and table.machine.limits == before
    assert not table.of(out.LimitsScheduled)


def test_new_limits_apply_from_the_next_round_and_each_round_keeps_its_own(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.post(change(min_bet=2000, max_bet=200_000, reason="Saturday night"))
    scheduled = table.last(out.LimitsScheduled)
    assert (scheduled.changed, scheduled.applies_from, scheduled.who, scheduled.reason) == (
        ("min_bet", "max_bet"), "next round", "sam", "Saturday night")
    table.bet("2", "bo", "player", 1000)  # the round in play keeps its minimum
    assert table.machine.round.bets[("2", "bo", "player")] == 1000
    table.act("no_more_bets").cards("KH 3H 2D 3D 2S").act("next_round")
    applied = table.last(out.LimitsApplied)
    assert (applied.from_round, applied.changed, applied.role) == ("1-2", ("min_bet", "max_bet"), "supervisor")
    assert table.machine.round.limits["min_bet"] == 2000
    table.bet("1", "ann", "player", 1000)
    assert table.last(out.Refused).reason.endswith("below the table minimum of 20.00")
    table.bet("1", "ann", "player", 300_000)
    assert "over the maximum of 2,000.00" in table.last(out.Refused).reason
    table.bet("1", "ann", "player", 2000)
    assert table.machine.round.bets == {("1", "ann", "player"): 2000}
    played = [(r.round_id, r.limits["min_bet"]) for r in table.machine.correctable.values()]
    assert played == [("1-1", 1000)]


def test_a_correction_of_an_old_round_is_checked_under_that_rounds_limits(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("KH 3H 2D 3D 2S")
    table.post(change(min_bet=5000)).act("next_round")
    # 1000 was the minimum when round 1-1 was played: a correction to 1500 there is right.
    table.post(BetCorrected("1-1", "1", "ann", "player", "1", "ann", "player", 1500, "misread", SUP))
    corrected = table.last(out.RoundCorrected)
    assert corrected.bet_after == ("1", "ann", "player", 1500)


def test_chips_change_what_is_payable_from_the_next_round(table: Any) -> None:
    table.start_shoe()
    table.post(change(chips=[500, 1000, 5000], min_bet=1000))
    table.act("no_more_bets")  # an empty round: nothing to pay
    table.cards("KH 3H 2D 3D 2S").act("next_round")
    table.post(BetPlaced("1", "ann", "player", 1200))
    assert "cannot be made" in table.last(out.Refused).reason or "chips" in table.last(out.Refused).reason
    assert table.machine.round.limits["chips"] == [500, 1000, 5000]


def test_two_changes_before_a_round_merge_into_one(table: Any) -> None:
    table.start_shoe()
    table.post(change(min_bet=2000)).post(change(max_bet=100_000))
    assert table.machine.next_limits.min_bet == 2000 and table.machine.next_limits.max_bet == 100_000
    table.act("no_more_bets").cards("KH 3H 2D 3D 2S").act("next_round")
    assert table.last(out.LimitsApplied).changed == ("min_bet", "max_bet")


def test_the_configuration_is_remembered_as_what_it_last_gave(table: Any) -> None:
    table.start_shoe()
    table.post(change(Actor(CONFIGURATION_ROLE, "station.toml"), min_bet=2000))
    assert table.machine.configured_limits.min_bet == 2000
    table.post(change(min_bet=3000))  # a supervisor's change is not the configuration's
    assert table.machine.configured_limits.min_bet == 2000
    # The configuration giving what is already waiting changes nothing and is not refused.
    table.post(change(Actor(CONFIGURATION_ROLE, "station.toml"), min_bet=3000))
    assert not table.of(out.Refused) and table.machine.configured_limits.min_bet == 3000


def test_limits_replay_the_same_from_the_start_and_from_a_checkpoint(table: Any) -> None:
    from station.core.state import machine_state, restore_machine

    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("KH 3H 2D 3D 2S")
    table.post(change(min_bet=2000, chips=[100, 500, 1000, 2500, 10_000]))
    state = machine_state(table.machine)
    restored = restore_machine(table.options, state)
    assert machine_state(restored) == state
    table.restart()
    assert machine_state(table.machine) == state
    table.act("next_round")
    assert table.machine.round.limits["min_bet"] == 2000
    restored.apply(BetPlaced("1", "ann", "player", 1000))  # the restored machine is still paying round 1-1
    assert restored.pending_limits is not None
