"""A continuous shuffler's table keeps its latest results, not every result since it opened.

A continuous shuffler has no shoe end, so the shoe's results the table keeps (for the boards
after a restart, and in every checkpoint) grew with the table's age: an hour dealt at full
speed made each checkpoint 4 MB. The table keeps the latest ``RESULTS_KEPT``, and the board
rebuilt from them after a restart shows what the live board shows.
"""

from __future__ import annotations

import json
from typing import Any

from station.core import outputs as out
from station.core.machine_base import RESULTS_KEPT
from station.core.state import machine_state
from station.events import CardsReturned
from station.games.baccarat.board import DISPLAY_ROUNDS
from station.games.registry import GAMES
from station.journal import canonical_json
from station.service.publisher import board_round

from .test_cards_returned_twice import _continuous

#: Four naturals in turn (Player, Banker, Player and Banker again): the roads grow both ways.
HANDS = ("9H 2H KD 3D", "2S 9S 3C KC", "8D 4D QH 2H", "3H 8C 4S 9D")


def test_a_continuous_table_keeps_its_latest_results_and_the_board_rebuilt_from_them_is_the_live_one(
        make_table: Any) -> None:
    table = _continuous(make_table)
    live = GAMES["baccarat"].board()
    rounds = RESULTS_KEPT + 25
    for n in range(rounds):
        table.bet("1", "ann", "player", 1000).act("no_more_bets").cards(HANDS[n % len(HANDS)])
        table.post(CardsReturned("csm", 4)).act("next_round")
    settled = [o for o in table.outputs if isinstance(o, out.RoundSettled)]
    assert len(settled) == rounds and table.state == "betting"
    results = table.machine.shoe_results
    assert len(results) == RESULTS_KEPT == DISPLAY_ROUNDS
    assert [str(r["round_id"]) for r in results] == [str(s.round_id) for s in settled[-RESULTS_KEPT:]]
    for result in settled:
        live.add_round(board_round(result))
    rebuilt = GAMES["baccarat"].board()
    for record in results:
        rebuilt.add_record(record["round_id"].number, record)
    assert live.snapshot_parts() == rebuilt.snapshot_parts()
    assert live.display_roads() == rebuilt.display_roads()
    roads = live.display_roads()
    assert roads is not None and len(roads.results) == DISPLAY_ROUNDS
    state = json.loads(canonical_json(machine_state(table.machine)))
    assert len(state["shoe_results"]) == RESULTS_KEPT
