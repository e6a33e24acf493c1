"""The corners of the rules through the real station: ``station run`` in a subprocess against
simulators over ptys (tests/service/conftest.py), bets and decisions through the control
socket as a dealer's terminal and a supervisor's ``station ctl`` send them, cards slid out of
a stacked simulated shoe one by one.

1. bets are checked under the round's payout option (5.11, 5.12);
2. the Casino War Tie Wager priority has a decline and does not depend on order (002 5.11);
3. no late bets once the draws tell the result (5.14), here under style C;
4. the table differential waits for a supervisor's decision instead of stalling (5.17, 5.18);
5. styles B/D: a third card drawn before the reveal is that card, not an irregularity;
and the limits sign on the web scoreboard gives the smallest Banker bet 5.12 accepts.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.request
from typing import Any

import pytest

from station.cards import parse_cards
from station.service.control import ControlError

from ..waiting import tail, wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SUPERVISOR = "supervisor-token-for-tests"  # tests/service/conftest.py's supervisor, sam


def cards_journaled(table: Any) -> int:
    with sqlite3.connect(f"file:{table.journal}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM records WHERE kind = 'CardDrawn'").fetchone()[0])


def draw(table: Any, codes_count: int = 1) -> None:
    """Slide cards out of the shoe and wait until the station has journaled them: anything
    sent afterwards reaches the table after them."""
    before = cards_journaled(table)
    for _ in range(codes_count):
        table.shoe.simulator.draw()
    wait_until(lambda: cards_journaled(table) >= before + codes_count, 15,
               f"the station to take the {codes_count} card(s)", poll=0.01, detail=lambda: tail(table.log))


def open_stacked_shoe(table: Any, round_cards: str) -> None:
    """From shuffling to betting with a stacked shoe: AS exposed (burn one), 2C burned, then
    ``round_cards`` in order, then a few cards to spare."""
    table.wait_for(lambda s: s["state"] == "shuffling")
    table.shoe.simulator.load(parse_cards(f"AS 2C {round_cards} 9S 9D 9C 9H 8S 8D 8C 8H"))
    table.ctl("action", {"action": "shuffle_done"})
    table.ctl("action", {"action": "confirm_cut"})
    draw(table, 2)
    table.wait_for(lambda s: s["state"] == "betting")


def bet(table: Any, region: str, amount: int, box: str = "1", player: str = "P1", **kw: Any) -> str:
    return str(table.ctl("bet", {"box": box, "player": player, "region": region, "amount": amount}, **kw))


def action(table: Any, name: str, **kw: Any) -> str:
    token = kw.pop("token", None)
    args = {"action": name, **kw}
    return str(table.ctl("action", args) if token is None else table.ctl("action", args, token=token))


def recalled(table: Any) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config",
                          str(table.config)], capture_output=True, text=True, timeout=120, check=True)
    return list(json.loads(out.stdout))


# --- 1 ------------------------------------------------------------------------------------


def test_a_banker_bet_is_checked_under_the_rounds_payout_option(external_table: Any) -> None:
    # Chips of 1.00: under commission a Banker bet must be a multiple of 20.00 (5.12).
    table = external_table()
    table.start_station()
    open_stacked_shoe(table, "9H 2H KD 3D  2H 9H 3D KD")  # a Player natural, then a Banker natural
    table.ctl("payout-option", {"option": "no_commission"}, token=SUPERVISOR)  # from the next round
    with pytest.raises(ControlError, match=r"^refused: Banker bet of 30.00 cannot be paid exactly in chips of 1.00"):
        bet(table, "banker", 3000)
    bet(table, "player", 1000)
    action(table, "no_more_bets")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    action(table, "next_round")
    assert bet(table, "banker", 3000).startswith("applied: BetPlaced")  # 5.12 does not apply under 5.11
    action(table, "no_more_bets")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    table.stop_station()
    last = recalled(table)[-1]
    (settled,) = last["settlement"]
    assert (last["payout_option"], settled["valid"], settled["void"], settled["net"]) == ("no_commission", 3000, 0,
                                                                                           3000)


def test_switched_to_commission_the_bet_is_refused_rather_than_split_valid_and_void(external_table: Any) -> None:
    table = external_table(table_extra='banker_payout = "no_commission"')
    table.start_station()
    open_stacked_shoe(table, "9H 2H KD 3D")
    table.ctl("payout-option", {"option": "commission"}, token=SUPERVISOR)
    assert bet(table, "banker", 3000).startswith("applied")  # this round: still no commission
    action(table, "no_more_bets")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    action(table, "next_round")
    with pytest.raises(ControlError, match=r"^refused: Banker bet of 30.00 cannot be paid exactly in chips of 1.00: "
                                           "largest acceptable is 20.00$"):
        bet(table, "banker", 3000)
    table.stop_station()


# --- 2 ------------------------------------------------------------------------------------


def test_the_dealer_records_a_declined_tie_wager_and_order_makes_no_difference(external_table: Any) -> None:
    table = external_table(game="war")
    table.start_station()
    open_stacked_shoe(table, "5H 9D 5C KD")
    assert bet(table, "war", 2000, player="ann").startswith("applied")
    with pytest.raises(ControlError, match=r"^refused: the Tie Wager on box 1 belongs first to ann"):
        bet(table, "tie", 1000, player="bob")
    assert action(table, "decline_tie", box="1", player="ann").startswith("applied: DealerAction")
    assert bet(table, "tie", 1000, player="bob").startswith("applied")
    action(table, "no_more_bets")
    draw(table, 2)
    table.wait_for(lambda s: s["state"] == "paying")
    action(table, "next_round")
    # The other way round: bob's Tie Wager first, then ann's Casino War Wager on the box.
    bet(table, "tie", 1000, player="bob")
    bet(table, "war", 2000, player="ann")
    with pytest.raises(ControlError, match=r"^refused: bob holds a Tie Wager on box 1, which belongs first to ann"):
        action(table, "no_more_bets")
    action(table, "decline_tie", box="1", player="ann")
    assert action(table, "no_more_bets").startswith("applied")
    table.wait_for(lambda s: s["state"] == "dealing")
    table.stop_station()
    first, second = recalled(table)[:2]
    assert first["tie_declined"] == [[1, "ann"]] and second["tie_declined"] == [[1, "ann"]]
    assert any(d.get("tie_declined") == "1" and d.get("who") == "dana" for d in first["decisions"])


# --- 3 ------------------------------------------------------------------------------------


def test_no_late_bets_once_the_face_down_cards_have_decided_the_round(external_table: Any) -> None:
    table = external_table(dealing_style="C")
    table.start_station()
    # Player 2+2 draws a K (4); Banker 3+4 = 7 stands: Banker 7 beats 4, all cards face down.
    open_stacked_shoe(table, "2H 3H 2D 4D KC")
    bet(table, "player", 1000)
    action(table, "no_more_bets")
    draw(table, 5)
    status = table.wait_for(lambda s: s["state"] == "revealing")
    assert status["expecting"] == "turn the cards in order, then press reveal"
    with pytest.raises(ControlError, match=r"^refused: every card of the round is out: .* no late bets \(5\.14\)$"):
        table.ctl("late-bets", token=SUPERVISOR)
    with pytest.raises(ControlError, match=r"^refused: bets are closed"):
        bet(table, "banker", 1000)
    action(table, "reveal")
    table.wait_for(lambda s: s["state"] == "paying")
    table.stop_station()
    (settled,) = recalled(table)[-1]["settlement"]
    assert (settled["region"], settled["net"]) == ("player", -1000)


# --- 4 ------------------------------------------------------------------------------------


def test_a_differential_no_reduction_meets_waits_for_the_supervisor(external_table: Any) -> None:
    # Banker bets in steps of 20.00; Player 30.00 and a differential of 5.00 need a Banker total
    # of 25.00 to 35.00: no reduction of 60.00 in steps of 20.00 gets there.
    table = external_table(table_extra="differential = 500")
    table.start_station()
    open_stacked_shoe(table, "9H 2H KD 3D")
    bet(table, "banker", 6000, player="ann")
    bet(table, "player", 3000, box="2", player="bo")
    action(table, "no_more_bets", token=SUPERVISOR)  # even a supervisor's call waits for a decision
    status = table.wait_for(lambda s: s["state"] == "irregularity")
    assert status["irregularity"]["reason"] == "closing_decision"
    assert status["irregularity"]["decisions"] == ["accept", "resume"]
    assert "cannot be met by reducing Banker bets in chips of 1.00" in status["irregularity"]["detail"]
    with pytest.raises(ControlError, match=r"^refused: 'reduce' is not allowed here: choose accept, resume"):
        table.ctl("decide", {"decision": "reduce"}, token=SUPERVISOR)
    assert table.ctl("decide", {"decision": "accept", "detail": "known players"}, token=SUPERVISOR).startswith(
        "applied: SupervisorDecision")
    table.wait_for(lambda s: s["state"] == "dealing")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    table.stop_station()
    last = recalled(table)[-1]
    assert {s["stake"] for s in last["settlement"]} == {6000, 3000}
    decided = [d for d in last["decisions"] if d.get("reason") == "closing_decision"]
    assert [(d["decision"], d["role"], d["who"]) for d in decided] == [("accept", "supervisor", "sam")]


def test_with_supervisor_reduction_the_supervisor_applies_the_stations_proposal(external_table: Any) -> None:
    table = external_table(table_extra='differential = 5000\ndifferential_reduction = "supervisor"')
    table.start_station()
    open_stacked_shoe(table, "9H 2H KD 3D")
    bet(table, "player", 10000, player="ann")
    bet(table, "banker", 2000, box="2", player="bo")
    action(table, "no_more_bets")
    status = table.wait_for(lambda s: s["state"] == "irregularity")
    assert status["irregularity"]["decisions"] == ["reduce", "accept", "resume"]
    assert "P1" not in status["irregularity"]["detail"] and "ann's Player bet on box 1 100.00 -> 70.00" in (
        status["irregularity"]["detail"])
    table.ctl("decide", {"decision": "reduce"}, token=SUPERVISOR)
    table.wait_for(lambda s: s["state"] == "dealing")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "paying")
    table.stop_station()
    stakes = {(s["player"], s["region"]): s["stake"] for s in recalled(table)[-1]["settlement"]}
    assert stakes == {("ann", "player"): 7000, ("bo", "banker"): 2000}


# --- 5 ------------------------------------------------------------------------------------


def test_squeeze_a_third_card_drawn_before_the_reveal_is_taken_as_that_card(external_table: Any) -> None:
    table = external_table(dealing_style="B")
    table.start_station()
    open_stacked_shoe(table, "2H 3H 3D KD 4C 5C")  # Player 5 draws a 4; Banker 3 draws on it: 9 v 8
    bet(table, "player", 1000)
    action(table, "no_more_bets")
    draw(table, 4)
    table.wait_for(lambda s: s["state"] == "revealing")
    draw(table, 2)  # both third cards, before the players have turned the first four
    status = table.status()
    assert (status["state"], status["irregularity"]) == ("revealing", None)
    action(table, "reveal")  # the first four
    action(table, "reveal")  # the Player's third card
    assert table.status()["state"] == "revealing"
    action(table, "reveal")  # the Banker's
    table.wait_for(lambda s: s["state"] == "paying")
    table.stop_station()
    last = recalled(table)[-1]
    assert (last["result"]["player_total"], last["result"]["banker_total"]) == (9, 8)
    (settled,) = last["settlement"]
    assert settled["net"] == 1000


# --- 6 ------------------------------------------------------------------------------------


def test_standing_players_neither_cut_nor_hold_a_puck(external_table: Any) -> None:
    table = external_table(variant="full", boxes=14, players_per_box=1, dealing_style="D",
                           table_extra="standing_regions = 2")
    table.start_station()
    table.shoe.simulator.load(parse_cards("AS 2C 9H 2H KD 3D 9S 9D"))
    action(table, "shuffle_done")
    with pytest.raises(ControlError, match=r"^refused: standing players never take part in the cut of the cards"):
        action(table, "confirm_cut", box="S1", player="sue")
    action(table, "confirm_cut", box="3", player="ann")
    draw(table, 2)
    table.wait_for(lambda s: s["state"] == "betting")
    bet(table, "banker", 50000, box="S1", player="sue")
    bet(table, "banker", 2000, box="3", player="ann")
    action(table, "no_more_bets")
    # Nobody seated bets on Player: the dealer turns those cards; ann holds the Banker puck.
    assert table.wait_for(lambda s: s["state"] == "dealing")["expecting"] == "deal Player first card to the dealer"
    draw(table)
    assert table.wait_for(lambda s: "Banker" in s["expecting"])["expecting"] == (
        "deal Banker first card to box 3 (ann)")
    table.stop_station()
    (open_round,) = recalled(table)
    assert open_round["pucks"] == {"banker": ["3", "ann"]}


# --- the limits sign ------------------------------------------------------------------------


def test_the_scoreboard_limits_give_the_smallest_banker_bet_5_12_accepts(external_table: Any) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    table = external_table(web_port=port)
    table.start_station()

    def served() -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/snapshot", timeout=5) as reply:
            return json.loads(reply.read())

    snapshot = wait_until(served, 15, "the scoreboard's first snapshot", poll=0.1, detail=lambda: tail(table.log))
    # Table minimum 5.00 with chips of 1.00: a Banker bet of 5.00 would win 4.75 (5.12).
    assert snapshot["table"]["limits"] == [{"name": "Table", "minimum": 500, "maximum": 100_000},
                                           {"name": "Banker", "minimum": 2000, "maximum": 100_000}]
    table.stop_station()
