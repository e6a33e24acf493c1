"""The Casino War board: the latest results of each box in the shoe."""

from __future__ import annotations

import pytest

from station.roads.results import RoadsInputError
from station.roads.war_board import WAR_HISTORY, WarBoard, WarOutcome


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


def test_war_board_keeps_ten_results_per_box_by_default() -> None:
    board = WarBoard()
    outcomes = ["win", "lose"] * 6  # twelve rounds
    for outcome in outcomes:
        board.add({2: outcome})
    assert board.keep == WAR_HISTORY == 10
    assert board.latest(2) == tuple(WarOutcome(o) for o in outcomes[-10:])
    assert board.rounds == 12
    one = WarBoard(keep=1)
    one.add({1: "win"})
    one.add({1: "lose"})
    assert one.latest(1) == (WarOutcome.LOSE,)


@pytest.mark.parametrize("keep", [0, -1])
def test_war_board_keeps_at_least_one_result(keep: int) -> None:
    with pytest.raises(ValueError, match=r"^keep must be at least 1$"):
        WarBoard(keep=keep)


@pytest.mark.parametrize("box", [0, -2, "1"])
def test_war_board_boxes_are_positive_numbers(box: object) -> None:
    with pytest.raises(RoadsInputError, match=r"^box must be a positive number, got "):
        WarBoard().add({box: "win"})  # type: ignore[dict-item]  # a wrong box on purpose
