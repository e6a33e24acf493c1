"""The marker pucks of dealing styles B and D: who squeezes each hand's cards (000 3.3, 5.6)."""

from __future__ import annotations

from station.games.baccarat.pucks import Holder, designate
from station.games.baccarat.rules import Hand


def test_the_largest_seated_bet_on_each_side_holds_its_puck() -> None:
    bets = {("1", "ann", "banker"): 2000, ("2", "bob", "banker"): 5000, ("3", "cy", "player"): 1000,
            ("4", "dee", "player"): 3000, ("5", "eve", "tie"): 90_000}
    assert designate(bets) == (Holder(Hand.BANKER, "2", "bob"), Holder(Hand.PLAYER, "4", "dee"))


def test_equal_bets_go_to_the_lower_box_then_to_the_bet_placed_first() -> None:
    assert designate({("5", "ann", "banker"): 2000, ("3", "bob", "banker"): 2000})[0].box == "3"
    assert designate({("3", "ann", "banker"): 2000, ("3", "bob", "banker"): 2000})[0].player == "ann"
    assert designate({("3", "bob", "banker"): 2000, ("3", "ann", "banker"): 2000})[0].player == "bob"
    assert designate({("10", "ann", "player"): 2000, ("9", "bob", "player"): 2000})[0].box == "9"  # by number


def test_standing_players_are_never_designated() -> None:
    bets = {("S1", "sue", "banker"): 50_000, ("S2", "tom", "player"): 50_000, ("7", "ann", "banker"): 1000}
    assert designate(bets) == (Holder(Hand.BANKER, "7", "ann"),)


def test_a_side_nobody_seated_bets_on_has_no_holder_and_one_player_may_hold_both() -> None:
    assert designate({}) == ()
    assert designate({("2", "ann", "tie"): 1000}) == ()
    both = designate({("2", "ann", "banker"): 1000, ("2", "ann", "player"): 1000})
    assert [(h.hand, h.player) for h in both] == [(Hand.BANKER, "ann"), (Hand.PLAYER, "ann")]
    assert designate({("box two", "ann", "banker"): 1000}) == ()  # an unreadable box holds nothing
    assert both[0].words() == "box 2 (ann)"
