"""Payouts confirmed before the next round, and corrections of settled rounds, through the
real core loop on a real journal: what is refused and why, what is journaled with who, and
that a replay of the journal gives the same table."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.core.payout_steps import CORRECTABLE_ROUNDS
from station.events import Actor, BetCorrected, DealerAction, PayoutConfirmationRequired, PayoutsConfirmed

SAM = Actor("supervisor", "sam")
DANA = Actor("dealer", "dana")


def correction(round_id: str, old: tuple[str, str, str], new: tuple[str, str, str, int], *, reason: str = "misread",
               actor: Actor = SAM) -> BetCorrected:
    return BetCorrected(round_id, old[0], old[1], old[2], new[0], new[1], new[2], new[3], reason, actor)


@pytest.fixture
def held(make_table: Any) -> Any:
    """A mini baccarat table that waits for the payouts' confirmation, in its first round."""
    table = make_table()
    table.post(PayoutConfirmationRequired(True))
    table.start_shoe()
    return table


def banker_win(t: Any) -> None:
    """Player 2+3 = 5, Banker 4+4 = 8: Banker wins with a natural."""
    t.act("no_more_bets").cards("2S 4H 3D 4C")


def test_the_next_round_waits_for_every_box_to_be_confirmed(held: Any) -> None:
    t = held
    t.bet("1", "ann", "banker", 2000).bet("3", "bo", "player", 1000).bet("3", "cy", "tie", 500)
    banker_win(t)
    assert t.state == "paying"
    assert t.last(out.PayoutsDue).boxes == ("1", "3")
    assert "confirm the payouts of box 1, 3" in t.expectation
    t.act("next_round")
    assert t.state == "paying"
    assert t.last(out.Refused).reason == "confirm the payouts of box 1, 3 first (Confirm payouts)"
    t.post(PayoutsConfirmed("1-1", ("3",), DANA))
    confirmed = t.last(out.PayoutsConfirmation)
    assert (confirmed.boxes, confirmed.remaining, confirmed.who) == (("3",), ("1",), "dana")
    t.post(PayoutsConfirmed("1-1", ("3",), DANA))
    assert t.last(out.Refused).reason == "box 3 has no payout of round 1-1 left to confirm"
    t.post(PayoutsConfirmed("1-2", (), DANA))
    assert t.last(out.Refused).reason == "round 1-2 is not the one being paid: round 1-1 is"
    t.post(PayoutsConfirmed("", (), DANA))  # every box left
    t.act("next_round")
    assert (t.state, t.machine.round.round_id) == ("betting", "1-2")
    closed = t.machine.correctable["1-1"]
    assert closed.confirmations == [{"boxes": ["3"], "role": "dealer", "who": "dana"},
                                    {"boxes": ["1"], "role": "dealer", "who": "dana"}]


def test_a_round_without_bets_and_a_table_without_the_rule_do_not_wait(make_table: Any) -> None:
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000)
    banker_win(t)
    assert not t.of(out.PayoutsDue)
    t.act("next_round")
    assert t.state == "betting"
    t.post(PayoutConfirmationRequired(True))
    banker_win(t)  # no bet at all this round
    assert not t.of(out.PayoutsDue)
    t.act("next_round")
    assert t.state == "betting"


def test_a_voided_round_waits_for_the_returns_to_be_confirmed(held: Any) -> None:
    t = held
    t.bet("2", "ann", "player", 2000)
    t.act("no_more_bets").cards("2S 4H")
    t.post(DealerAction("call_supervisor"))
    t.decide("void")
    assert t.state == "paying"
    assert t.last(out.PayoutsDue).boxes == ("2",)
    t.act("next_round")
    assert t.state == "paying"
    t.post(PayoutsConfirmed("1-1", ("2",), DANA)).act("next_round")
    assert t.state == "betting"


def test_the_rule_and_the_confirmations_replay_exactly(held: Any) -> None:
    t = held
    t.bet("1", "ann", "banker", 2000)
    banker_win(t)
    t.post(PayoutsConfirmed("1-1", (), DANA)).act("next_round")
    t.bet("1", "ann", "banker", 2000)
    banker_win(t)
    before = t.machine.snapshot()
    t.restart()
    assert t.machine.snapshot() == before
    assert t.machine.payouts_hold() == ["1"]


def test_a_correction_settles_the_round_again_and_moves_the_house_result(held: Any) -> None:
    t = held
    t.bet("1", "ann", "banker", 2000).bet("2", "bo", "player", 1000)
    banker_win(t)
    t.post(PayoutsConfirmed("1-1", (), DANA)).act("next_round")
    house = t.machine.house_net
    assert house == -1900 + 1000  # Banker pays 19.00 (20.00 less 1.00), Player loses 10.00
    # ann's 20.00 was really on Player: she loses it rather than winning 19.00.
    t.post(correction("1-1", ("1", "ann", "banker"), ("1", "ann", "player", 2000)))
    fixed = t.last(out.RoundCorrected)
    assert fixed.differences == (("1", "ann", "banker", -1900), ("1", "ann", "player", -2000))
    assert (fixed.house_before, fixed.house_after) == (-900, 3000)
    assert (fixed.who, fixed.reason) == ("sam", "misread")
    assert t.machine.house_net == house + 3900
    assert t.machine.correctable["1-1"].bets == {("2", "bo", "player"): 1000, ("1", "ann", "player"): 2000}
    before = t.machine.snapshot()
    t.restart()
    assert t.machine.snapshot() == before


@pytest.mark.parametrize(("event", "reason"), [
    (correction("1-1", ("1", "ann", "banker"), ("1", "ann", "player", 2000), actor=DANA),
     "only a supervisor may correct a settled round"),
    (correction("1-1", ("1", "ann", "banker"), ("1", "ann", "player", 2000), reason=" "),
     "a correction needs its reason, for the journal"),
    (correction("9-9", ("1", "ann", "banker"), ("1", "ann", "player", 2000)),
     f"round 9-9 cannot be corrected at the table: it is not among the last {CORRECTABLE_ROUNDS} rounds settled"),
    (correction("1-1", ("4", "ann", "banker"), ("1", "ann", "player", 2000)),
     "round 1-1 has no banker bet of ann on box 4"),
    (correction("1-1", ("1", "ann", "banker"), ("1", "ann", "banker", 2000)), "the correction changes nothing"),
    (correction("1-1", ("1", "ann", "banker"), ("1", "ann", "banker", 2010)),
     "the corrected bet would not have been accepted"),
    (correction("1-1", ("1", "ann", "banker"), ("1", "ann", "banker", 0)),
     "round 1-1 would have no bet left: void it instead"),
])
def test_corrections_refused_with_their_reason(held: Any, event: BetCorrected, reason: str) -> None:
    t = held
    t.bet("1", "ann", "banker", 2000)
    banker_win(t)
    t.post(event)
    assert t.last(out.Refused).reason.startswith(reason)
    assert not t.of(out.RoundCorrected)


def test_a_round_still_being_paid_can_be_corrected_too(held: Any) -> None:
    t = held
    t.bet("1", "ann", "banker", 2000)
    banker_win(t)
    t.post(correction("1-1", ("1", "ann", "banker"), ("1", "ann", "banker", 4000)))
    assert t.last(out.RoundCorrected).differences == (("1", "ann", "banker", 1900),)
    assert t.machine.round.settlement[0].net == 3800


def test_a_voided_round_is_not_corrected(held: Any) -> None:
    t = held
    t.bet("2", "ann", "player", 2000)
    t.act("no_more_bets").cards("2S")
    t.post(DealerAction("call_supervisor"))
    t.decide("void")
    t.post(correction("1-1", ("2", "ann", "player"), ("2", "ann", "player", 1000)))
    assert "was voided" in t.last(out.Refused).reason


def test_casino_war_corrections_keep_to_the_cards_dealt(make_table: Any) -> None:
    t = make_table(game="war")
    t.start_shoe()
    t.bet("1", "ann", "war", 2000).bet("3", "bo", "war", 2000)
    t.act("no_more_bets").cards("KH 5D 9C")  # box 1 wins, box 3 loses
    t.post(correction("1-1", ("3", "bo", "war"), ("3", "bo", "war", 1000)))
    assert t.last(out.RoundCorrected).differences == (("3", "bo", "war", 1000),)
    t.post(correction("1-1", ("3", "bo", "war"), ("2", "bo", "war", 1000)))
    assert t.last(out.Refused).reason.startswith("this round dealt cards to box 1, 3 only")
