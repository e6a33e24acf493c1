"""The corners of the rules through the real core loop and journal: bets checked under the
round's payout option (5.11/5.12), the Casino War Tie Wager priority (002 5.11), late bets
once the draws tell something (5.14), the supervisor's say on the table differential (5.17,
5.18), cards dealt ahead of a squeeze, the marker pucks, the cut and a second cutting card."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.events import (
    Actor,
    BetChanged,
    BetWithdrawn,
    CutCardSeen,
    DealerAction,
    LateBetOverride,
    PayoutOptionChanged,
    SupervisorDecision,
)
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SUP = Actor("supervisor", "sam")
DEALER = Actor("dealer", "dee")
CHIPS = Chips((100, 500, 1000, 2500))  # smallest chip 1.00: Banker bets under commission in steps of 20.00


def baccarat(**changes: Any) -> BaccaratTable:
    options: dict[str, Any] = {"variant": Variant.MINI, "boxes": 7, "min_bet": 1000, "max_bet": 100_000, "chips": CHIPS}
    options.update(changes)
    return BaccaratTable(**options)


def refusal(table: Any) -> str:
    return str(table.last(out.Refused).reason)


# --- 1. bets are checked under the round's payout option --------------------------------


def test_switched_to_no_commission_a_banker_bet_5_12_would_refuse_is_accepted(make_table: Any) -> None:
    table = make_table(table=baccarat())  # configured: commission
    table.start_shoe().post(PayoutOptionChanged("no_commission", SUP))
    table.bet("1", "ann", "banker", 3000)
    assert "cannot be paid exactly" in refusal(table)  # this round still pays commission
    table.act("no_more_bets").cards("9H 2H KD 3D").act("next_round")  # Player natural
    assert table.machine.round.payout_option == "no_commission"
    table.clear()
    table.bet("1", "ann", "banker", 3000)  # 5.12 does not apply under 5.11
    assert not table.of(out.Refused) and table.last(out.BetAccepted).amount == 3000
    table.act("no_more_bets").cards("2H 9H 3D KD")  # Banker natural 9 against 5
    (bet,) = table.last(out.RoundSettled).bets
    assert (bet.valid, bet.void, bet.net) == (3000, 0, 3000)


def test_switched_to_commission_a_banker_bet_is_refused_not_split_valid_and_void(make_table: Any) -> None:
    table = make_table(table=baccarat(banker_payout="no_commission"))
    table.start_shoe().post(PayoutOptionChanged("commission", SUP))
    table.bet("1", "ann", "banker", 3000)  # this round: no commission, accepted
    table.act("no_more_bets").cards("9H 2H KD 3D").act("next_round")
    table.clear()
    table.bet("1", "ann", "banker", 3000)
    assert refusal(table) == "Banker bet of 30.00 cannot be paid exactly in chips of 1.00: largest acceptable is 20.00"
    assert table.machine.round.bets == {}
    table.bet("1", "ann", "banker", 4000).act("no_more_bets").cards("2H 9H 3D KD")
    (bet,) = table.last(out.RoundSettled).bets
    assert (bet.valid, bet.void, bet.net) == (4000, 0, 3800)


def test_bets_changed_after_a_tie_are_checked_under_the_pending_payout_option(make_table: Any) -> None:
    table = make_table(table=baccarat(banker_payout="no_commission"))
    table.start_shoe().bet("1", "ann", "banker", 3000).bet("1", "ann", "tie", 1000)
    table.act("no_more_bets").cards("9H 9D KD KS")  # 9 against 9: a Tie, the Banker bet stays on
    table.post(PayoutOptionChanged("commission", SUP))  # from the next round
    table.post(BetChanged("1", "ann", "banker", 5000))
    assert refusal(table).startswith("Banker bet of 50.00 cannot be paid exactly")
    table.post(BetChanged("1", "ann", "banker", 6000))
    assert table.last(out.BetAccepted).amount == 6000
    table.act("next_round")
    assert table.machine.round.bets == {("1", "ann", "banker"): 6000}


def test_a_banker_bet_left_on_into_a_commission_round_must_be_changed_before_dealing(make_table: Any) -> None:
    table = make_table(table=baccarat(banker_payout="no_commission"))
    table.start_shoe().bet("1", "ann", "banker", 3000).bet("1", "ann", "tie", 1000)
    table.act("no_more_bets").cards("9H 9D KD KS")
    table.post(PayoutOptionChanged("commission", SUP)).act("next_round")
    assert table.machine.round.bets == {("1", "ann", "banker"): 3000}  # accepted under no commission
    table.act("no_more_bets")
    assert table.state == "betting"
    assert refusal(table) == ("ann's Banker bet of 30.00 on box 1 cannot be paid exactly in chips of 1.00 under "
                              "commission (5.12): change it to 20.00 or 40.00")
    table.post(BetChanged("1", "ann", "banker", 2000)).act("no_more_bets")
    assert table.state == "dealing"


# --- 2. the Casino War Tie Wager belongs first to the Casino War Wager holder -------------


@pytest.fixture
def war(make_table: Any) -> Any:
    table = make_table(game="war")
    table.start_shoe()
    return table


def decline(table: Any, box: str, player: str, actor: Actor = DEALER) -> Any:
    return table.post(DealerAction("decline_tie", box=box, player=player, actor=actor))


def test_the_dealer_records_a_declined_tie_wager_and_the_next_player_may_place_it(war: Any) -> None:
    war.bet("1", "ann", "war", 2000).bet("1", "bob", "tie", 1000)
    assert refusal(war).startswith("the Tie Wager on box 1 belongs first to ann, who holds the Casino War Wager")
    decline(war, "1", "ann")
    war.clear()
    war.bet("1", "bob", "tie", 1000)
    assert not war.of(out.Refused)
    war.act("no_more_bets").cards("5H 5D")  # box 1 ties the Dealer
    assert war.machine.round.to_json()["tie_declined"] == [[1, "ann"]]
    assert {"tie_declined": "1", "player": "ann", "role": "dealer", "who": "dee"} in war.machine.round.decisions


def test_the_tie_wager_priority_does_not_depend_on_who_bet_first(war: Any) -> None:
    war.bet("1", "bob", "tie", 1000).bet("1", "ann", "war", 2000)  # bob first: nobody held the box yet
    assert not war.of(out.Refused)
    war.act("no_more_bets")
    assert war.state == "betting"
    assert refusal(war) == (
        "bob holds a Tie Wager on box 1, which belongs first to ann with the Casino War Wager there (5.11): "
        "ann places a Tie Wager or the dealer records that they decline it (decline_tie), or the other Tie "
        "Wager is withdrawn")
    war.bet("1", "ann", "tie", 1000).act("no_more_bets")
    assert war.state == "dealing"


def test_a_tie_wager_is_declined_only_while_bets_are_open(war: Any) -> None:
    war.bet("1", "ann", "war", 2000).act("no_more_bets")
    decline(war, "1", "ann")
    assert refusal(war) == "cannot decline tie now: deal box 1"
    war.cards("5H 9D")
    decline(war, "1", "ann")
    assert refusal(war).startswith("cannot decline tie now")


def test_a_decline_needs_the_player_and_counts_once(war: Any) -> None:
    decline(war, "1", "")
    assert refusal(war) == "name the player on box 1 who declines the Tie Wager"
    decline(war, "x", "ann")
    assert refusal(war) == "'x' is not a box number"
    decline(war, "1", "ann")
    decline(war, "1", "ann")
    assert refusal(war) == "ann has already declined the Tie Wager on box 1"


def test_baccarat_has_no_tie_wager_to_decline(table: Any) -> None:
    table.start_shoe()
    decline(table, "1", "ann")
    assert refusal(table) == "unknown dealer action 'decline_tie'"


# --- 3. late bets once the draws tell something ------------------------------------------


@pytest.mark.parametrize(("cards", "told"), [
    # Player 4 draws, Banker 7 stands: every card out, 7 beats 4+0 (the round).
    ("2H 3H 2D 4D KC", "every card of the round is out"),
    ("2H 3H 2D KS KC", "a third card is out"),  # Player 4 drew a 0; the Banker (3) is still to draw
    ("2H 3H 2D 2S", "the rules call for a Player third card"),
    ("9H 3H KD 2D", "every card of the round is out"),  # a natural: no third card
])
def test_style_c_late_bets_are_refused_once_the_draws_tell_something(make_table: Any, cards: str, told: str) -> None:
    table = make_table(dealing_style="C")
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards(cards)
    table.post(LateBetOverride(SUP, "player asks"))
    assert refusal(table).startswith(told) and refusal(table).endswith(": no late bets (5.14)")
    assert table.state in ("dealing", "revealing")
    table.bet("2", "bo", "banker", 2000)
    assert refusal(table).startswith("bets are closed")


@pytest.mark.parametrize("style", ["B", "D"])
def test_squeeze_late_bets_are_refused_once_the_opening_is_out(make_table: Any, style: str) -> None:
    table = make_table(dealing_style=style)
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("2H 3H 2D")
    table.post(LateBetOverride(SUP))
    assert table.state == "betting"  # three face-down cards tell nothing
    table.act("no_more_bets").cards("4D")
    assert table.state == "revealing"
    table.post(LateBetOverride(SUP))
    assert refusal(table) == "the rules call for a Player third card: that tells about the totals: no late bets (5.14)"


# --- 4. the supervisor decides on the table differential ----------------------------------


def test_a_differential_no_reduction_can_meet_waits_for_a_supervisor_who_may_accept_it(make_table: Any) -> None:
    # Banker bets move in steps of 2000 (chips of 100, commission); Player 3000 and a
    # differential of 500 need a Banker total of 2500 to 3500: no multiple of 2000 is.
    table = make_table(table=baccarat(table_differential=500))
    table.start_shoe().bet("1", "ann", "banker", 6000).bet("2", "bo", "player", 3000)
    table.post(DealerAction("no_more_bets", actor=SUP))
    assert table.state == "irregularity"
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("closing_decision", ("accept", "resume"))
    assert "it cannot be met by reducing Banker bets in chips of 1.00" in raised.detail
    assert table.expectation == "waiting for supervisor: no more bets needs a supervisor's decision"
    table.post(SupervisorDecision("accept", DEALER))
    assert refusal(table) == "only a supervisor may decide an irregularity"
    table.post(SupervisorDecision("reduce", SUP))
    assert refusal(table) == "'reduce' is not allowed here: choose accept, resume"
    table.post(SupervisorDecision("accept", SUP, "regular players"))
    assert (table.state, table.expectation) == ("dealing", "deal Player first card")
    assert table.machine.round.bets == {("1", "ann", "banker"): 6000, ("2", "bo", "player"): 3000}
    record = table.machine.round.decisions[-1]
    assert (record["reason"], record["decision"], record["who"], record["note"]) == (
        "closing_decision", "accept", "sam", "regular players")
    table.cards("9H 2H KD 3D")
    assert len(table.last(out.RoundSettled).bets) == 2


def test_with_supervisor_reduction_the_station_proposes_and_the_supervisor_reduces(make_table: Any) -> None:
    table = make_table(table=baccarat(table_differential=5000, differential_reduction="supervisor"))
    table.start_shoe().bet("1", "ann", "player", 10000).bet("2", "bo", "banker", 2000).act("no_more_bets")
    raised = table.last(out.IrregularityRaised)
    assert raised.decisions == ("reduce", "accept", "resume")
    assert "reduce: reduce pro rata (ann's Player bet on box 1 100.00 -> 70.00)" in raised.detail
    assert not table.of(out.BetsReduced)
    table.post(SupervisorDecision("reduce", SUP))
    assert table.state == "dealing"
    assert table.last(out.BetsReduced).reductions == (("1", "ann", "player", 10000, 7000),)
    assert table.machine.round.bets[("1", "ann", "player")] == 7000
    restarted = table.restart()
    assert restarted.machine.snapshot() == table.machine.snapshot()


def test_resume_goes_back_to_betting_where_the_bets_may_be_changed(make_table: Any) -> None:
    table = make_table(table=baccarat(table_differential=500))
    table.start_shoe().bet("1", "ann", "banker", 6000).bet("2", "bo", "player", 3000).act("no_more_bets")
    assert table.state == "irregularity"
    table.decide("resume")
    assert table.state == "betting" and table.last(out.IrregularityResolved).decision == "resume"
    table.post(BetWithdrawn("1", "ann", "banker")).bet("1", "ann", "banker", 4000)
    table.post(BetChanged("2", "bo", "player", 4000)).act("no_more_bets")
    assert table.state == "dealing" and not table.of(out.BetsReduced)


def test_automatic_reduction_still_reduces_by_itself(make_table: Any) -> None:
    table = make_table(table=baccarat(table_differential=5000))
    table.start_shoe().bet("1", "ann", "player", 10000).bet("2", "bo", "banker", 2000).act("no_more_bets")
    assert table.state == "dealing" and not table.of(out.IrregularityRaised)
    assert table.machine.round.decisions == [{"differential": [["1", "ann", "player", 10000, 7000]]}]


# --- 5. squeeze: a card dealt before the reveal that the rules call for -------------------


@pytest.mark.parametrize("style", ["B", "D"])
def test_a_due_third_card_drawn_before_the_reveal_is_that_card(make_table: Any, style: str) -> None:
    table = make_table(dealing_style=style)
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.clear()
    table.cards("2H 3H 3D KD")  # Player 5 draws; Banker 3
    table.cards("4C")  # the Player's third card, before the players have turned the opening
    table.cards("5C")  # the Banker's (3 draws on a 4), too
    assert table.state == "revealing" and not table.of(out.IrregularityRaised)
    assert not table.of(out.CardRevealed)
    table.act("reveal")
    assert [o.card.code for o in table.of(out.CardRevealed)] == ["2H", "3H", "3D", "KD"]
    assert table.state == "revealing" and not table.of(out.RoundResult)
    table.act("reveal")
    assert table.of(out.CardRevealed)[-1].card.code == "4C" and not table.of(out.RoundResult)
    table.act("reveal")
    assert table.of(out.CardRevealed)[-1].card.code == "5C"
    result = table.last(out.RoundResult)
    assert (result.totals, result.outcome) == ((("player", 9), ("banker", 8)), "player")
    assert table.last(out.RoundSettled).bets[0].net == 1000
    assert {"dealt_before_reveal": ["player", "4C"]} in table.machine.round.decisions


@pytest.mark.parametrize("style", ["B", "D"])
def test_a_card_before_the_reveal_when_the_rules_say_stand_stops_the_round(make_table: Any, style: str) -> None:
    table = make_table(dealing_style=style)
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("2H 3H 4D 4S")  # 6 v 7
    table.cards("7C")
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("card_when_stand", ("burn", "dummy", "void"))
    table.decide("burn").act("reveal")
    assert table.last(out.RoundResult).outcome == "banker"


# --- 6. marker pucks, the cut, a second cutting card -------------------------------------


def test_squeeze_pucks_go_to_the_largest_seated_bets(make_table: Any) -> None:
    table = make_table(dealing_style="B")
    table.start_shoe()
    table.bet("3", "ann", "banker", 6000).bet("1", "bob", "banker", 6000).bet("2", "cy", "player", 2000)
    table.bet("2", "cy", "tie", 9000).act("no_more_bets")
    assert table.expectation == "deal Player first card to box 2 (cy)"
    table.cards("2H")
    assert table.expectation == "deal Banker first card to box 1 (bob)"  # equal bets: the lower box
    assert table.machine.round.to_json()["pucks"] == {"banker": ["1", "bob"], "player": ["2", "cy"]}


def test_standing_players_are_never_designated_nor_cut(make_table: Any) -> None:
    full = BaccaratTable(variant=Variant.FULL, boxes=14, standing_regions=2, min_bet=1000, max_bet=100_000,
                         chips=CHIPS)
    table = make_table(dealing_style="D", table=full)
    table.act("shuffle_done")
    table.post(DealerAction("confirm_cut", box="S1", player="sue"))
    assert refusal(table) == "standing players never take part in the cut of the cards (5.6)"
    table.post(DealerAction("confirm_cut", box="4", player="ann"))
    assert table.state == "burning" and table.machine.shoe.to_json()["cut_by"] == ["4", "ann"]
    table.cards("2S 2C 2D")
    table.bet("S1", "sue", "player", 50000).bet("4", "ann", "player", 1000).act("no_more_bets")
    assert table.expectation == "deal Player first card to box 4 (ann)"
    table.cards("2H")
    assert table.expectation == "deal Banker first card to the dealer"


def test_a_second_cutting_card_marks_the_end_of_the_cards(make_table: Any) -> None:
    table = make_table(cut_cards=2)
    table.start_shoe().act("no_more_bets").cards("9H 2H")
    table.post(CutCardSeen("shoe"))  # the first: one more round after this one
    table.cards("KD 3D").act("next_round", "no_more_bets").cards("2H 3H")
    table.post(CutCardSeen("shoe"))  # the second, behind the last card: no card left
    raised = table.last(out.IrregularityRaised)
    assert (raised.reason, raised.decisions) == ("shoe_empty", ("void",))
    table.decide("void").act("next_round")
    assert table.state == "shuffling" and table.last(out.ShoeEnded).rounds == 2


def test_a_second_cutting_card_between_rounds_ends_the_shoe(make_table: Any) -> None:
    table = make_table(cut_cards=2, rounds_after_cut=2)
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 2H KD 3D")
    table.post(CutCardSeen("shoe")).act("next_round")
    table.post(CutCardSeen("shoe"))
    assert table.state == "paying" and table.last(out.RoundVoided).returned == ()
    table.act("next_round")
    assert table.state == "shuffling"


def test_one_cutting_card_comes_out_once(table: Any) -> None:
    table.start_shoe().act("no_more_bets").cards("9H 2H")
    table.post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    table.post(CutCardSeen("shoe"))
    assert refusal(table) == "the cut card has already come out of this shoe"
