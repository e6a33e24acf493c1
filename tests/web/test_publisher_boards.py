"""What the scoreboard shows of each game: the same from the core's live outputs as from the
shoe's results it keeps (a station restarted mid-shoe shows what it showed before)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from drivers.codec.display import ShowResult
from station.cards import FULL_DECK
from station.core import outputs as out
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.events import BetPlaced, CardDrawn, DealerAction, Event
from station.games.registry import GAMES
from station.service.publisher import BOARDS, ResultsBoard
from station.web.snapshot import Snapshot, TableInfo


def play(game: str, rounds: int, seed: int, surrender: bool = False) -> tuple[TableMachine, list[out.Output]]:
    """Deal ``rounds`` rounds of ``game`` from a shuffled shoe, one bet on every region of box 1."""
    machine = TableMachine(CoreOptions(game=game))
    machine.go_live()
    shoe = [card for card in FULL_DECK for _ in range(8)]
    random.Random(seed).shuffle(shoe)
    results: list[out.Output] = []
    wanted = BOARDS[game]().result_output

    def feed(event: Event) -> None:
        machine.apply(event)
        results.extend(o for o in machine.take_outputs() if isinstance(o, wanted))

    feed(DealerAction("shuffle_done"))
    feed(DealerAction("confirm_cut"))
    while len(machine.settled_rounds) < rounds:
        state = machine.state
        if state in ("burning", "dealing", "war_burning", "war_dealing"):
            feed(CardDrawn("shoe", shoe.pop()))
        elif state == "betting":
            for region in machine.rules.regions:
                feed(BetPlaced("1", "ann", region, 2000))
            feed(DealerAction("no_more_bets"))
        elif state == "war_decision":
            assert machine.round is not None
            choice = "surrender" if surrender and len(machine.settled_rounds) % 2 else "war"
            feed(DealerAction(choice, box=str(machine.round.play.step().deciding[0])))
        elif state == "paying":
            feed(DealerAction("next_round"))
        else:
            raise AssertionError(f"cannot drive state {state}")
    return machine, results


def shown(board: ResultsBoard, game: str) -> dict[str, Any]:
    table = TableInfo("Table 1", GAMES[game].title)
    return Snapshot(table, "betting", **board.snapshot_parts()).to_dict()


def test_every_game_has_a_board() -> None:
    assert set(BOARDS) == set(GAMES)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_board_from_live_outputs_is_the_board_rebuilt_from_the_shoe_results(game: str) -> None:
    machine, results = play(game, rounds=30, seed=11, surrender=True)
    live, rebuilt = BOARDS[game](), BOARDS[game]()
    for result in results:
        live.add_output(result)
    for record in machine.shoe_results:
        rebuilt.add_record(record)
    assert len(results) == len(machine.shoe_results) == 30
    assert shown(live, game)["roads"] == shown(rebuilt, game)["roads"]
    assert shown(live, game)["war"] == shown(rebuilt, game)["war"]
    assert live.display_roads() == rebuilt.display_roads()
    assert live.last_shown() == rebuilt.last_shown() is not None
    live.reset()  # a new shoe: every road and box is empty again
    empty = shown(BOARDS[game](), game)
    assert (shown(live, game)["roads"], shown(live, game)["war"]) == (empty["roads"], empty["war"])


def test_baccarat_shows_roads_and_the_last_hands_casino_war_its_boxes() -> None:
    _, results = play("baccarat", rounds=3, seed=5)
    baccarat = BOARDS["baccarat"]()
    last = [baccarat.add_output(r) for r in results][-1]
    assert isinstance(last, ShowResult) and last.round_no == 3
    assert shown(baccarat, "baccarat")["last_result"]["outcome"] == {1: "B", 2: "P", 3: "T"}[int(last.outcome)]
    assert shown(baccarat, "baccarat")["war"] is None and baccarat.display_roads() is not None
    _, results = play("war", rounds=3, seed=5)
    war = BOARDS["war"]()
    shown_war = [war.add_output(r) for r in results]
    assert [type(m).__name__ for m in shown_war] == ["ShowWarResult"] * 3
    assert [m.round_no for m in shown_war if m is not None] == [1, 2, 3]
    page = shown(war, "war")
    assert page["roads"] is None and page["last_result"] is None and page["war"]["rounds"] == 3
    assert [r["round_no"] for r in page["war"]["history"]] == [1, 2, 3]
    assert war.display_roads() is None
