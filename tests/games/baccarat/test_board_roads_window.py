"""The display board's roads in a shoe that never ends (a continuous shuffler).

The roads of the whole shoe went to the board in one ``ShowRoads`` frame; a continuous
shuffler's shoe never ends, and after about 340 rounds they no longer fit a frame: every road
update failed from then on, with a traceback in the log each time. The board now shows the
roads of the latest ``DISPLAY_ROUNDS`` results, laid out afresh, which always fit; a shoe shorter
than that shows all of it, as before.
"""

from __future__ import annotations

import random

import pytest

from drivers.codec import get_protocol
from station.games.baccarat.board import DISPLAY_ROUNDS, RoadsBoard
from station.roads.results import ResultRecord
from station.roads.scoreboard import Scoreboard
from station.service.board import roads_command

OUTCOMES = ("banker", "player", "tie")


def _results(rounds: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [{"outcome": rng.choices(OUTCOMES, (46, 44, 10))[0], "player_pair": rng.random() < 0.08,
             "banker_pair": rng.random() < 0.08, "natural": rng.random() < 0.3} for _ in range(rounds)]


def _board(rounds: int, seed: int = 3) -> RoadsBoard:
    board = RoadsBoard()
    for number, result in enumerate(_results(rounds, seed), 1):
        board.add_record(number, result)
    return board


def _records(rounds: int, seed: int) -> list[ResultRecord]:
    """The same results as the scoreboard keeps them."""
    return [ResultRecord({"banker": "B", "player": "P", "tie": "T"}[str(r["outcome"])], bool(r["player_pair"]),
                         bool(r["banker_pair"]), bool(r["natural"]), 0, 0) for r in _results(rounds, seed)]


def test_a_shoe_shows_all_its_roads() -> None:
    board = _board(85)
    assert board.display_roads() == board.scoreboard.roads()


def test_a_shoe_that_never_ends_shows_its_latest_results_and_always_fits_a_frame() -> None:
    protocol = get_protocol("display")
    for rounds in (DISPLAY_ROUNDS, DISPLAY_ROUNDS + 1, 400, 2_000):
        board = _board(rounds, seed=rounds)
        shown = board.display_roads()
        assert len(shown.bead_plate) == min(rounds, DISPLAY_ROUNDS)
        assert shown == Scoreboard(_records(rounds, seed=rounds)[-DISPLAY_ROUNDS:]).roads()
        assert protocol.encode(roads_command(shown), 1)  # raises past the frame's limit


def test_the_whole_shoe_would_not_have_fitted() -> None:
    """What the window is for: 400 rounds of roads in one frame are refused by the framing."""
    whole = Scoreboard(_records(400, seed=3)).roads()
    with pytest.raises(ValueError, match="exceeds"):
        get_protocol("display").encode(roads_command(whole), 1)
