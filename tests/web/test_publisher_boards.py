"""What the scoreboard shows of each game: the same from the core's live outputs as from the
shoe's results it keeps (a station restarted mid-shoe shows what it showed before)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from drivers.codec.display import ShowResult, ShowWarResult
from station.cards import FULL_DECK
from station.core import outputs as out
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.events import BetPlaced, CardDrawn, DealerAction, Event
from station.games.board import BoxesShown, HandsShown, ResultsBoard
from station.games.registry import GAMES
from station.service.board import result_command
from station.service.publisher import board_round
from station.web.snapshot import Snapshot, TableInfo


def play(game: str, rounds: int, seed: int, surrender: bool = False, *, options: CoreOptions | None = None,
         boxes: Sequence[str] = ("1",), stake: int = 2000) -> tuple[TableMachine, list[out.RoundSettled]]:
    """Deal ``rounds`` rounds of ``game`` (on the table of ``options``) from a shuffled shoe,
    a bet of ``stake`` on every region of each of ``boxes`` (a player each)."""
    machine = TableMachine(options or CoreOptions(game=game))
    shoe = [card for card in FULL_DECK for _ in range(8)]
    random.Random(seed).shuffle(shoe)
    results: list[out.RoundSettled] = []

    def feed(event: Event) -> None:
        machine.apply(event)
        results.extend(o for o in machine.take_outputs() if isinstance(o, out.RoundSettled))

    decided: set[tuple[str, int]] = set()
    feed(DealerAction("shuffle_done"))
    feed(DealerAction("confirm_cut"))
    while machine.rounds_settled < rounds:
        state = machine.state
        if state in ("burning", "dealing", "war_burning", "war_dealing"):
            feed(CardDrawn("shoe", shoe.pop()))
        elif state == "betting":
            for i, box in enumerate(boxes):  # a player each (a table may allow one box a player)
                for region in machine.rules.regions:
                    feed(BetPlaced(box, "ann" if i == 0 else f"player{box}", region, stake))
            feed(DealerAction("no_more_bets"))
        elif state == "war_decision":
            assert machine.round is not None
            choice = "surrender" if surrender and machine.rounds_settled % 2 else "war"
            tied = next(b for b in machine.round.play.step().deciding if (machine.round.round_id, b) not in decided)
            decided.add((machine.round.round_id, tied))  # a tied box is deciding until every tied box has
            feed(DealerAction(choice, box=str(tied)))
        elif state == "paying":
            feed(DealerAction("next_round"))
        else:
            raise AssertionError(f"cannot drive state {state}")
    return machine, results


def shown(board: ResultsBoard, game: str) -> dict[str, Any]:
    table = TableInfo("Table 1", GAMES[game].title)
    return Snapshot(table, "betting", **board.snapshot_parts()).to_dict()


def test_every_game_has_a_board_of_its_own() -> None:
    boards = {name: type(game.board()) for name, game in GAMES.items()}
    assert len(set(boards.values())) == len(GAMES)
    assert all(kind.__module__ == f"station.games.{name}.board" for name, kind in boards.items())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_board_from_live_outputs_is_the_board_rebuilt_from_the_shoe_results(game: str) -> None:
    machine, results = play(game, rounds=30, seed=11, surrender=True)
    live, rebuilt = GAMES[game].board(), GAMES[game].board()
    for result in results:
        live.add_round(board_round(result))
    for record in machine.shoe_results:
        rebuilt.add_record(record["round_id"].number, record)
    assert len(results) == len(machine.shoe_results) == 30
    assert shown(live, game)["roads"] == shown(rebuilt, game)["roads"]
    assert shown(live, game)["war"] == shown(rebuilt, game)["war"]
    assert live.display_roads() == rebuilt.display_roads()
    assert live.last_shown() == rebuilt.last_shown() is not None
    live.reset()  # a new shoe: every road and box is empty again
    empty = shown(GAMES[game].board(), game)
    assert (shown(live, game)["roads"], shown(live, game)["war"]) == (empty["roads"], empty["war"])


def test_baccarat_shows_roads_and_the_last_hands_casino_war_its_boxes() -> None:
    _, results = play("baccarat", rounds=3, seed=5)
    baccarat = GAMES["baccarat"].board()
    last = [baccarat.add_round(board_round(r)) for r in results][-1]
    assert isinstance(last, HandsShown) and last.round_no == 3
    assert shown(baccarat, "baccarat")["last_result"]["outcome"] == last.outcome
    on_the_wire = result_command(last)  # the service puts it in the display's words
    assert isinstance(on_the_wire, ShowResult) and on_the_wire.round_no == 3
    assert {1: "B", 2: "P", 3: "T"}[int(on_the_wire.outcome)] == last.outcome
    assert (on_the_wire.player_cards, on_the_wire.banker_cards) == (last.player, last.banker)
    assert shown(baccarat, "baccarat")["war"] is None and baccarat.display_roads() is not None
    _, results = play("war", rounds=3, seed=5)
    war = GAMES["war"].board()
    shown_war = [war.add_round(board_round(r)) for r in results]
    assert all(isinstance(m, BoxesShown) for m in shown_war)
    assert all(isinstance(result_command(m), ShowWarResult) for m in shown_war if m is not None)
    assert [m.round_no for m in shown_war if m is not None] == [1, 2, 3]
    page = shown(war, "war")
    assert page["roads"] is None and page["last_result"] is None and page["war"]["rounds"] == 3
    assert [r["round_no"] for r in page["war"]["history"]] == [1, 2, 3]
    assert war.display_roads() is None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_board_rebuilt_after_a_restart_from_a_checkpoint_shows_the_same(game: str) -> None:
    """The shoe's results as a checkpoint gives them back (their round ids typed again)."""
    import json

    from station.core.state import machine_state, restore_machine
    from station.journal import canonical_json

    machine, _ = play(game, rounds=12, seed=3, surrender=True)
    restored = restore_machine(machine.options, json.loads(canonical_json(machine_state(machine))))
    live, rebuilt = GAMES[game].board(), GAMES[game].board()
    for record in machine.shoe_results:
        live.add_record(record["round_id"].number, record)
    for record in restored.shoe_results:
        rebuilt.add_record(record["round_id"].number, record)
    assert shown(live, game) == shown(rebuilt, game) and live.last_shown() == rebuilt.last_shown()
