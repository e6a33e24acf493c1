"""The results board seen from its side of the wire, through a real ``station run``, for whole
shoes (issue 13): every result arrives with its round number; a board that stops
acknowledging mid-round is repainted with what it missed; a board that reboots between
rounds gets its limits, roads and the dealer's line back within a second; a banner raised by
an irregularity comes down after the supervisor's decision; every Casino War result reaches
the board, a war and a surrender included.

The board is the display simulator on a pseudo-terminal; it records every command it
executed (``received``) and what it shows (``screen``).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from drivers.codec import display as wire
from station.cards import parse_card

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SUPERVISOR = "supervisor-token-for-tests"
PAUSED = "Round paused \u2014 please wait"


def shoe_done(status: dict[str, Any]) -> bool:
    return bool(status["state"] == "shuffling" and status["expecting"].startswith("shoe finished"))


def settled(table: Any) -> list[dict[str, Any]]:
    from tests.service.test_station_e2e import recall

    return [r for r in recall(table) if r.get("result") and not r["in_progress"]]




def test_the_board_stays_true_through_a_whole_shoe(external_table: Any) -> None:
    table = external_table(decks=4)
    board = table.display.simulator
    table.start_station()
    limits = wire.ShowLimits(500, 100000, 0, 0, 0, 0, "", 2)  # the fixture's table, in minor units
    wait_until(lambda: board.screen.limits == limits, 5, "the limits sign at start")

    # The board stops acknowledging in the middle of round 10 for 5 s; the table goes on.
    table.play_until(lambda s: s["state"] == "dealing" and s["round"] == "1-10")
    board.mute(True)
    muted_at = time.monotonic()
    status = table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-11")
    assert board.screen.result is None or board.screen.result.round_no < 10
    time.sleep(max(0.0, 5.0 - (time.monotonic() - muted_at)))  # deliberate: the board stays away 5 s
    board.mute(False)
    wait_until(lambda: board.screen.result is not None and board.screen.result.round_no == 10, 20,
               "the result of round 10, decided while the board was away")
    wait_until(lambda: board.screen.expected == status["expecting"], 5, "the dealer's line of now")
    # The repaint goes on after the dealer's line (roads, limits): wait for it, do not race it.
    wait_until(lambda: board.screen.roads is not None and len(board.screen.roads.bead_plate) == 10, 5,
               "the roads with round 10")
    assert board.screen.limits == limits and board.screen.message == ""

    # The board reboots between rounds: limits, roads, last result and dealer's line within 1 s.
    status = table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-20")
    board.reboot()
    rebooted = time.monotonic()

    def repainted() -> bool:
        screen = board.screen
        return (screen.limits == limits and screen.roads is not None and len(screen.roads.bead_plate) == 19
                and screen.expected == status["expecting"] and screen.result is not None
                and screen.result.round_no == 19)

    wait_until(repainted, 1.0, "the whole picture again after a Boot")
    assert time.monotonic() - rebooted < 1.0

    # A card drawn when the rules say stand: the players read that the round is paused, and
    # the banner comes down with the supervisor's decision.
    table.play_until(lambda s: s["state"] in ("revealing", "paying") and s["round"] == "1-25")
    table.draw()
    table.wait_for(lambda s: s["state"] == "irregularity")
    wait_until(lambda: board.screen.message == PAUSED, 5, "the paused banner")
    table.ctl("decide", {"decision": "burn"}, token=SUPERVISOR)
    table.wait_for(lambda s: s["state"] != "irregularity")
    wait_until(lambda: board.screen.message == "", 5, "the banner taken down after the decision")
    messages = [m.text for m in table.display_received("ShowMessage")]
    assert messages[-2:] == [PAUSED, ""]
    assert not any("SUPERVISOR" in text.upper() for text in messages), "the supervisor's business stays off the board"

    # To the end of the shoe: every round's result reached the board with its number.
    table.play_until(shoe_done)
    rounds = settled(table)
    assert len(rounds) >= 30
    shown = {m.round_no: m for m in table.display_received("ShowResult")}
    assert sorted(shown) == list(range(1, len(rounds) + 1))
    for record in rounds:
        number = int(record["round_id"].split("-")[1])
        message = shown[number]
        assert [c.code for c in message.player_cards] == record["result"]["player"]
        assert [c.code for c in message.banker_cards] == record["result"]["banker"]
        assert message.outcome.name.lower() == record["result"]["outcome"]
    assert table.stop_station() == 0


def test_every_casino_war_result_reaches_the_board(external_table: Any) -> None:
    table = external_table(game="war", decks=4, boxes=7)
    board = table.display.simulator
    table.start_station()
    decisions: list[str] = []
    status = table.status()
    for _ in range(20_000):
        if shoe_done(status):
            break
        if status["state"] == "war_decision":
            # Every other tied box surrenders, the others go to war.
            box, player = status["expecting"].split(":")[0].split()[1], status["expecting"].split()[2]
            choice = "surrender" if len(decisions) % 2 else "war"
            decisions.append(choice)
            table.ctl("action", {"action": choice, "box": box, "player": player})
            status = table.wait_change((status["state"], status["expecting"]))
            continue
        table.act(status)
        status = table.wait_change((status["state"], status["expecting"]))
    assert shoe_done(status)
    assert "war" in decisions and "surrender" in decisions, "this shoe had no tie to decide"

    rounds = settled(table)
    shown = {m.round_no: m for m in table.display_received("ShowWarResult")}
    assert sorted(shown) == list(range(1, len(rounds) + 1))
    assert not table.display_received("ShowResult")
    outcomes = set()
    for record in rounds:
        message = shown[int(record["round_id"].split("-")[1])]
        dealt = dict(record["result"]["dealt"])
        assert message.dealer_card == parse_card(dealt["dealer"])
        assert [(b.box, b.card.code) for b in message.boxes] == sorted(
            (int(p.split()[1]), code) for p, code in record["result"]["dealt"] if p.startswith("box "))
        for box in message.boxes:
            outcomes.add(box.outcome)
            if box.outcome in (wire.WarBoxOutcome.WAR_WIN, wire.WarBoxOutcome.WAR_LOSE):
                assert [c.code for c in box.war_card] == [dealt[f"war box {box.box}"]]
                assert [c.code for c in message.dealer_war_card] == [dealt["war dealer"]]
            else:
                assert box.war_card == ()
    assert {wire.WarBoxOutcome.WAR_WIN, wire.WarBoxOutcome.SURRENDER} <= outcomes or \
        {wire.WarBoxOutcome.WAR_LOSE, wire.WarBoxOutcome.SURRENDER} <= outcomes
    assert board.screen.war_result is not None
    assert table.stop_station() == 0
