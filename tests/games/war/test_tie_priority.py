"""Casino War: the Tie Wager on a box belongs first to the Casino War Wager holders (002
5.11(b)); the dealer records a declined priority, and the order of the wagers does not matter."""

from __future__ import annotations

import pytest

from station.cards import parse_card
from station.games.interface import NotAllowed
from station.games.table import Chips
from station.games.war.game import DECLINE_TIE, WarGame, WarPlay
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager, tie_priority_problem

WAR, TIE = WagerKind.WAR, WagerKind.TIE
GAME = WarGame()
TABLE = WarTable(boxes=7, min_bet=10, max_bet=500, chips=Chips((5, 25)))


def declined(box: str, player: str) -> WarPlay:
    """The betting round's play once the dealer recorded that ``player`` declines on ``box``."""
    decision = GAME.open_round().decide(box, player, DECLINE_TIE)
    assert decision.record == {"tie_declined": box, "player": player}
    assert isinstance(decision.play, WarPlay)
    return decision.play


def test_a_holder_who_declined_lets_others_place_the_tie_wager() -> None:
    layout = {("4", "ann", "war"): 100}
    refused = GAME.accept(("4", "bob", "tie"), 10, layout, TABLE, "", GAME.open_round())
    assert refused.reason == (
        "the Tie Wager on box 4 belongs first to ann, who holds the Casino War Wager there: ann places a Tie "
        "Wager or the dealer records that they decline it (decline_tie)")
    assert GAME.accept(("4", "bob", "tie"), 10, layout, TABLE, "", declined("4", "ann"))
    assert not GAME.accept(("5", "bob", "tie"), 10, {("5", "ann", "war"): 100}, TABLE, "", declined("4", "ann"))


def test_two_holders_each_must_place_or_decline() -> None:
    wagers = [WarWager(2, "ann", WAR, 20), WarWager(2, "bob", WAR, 20), WarWager(2, "cy", TIE, 10)]
    assert "belongs first to ann, bob with the Casino War Wager there" in tie_priority_problem(wagers)
    assert "ann or bob places a Tie Wager" in tie_priority_problem(wagers)
    assert "belongs first to bob with" in tie_priority_problem(wagers, {(2, "ann")})
    assert tie_priority_problem(wagers, {(2, "ann"), (2, "bob")}) == ""
    assert tie_priority_problem([*wagers, WarWager(2, "ann", TIE, 10)], {(2, "bob")}) == ""
    assert tie_priority_problem(wagers, {(3, "ann"), (3, "bob")}) != ""  # declined on another box


def test_no_problem_without_a_tie_wager_of_someone_else() -> None:
    assert tie_priority_problem([WarWager(1, "ann", WAR, 20), WarWager(1, "ann", TIE, 10)]) == ""
    assert tie_priority_problem([WarWager(1, "ann", WAR, 20), WarWager(2, "bob", TIE, 10)]) == ""
    assert tie_priority_problem([WarWager(1, "bob", TIE, 10)]) == ""


def test_betting_closes_only_once_the_priority_is_respected_whatever_the_order() -> None:
    layout = {("1", "bob", "tie"): 10, ("1", "ann", "war"): 100}
    with pytest.raises(NotAllowed, match=r"^bob holds a Tie Wager on box 1, which belongs first to ann"):
        GAME.close_betting(GAME.open_round(), layout, TABLE, "")
    closing = GAME.close_betting(declined("1", "ann"), layout, TABLE, "")
    assert isinstance(closing.play, WarPlay) and closing.play.tie_declined == ((1, "ann"),)
    assert closing.play.to_json() == {"choices": [], "tie_declined": [[1, "ann"]]}
    assert GAME.open_round().to_json() == {"choices": []}
    with pytest.raises(NotAllowed, match="a Tie Wager can be declined only while bets are open"):
        closing.play.decide("1", "ann", DECLINE_TIE)
    with pytest.raises(NotAllowed, match="casino war has no 'accept' decision"):
        GAME.close_betting(declined("1", "ann"), layout, TABLE, "", "accept")


def test_war_never_hides_a_card_nor_tells_before_turning_one() -> None:
    play = GAME.close_betting(GAME.open_round(), {("1", "ann", "war"): 100}, TABLE, "").play
    assert isinstance(play, WarPlay)
    assert play.disclosed() == "" and play.stage_end(0, squeeze=True) == 0
    dealt = play.place(parse_card("5H")).play
    assert dealt.disclosed() == "Casino War cards are turned as they are dealt"
    assert dealt.stage_end(0, squeeze=True) == 1
    assert GAME.with_card_holders(play, {}, TABLE) is play
    assert GAME.limit_lines(TABLE, "") == ()
    assert GAME.cut_problem("7", "ann", TABLE) == "" and GAME.cut_problem("8", "ann", TABLE).startswith("there is no")
    assert GAME.cut_problem("", "", TABLE) == "" and GAME.cut_problem("", "ann", TABLE) == "name the box ann sits at"
    assert GAME.cut_problem("one", "ann", TABLE) == "'one' is not a box number"
