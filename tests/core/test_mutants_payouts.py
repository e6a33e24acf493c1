"""Corners of the payout confirmations and corrections that mutation testing (tools/mutate.py,
docs/testing.md) found unguarded: each test here fails on a mutant that survived the rest of
tests/core.

Every test drives the real core loop on a real journal (inputs in, outputs and state out)."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.core.rounds import RoundId
from station.events import Actor, BetCorrected, PayoutConfirmationRequired
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SAM = Actor("supervisor", "sam")
CHIPS = Chips((100, 500, 1000, 2500))


def test_the_boxes_awaiting_confirmation_are_listed_as_the_layout_lists_them(make_table: Any) -> None:
    """Numbered boxes by number (2 before 10), then the standing regions by number (S2 before
    S10), whatever order the bets came in."""
    full = BaccaratTable(variant=Variant.FULL, boxes=14, standing_regions=10, min_bet=1000, max_bet=100_000,
                         chips=CHIPS)
    t = make_table(table=full)
    t.post(PayoutConfirmationRequired(True))
    t.start_shoe()
    t.bet("S10", "sue", "player", 1000).bet("10", "ann", "player", 1000)
    t.bet("S2", "tim", "player", 1000).bet("2", "bo", "player", 1000)
    t.act("no_more_bets").cards("2S 4H 3D 4C")  # Banker 8 v Player 5
    assert t.last(out.PayoutsDue).boxes == ("2", "10", "S2", "S10")
    assert t.machine.pending_payouts() == ["2", "10", "S2", "S10"]


def test_a_corrected_bet_is_judged_beside_the_rest_of_the_round(make_table: Any) -> None:
    """Box 1 already holds three players (the most a mini baccarat box seats): a bet moved there
    by a correction would have been refused when it was placed, so the correction is too."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "player", 1000).bet("1", "bo", "player", 1000).bet("1", "cy", "player", 1000)
    t.bet("2", "dee", "player", 1000)
    t.act("no_more_bets").cards("2S 4H 3D 4C")
    t.post(BetCorrected("1-1", "2", "dee", "player", "1", "dee", "player", 1000, "wrong box", SAM))
    refused = t.last(out.Refused).reason
    assert refused.startswith("the corrected bet would not have been accepted") and "3 players" in refused
    assert not t.of(out.RoundCorrected)
    assert t.machine.round.bets[("2", "dee", "player")] == 1000


def test_box_names_of_neither_kind_come_after_the_standing_regions() -> None:
    """The order the console lists bets in too: a name that is neither a box number nor a
    standing region ("SX" is not S and a number) comes last, by its name."""
    from station.core.payout_steps import box_order

    names = ["SX", "bar", "S10", "10", "S2", "2"]
    assert sorted(names, key=box_order) == ["2", "10", "S2", "S10", "bar", "SX"]
    assert box_order(" s3 ") == box_order("S3")


def test_a_voided_round_is_not_kept_among_the_rounds_to_correct(make_table: Any) -> None:
    """Only settled rounds are correctable (a voided one gave every bet back): once a voided
    round has left the table it is not kept, so it takes no place among the last rounds kept."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "player", 1000).act("no_more_bets").cards("2S 4H 3D 4C").act("next_round")
    t.bet("1", "ann", "player", 1000).act("no_more_bets").cards("2S").act("call_supervisor")
    t.decide("void").act("next_round")
    assert list(t.machine.correctable) == ["1-1"]
    assert [entry[0] for entry in t.machine.snapshot()["correctable"]] == ["1-1"]
    t.post(BetCorrected("1-2", "1", "ann", "player", "1", "ann", "player", 2000, "misread", SAM))
    assert t.last(out.Refused).reason.startswith("round 1-2 cannot be corrected at the table")


def test_a_bet_left_on_after_a_tie_follows_its_correction_into_the_next_round(make_table: Any) -> None:
    """A Tie leaves Banker and Player bets on for the next round (5.16); corrected while the
    round is still being paid, the bet left on is the corrected one."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("9H 9D KS KC")  # 9 v 9: a Tie
    assert t.state == "paying" and t.machine.carried == {("1", "ann", "banker"): 2000}
    assert t.last(out.RoundSettled).carried == ((("1", "ann", "banker"), 2000),)  # the console is told so
    t.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 3000, "it was on Player", SAM))
    assert t.last(out.RoundCorrected).round_id == "1-1"
    assert t.machine.carried == {("1", "ann", "player"): 3000}
    t.act("next_round")
    assert t.machine.round.bets == {("1", "ann", "player"): 3000}


def test_correcting_an_earlier_round_leaves_the_bets_left_on_by_this_one(make_table: Any) -> None:
    """Round 1-2 ended in a Tie with ann's 20.00 on Banker left on; correcting the same bet of
    round 1-1 (gone from the table) changes round 1-1 only."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("2S 4H 3D 4C").act("next_round")
    t.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("9H 9D KS KC")
    t.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 2000, "it was on Player", SAM))
    assert t.last(out.RoundCorrected).round_id == "1-1"
    assert t.machine.carried == {("1", "ann", "banker"): 2000}
    t.act("next_round")
    assert t.machine.round.bets == {("1", "ann", "banker"): 2000}


def test_payouts_confirmed_already_are_refused_and_nothing_more_is_recorded(make_table: Any) -> None:
    from station.events import PayoutsConfirmed

    t = make_table()
    t.post(PayoutConfirmationRequired(True))
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000)
    t.act("no_more_bets").cards("2S 4H 3D 4C")
    dana = Actor("dealer", "dana")
    t.post(PayoutsConfirmed("1-1", (), dana))
    assert t.last(out.PayoutsConfirmation).remaining == ()
    t.post(PayoutsConfirmed("1-1", (), dana))
    assert t.last(out.Refused).reason == "the payouts of round 1-1 are confirmed already"
    assert len(t.of(out.PayoutsConfirmation)) == 1
    assert t.machine.round.confirmations == [{"boxes": ["1"], "role": "dealer", "who": "dana"}]


def test_payouts_cannot_be_confirmed_before_the_round_is_settled(make_table: Any) -> None:
    from station.events import PayoutsConfirmed

    t = make_table()
    t.post(PayoutConfirmationRequired(True))
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000)
    t.post(PayoutsConfirmed("1-1", (), Actor("dealer", "dana")))
    assert t.last(out.Refused).reason.startswith("cannot confirm payouts now")
    t.act("no_more_bets").cards("2S 4H")
    t.post(PayoutsConfirmed("1-1", (), Actor("dealer", "dana")))
    assert t.last(out.Refused).reason.startswith("cannot confirm payouts now")
    assert not t.of(out.PayoutsConfirmation)


def test_a_bet_left_on_after_a_tie_and_corrected_to_nothing_is_not_left_on(make_table: Any) -> None:
    """Corrected to 0 (there was no such bet), ann's Banker bet no longer goes into the next
    round; bo's Player bet, left on too, does."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000).bet("2", "bo", "player", 1000)
    t.act("no_more_bets").cards("9H 9D KS KC")  # a Tie
    t.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "banker", 0, "no bet was there", SAM))
    assert t.last(out.RoundCorrected).round_id == "1-1" and t.state == "paying"
    assert t.machine.carried == {("2", "bo", "player"): 1000}
    t.act("next_round")
    assert t.machine.round.bets == {("2", "bo", "player"): 1000}


def _shuffled_shoe(seed: int) -> list[str]:
    """An 8-deck shoe in a random order, less the 2S, 2C and 2D that start_shoe exposes and burns."""
    import random

    from station.cards import FULL_DECK

    codes = [c.code for _ in range(8) for c in FULL_DECK]
    for code in ("2S", "2C", "2D"):
        codes.remove(code)
    random.Random(seed).shuffle(codes)
    return codes


def _play_rounds(t: Any, codes: list[str], rounds: int) -> None:
    """``rounds`` rounds with a bet each, dealt from ``codes`` (taken from its front)."""
    for _ in range(rounds):
        t.bet("1", "ann", "player", 1000).act("no_more_bets")
        while t.state == "dealing":
            t.cards(codes.pop(0))
        assert t.state == "paying"
        t.act("next_round")


def test_the_last_hundred_rounds_settled_are_kept_to_correct(make_table: Any) -> None:
    """101 rounds over two shoes: the first leaves, the hundred after it stay; the count of
    corrections starts at none."""
    from station.core.payout_steps import CORRECTABLE_ROUNDS
    from station.events import CutCardSeen

    t = make_table()
    assert CORRECTABLE_ROUNDS == 100 and t.machine.snapshot()["corrections"] == 0
    t.start_shoe()
    first = _shuffled_shoe(1)
    _play_rounds(t, first, 60)
    t.bet("1", "ann", "player", 1000).act("no_more_bets").cards(first.pop(0)).post(CutCardSeen("shoe"))
    while t.state == "dealing":
        t.cards(first.pop(0))
    t.act("next_round")
    _play_rounds(t, first, 1)  # the round after the cut card's: the shoe ends
    assert t.state == "shuffling"
    t.start_shoe()
    _play_rounds(t, _shuffled_shoe(2), 39)
    kept = list(t.machine.correctable)
    assert len(kept) == 100 and kept[0] == "1-2" and kept[-1] == "2-39"
    t.post(BetCorrected("1-1", "1", "ann", "player", "1", "ann", "player", 2000, "misread", SAM))
    assert t.last(out.Refused).reason.startswith("round 1-1 cannot be corrected at the table")
    t.post(BetCorrected("1-2", "1", "ann", "player", "1", "ann", "player", 9000, "misread", SAM))
    assert t.last(out.RoundCorrected).round_id == "1-2" and t.machine.snapshot()["corrections"] == 1


def test_requiring_confirmation_while_a_round_is_paid_holds_it_for_its_boxes(make_table: Any) -> None:
    t = make_table()
    t.start_shoe()
    t.bet("3", "bo", "player", 1000).bet("1", "ann", "banker", 2000)
    t.act("no_more_bets").cards("2S 4H 3D 4C")
    assert t.state == "paying" and not t.of(out.PayoutsDue)
    t.post(PayoutConfirmationRequired(True))
    assert t.last(out.PayoutsDue) == out.PayoutsDue(RoundId(1, 1), ("1", "3"))
    t.act("next_round")
    assert t.state == "paying" and "confirm the payouts of box 1, 3" in t.last(out.Refused).reason


def test_the_rounds_kept_to_correct_are_kept_with_their_settlement(make_table: Any) -> None:
    """What a restart rebuilds them from (the snapshot): each round with its bets and how each
    was settled."""
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("2S 4H 3D 4C").act("next_round")
    [(round_id, bets, settlement)] = t.machine.snapshot()["correctable"]
    assert round_id == "1-1" and bets == [{"box": "1", "player": "ann", "region": "banker", "amount": 2000}]
    assert [(s["box"], s["player"], s["net"]) for s in settlement] == [("1", "ann", 1900)]


def test_a_correction_of_a_round_not_settled_yet_or_to_less_than_nothing_is_refused(make_table: Any) -> None:
    t = make_table()
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("2S 4H")
    t.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 2000, "misread", SAM))
    assert t.last(out.Refused).reason == "round 1-1 is not settled yet: its bets are still the dealer's"
    assert t.state == "dealing"
    t.cards("3D 4C")
    t.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "banker", -1000, "misread", SAM))
    assert t.last(out.Refused).reason == "a corrected amount is 0 (no such bet) or more"
    assert not t.of(out.RoundCorrected) and t.machine.round.bets == {("1", "ann", "banker"): 2000}


def test_a_confirmation_naming_another_round_confirms_nothing(make_table: Any) -> None:
    from station.events import PayoutsConfirmed

    t = make_table()
    t.post(PayoutConfirmationRequired(True))
    t.start_shoe()
    t.bet("1", "ann", "banker", 2000)
    t.act("no_more_bets").cards("2S 4H 3D 4C")
    t.post(PayoutsConfirmed("1-2", (), Actor("dealer", "dana")))
    assert t.last(out.Refused).reason == "round 1-2 is not the one being paid: round 1-1 is"
    assert not t.of(out.PayoutsConfirmation) and t.machine.round.confirmations == []
    assert t.machine.payouts_hold() == ["1"]
