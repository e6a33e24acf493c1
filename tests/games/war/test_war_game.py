"""Casino War through the game interface (station/games/war/game.py): each box's outcome
against the dealer, whose decision a choice is, when a round may be judged, the table built
from the configuration, and settlement in the layout's words."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from station.cards import parse_cards
from station.games.interface import NotAllowed, Play
from station.games.registry import game_named
from station.games.war.rules import StepKind, WarStep
from station.games.war.table import MAX_WAR_BOXES

WAR = game_named("war")
BETS = {("1", "ann", "war"): 2000, ("2", "bob", "war"): 2000, ("3", "cat", "war"): 2000}


def dealt(cards: str, bets: dict[tuple[str, str, str], int] = BETS) -> Play:
    """A round closed on ``bets`` and dealt ``cards`` (each box's first card in box order,
    then the dealer's)."""
    play = WAR.close_betting(WAR.open_round(), bets, WAR.default_table(), "").play
    for card in parse_cards(cards):
        play = play.place(card).play
    return play


def test_each_box_is_judged_against_the_dealers_card() -> None:
    play = dealt("KH 2C 7S 7D")  # box 1 higher, box 2 lower, box 3 ties the dealer's 7
    play = play.decide("3", "cat", "surrender").play
    assert play.result().outcome == "box 1:win box 2:lose box 3:tie"


def test_a_decision_is_taken_only_for_the_box_named_and_only_once() -> None:
    play = dealt("7H 7C 2S 7D")  # boxes 1 and 2 tie the dealer
    decision = play.decide("1", "", "war")
    assert decision.record["players"] == ["ann"]
    with pytest.raises(NotAllowed, match=r"^nobody on box 1 has a war-or-surrender decision to make$"):
        decision.play.decide("1", "", "surrender")
    assert decision.play.decide("2", "", "surrender").record["players"] == ["bob"]


def test_a_round_waiting_for_a_decision_is_not_judged() -> None:
    play = dealt("5H 5D", {("1", "ann", "war"): 2000})  # the dealer's card is out, ann must choose
    with pytest.raises(NotAllowed, match=r"^the round is not complete: box 1: ann goes to war or surrenders$"):
        play.result()


def test_settlement_has_no_void_part() -> None:
    play = dealt("KH 2C 7S 7D").decide("3", "cat", "war").play
    while play.step().wants_card:
        play = play.place(parse_cards("2H")[0]).play  # burns, then cat's and the dealer's war cards
    assert play.step().complete
    settled = WAR.settle(play, BETS, WAR.default_table(), "").bets
    assert settled and all((s.valid, s.void) == (s.stake, 0) for s in settled)


def settings(**war: Any) -> SimpleNamespace:
    values = {"box_max": 0, "player_max": 0, "tie_pays": 10, "tie_after_tie_bonus": 0, "max_boxes_per_player": 2}
    return SimpleNamespace(boxes=MAX_WAR_BOXES, standing_regions=0, min_bet=1000, max_bet=500_000, chips=[500, 100],
                           players_per_box=1, currency="EUR", minor_digits=2, war=SimpleNamespace(**{**values, **war}))


def test_a_war_table_has_at_most_seven_boxes() -> None:
    assert WAR.settings_problem(settings()) is None
    over = settings()
    over.boxes = MAX_WAR_BOXES + 1
    assert WAR.settings_problem(over) == ("boxes", "8 boxes is more than a war table has (7)")


def test_zero_in_the_configuration_means_no_limit() -> None:
    unlimited = WAR.table_from_settings(settings())
    assert (unlimited.box_max, unlimited.player_max, unlimited.tie_after_tie_bonus) == (None, None, None)
    limited = WAR.table_from_settings(settings(box_max=9000, player_max=6000, tie_after_tie_bonus=1))
    assert (limited.box_max, limited.player_max, limited.tie_after_tie_bonus) == (9000, 6000, 1)
    assert limited.chips.denominations == (100, 500) and limited.max_boxes_per_player == 2


def test_which_steps_want_a_card() -> None:
    wanting = {StepKind.DEAL_BOX, StepKind.DEAL_DEALER, StepKind.BURN, StepKind.DEAL_WAR_BOX, StepKind.DEAL_DEALER_WAR}
    assert {kind for kind in StepKind if WarStep(kind, box=1, player="ann", burns_left=3).wants_card} == wanting
    assert WarStep(StepKind.BURN, burns_left=1).instruction() == "burn 1 card"
    assert WarStep(StepKind.BURN, burns_left=3).instruction() == "burn 3 cards"
