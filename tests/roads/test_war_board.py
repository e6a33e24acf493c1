"""The Casino War board: the latest results of each box in the shoe."""

from __future__ import annotations

import pytest

from station.roads.results import RoadsInputError
from station.roads.war_board import WarBoard, WarOutcome


def test_war_board_keeps_the_latest_results_per_box() -> None:
    board = WarBoard(keep=3)
    board.add({1: "win", 3: WarOutcome.SURRENDER})
    board.add({1: "war-win", 2: "lose"})
    board.add({1: "lose", 2: "tie"})
    board.add({1: "war-lose"})
    assert board.latest(1) == (WarOutcome.WAR_WIN, WarOutcome.LOSE, WarOutcome.WAR_LOSE)
    assert board.latest(2) == (WarOutcome.LOSE, WarOutcome.TIE)
    assert board.latest(7) == ()
    assert board.to_dict() == {
        "rounds": 4,
        "boxes": {"1": ["war-win", "lose", "war-lose"], "2": ["lose", "tie"], "3": ["surrender"]},
    }
    rebuilt = WarBoard(
        [{1: "win", 3: "surrender"}, {1: "war-win", 2: "lose"}, {1: "lose", 2: "tie"}, {1: "war-lose"}], keep=3
    )
    assert rebuilt.to_dict() == board.to_dict()
    with pytest.raises(RoadsInputError, match="unknown war outcome"):
        board.add({1: "push"})
    assert board.rounds == 4  # a refused round changes nothing
    board.reset()
    assert board.to_dict() == {"rounds": 0, "boxes": {}}
