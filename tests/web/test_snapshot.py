"""The snapshot the page receives: validated states and money, real rounds, frozen War board."""

from __future__ import annotations

import json

import pytest

from station.cards import parse_cards
from station.games.baccarat.rules import result_of
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
    }
    assert data["roads"]["bead_plate"][0]["total"] == 7
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
