"""The snapshot the page receives: validated states and money, real rounds, frozen War board."""

from __future__ import annotations

import json

import pytest

from station.cards import parse_cards
from station.games.baccarat.game import BaccaratGame
from station.games.baccarat.rules import result_of
from station.games.board import HandsShown
from station.roads.scoreboard import Scoreboard
from station.roads.war_board import WarBoard
from station.web import Limit, Snapshot, SnapshotError, TableInfo, check_state

TABLE = TableInfo("Table 3", limits=(Limit("Tie", 100, 10000),))


@pytest.mark.parametrize("state", ["betting", "dealing", "shuffling", "last round", "shoe end", "fault: shoe lid open"])
def test_known_states(state: str) -> None:
    assert check_state(state) == state
    assert Snapshot(TABLE, state).to_dict()["state"] == state


@pytest.mark.parametrize("state", ["", "Betting", "fault: ", "fault:", "Paused", "irregularity"])
def test_unknown_states_are_refused(state: str) -> None:
    with pytest.raises(SnapshotError):
        Snapshot(TABLE, state)


@pytest.mark.parametrize(("minimum", "maximum"), [(10.5, 100), (True, 100), (0, 100), (200, 100), (10, "100")])
def test_limits_are_positive_integers_in_the_smallest_unit(minimum: object, maximum: object) -> None:
    with pytest.raises(SnapshotError):
        Limit("Banker", minimum, maximum)  # type: ignore[arg-type]  # wrong on purpose: Limit must refuse them


def test_unknown_game_is_refused() -> None:
    with pytest.raises(SnapshotError):
        TableInfo("Table 1", game="blackjack")


def test_last_result_carries_both_hands_cards_and_totals() -> None:
    result = result_of(parse_cards("2S 3H KD"), parse_cards("QD QC 7S"))
    board = Scoreboard([result])
    data = json.loads(json.dumps(Snapshot(TABLE, "betting", board.roads(), result).to_dict()))
    assert data["last_result"] == {
        "outcome": "B",
        "player": {"cards": ["2S", "3H", "KD"], "total": 5},
        "banker": {"cards": ["QD", "QC", "7S"], "total": 7},
        "natural": False,
        "player_pair": False,
        "banker_pair": True,
        "dragon_7": True,  # the Banker wins with a three-card 7
        "panda_8": False,
    }
    assert data["roads"]["bead_plate"][0]["total"] == 7
    assert data["roads"]["bead_plate"][0]["dragon_7"] is True
    assert data["table"] == {
        "name": "Table 3", "game": "baccarat", "variant": "",
        "limits": [{"name": "Tie", "minimum": 100, "maximum": 10000}], "currency": "", "decimals": 0,
    }


def test_war_board_is_frozen_when_the_snapshot_is_made() -> None:
    board = WarBoard([{1: "win"}])
    snapshot = Snapshot(TableInfo("War 1", game="casino war"), "betting", war=board)
    board.add({1: "lose"})
    assert snapshot.to_dict()["war"] == {"rounds": 1, "boxes": {"1": ["win"]}}
    assert snapshot.to_dict()["roads"] is None


def test_a_result_kept_before_the_marks_existed_is_marked_from_its_cards() -> None:
    """After a restart the board is rebuilt from the results the table keeps, each the game's own
    record; one written before Dragon 7 and Panda 8 were marked has no such field, and is
    marked from its cards (a Panda 8: the Player wins 8 of three cards against a Banker 6)."""
    board = BaccaratGame().board()
    kept = {"outcome": "player", "player": ["2S", "3H", "3D"], "banker": ["KS", "6C"], "player_total": 8,
            "banker_total": 6, "natural": False, "player_pair": False, "banker_pair": False}
    board.add_record(7, kept)
    board.add_record(8, {**kept, "outcome": "banker", "player": ["2S", "4H"], "banker": ["4D", "3C"],
                         "player_total": 6, "banker_total": 7})
    parts = board.snapshot_parts()
    data = Snapshot(TABLE, "betting", parts["roads"], parts["last_result"], last_round_no=8).to_dict()
    assert [(b["result"], b["dragon_7"], b["panda_8"]) for b in data["roads"]["bead_plate"]] == [
        ("P", False, True), ("B", False, False)]  # a Banker win by a two-card 7 is no Dragon 7
    assert (data["last_result"]["dragon_7"], data["last_result"]["panda_8"]) == (False, False)
    assert (data["roads"]["stats"]["dragon_7s"], data["roads"]["stats"]["panda_8s"]) == (0, 1)
    shown = board.last_shown()
    assert isinstance(shown, HandsShown) and not (shown.dragon_7 or shown.panda_8)
    board.reset()
    board.add_record(1, kept)
    shown = board.last_shown()
    assert isinstance(shown, HandsShown) and (shown.outcome, shown.panda_8, shown.dragon_7) == ("P", True, False)
