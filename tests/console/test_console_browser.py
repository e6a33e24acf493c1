"""The console in a real browser (Debian's Chromium through Playwright), against a real
``station run``: a whole shoe of mini baccarat with bets for two players on three boxes
tapped on the console, payouts confirmed, the house result equal to the journal's; a Banker
bet the chips cannot pay refused with its reason; a card the rules did not call for, recalled
while the table waits and decided by a supervisor who signs in on the dealer's screen; a
correction and the difference it shows; a Casino War shoe with a war and a surrender.
Screenshots at 1280x800 and 1920x1080 go to tests/artifacts/."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from ..browser import BROWSER_MARKS, screenshot
from .console_page import ConsolePage, money, open_console

pytestmark = BROWSER_MARKS

#: The bets tapped every round: (player, chip, box, region).
BETS = (("ann", "20.00", "1", "Banker"), ("ann", "10.00", "2", "Player"), ("ben", "5.00", "3", "Tie"),
        ("ben", "10.00", "3", "Player"))


def recall_json(table: Any, *extra: str) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--json", "--config", str(table.config), *extra],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


def recall_text(table: Any, round_id: str) -> str:
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--round", round_id, "--config",
                          str(table.config)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def house(round_: dict[str, Any]) -> int:
    return -sum(int(s["net"]) for s in round_["settlement"] or [])


def place_round_bets(console: ConsolePage) -> None:
    """The four bets, except what a Tie left on the layout (5.16): those stay as they are."""
    on_layout = console.page.evaluate("[...document.querySelectorAll('.box')].map(b => [b.dataset.box, "
                                      "[...b.querySelectorAll('.bet-text')].map(t => t.innerText)])")
    shown = dict(on_layout)
    for player, chip, box, region in BETS:
        if any(text.startswith(f"{player}: {region} ") for text in shown.get(box, [])):
            continue
        console.bet(player, chip, box, region)
        assert console.alert() == "", console.alert()


def test_a_whole_mini_baccarat_shoe_tapped_on_the_console(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4)
    table.start_station()
    console = open_console(browser, table, seed=11, cut_at=100)  # a short shoe: every step, fewer rounds
    page = console.page
    shown_house: dict[str, int] = {}
    lines_seen: list[str] = []
    refused = False
    for _ in range(200):
        if not refused:
            # A Banker bet of 25.00 cannot be paid exactly in chips under commission (5.12).
            console.bet("ann", "25.00", "1", "Banker")
            alert = console.alert()
            assert "Banker bet of 25.00 cannot be paid exactly in chips of 1.00" in alert and "5.12" not in alert, alert
            screenshot(page, "console-refusal-1280x800.png")
            # The refused chips stay pending on the spot (the next chip adds to them): cleared.
            console.tap("Clear pending ann Banker on Box 1")
            refused = True
        place_round_bets(console)
        console.act("No more bets", "dealing")
        assert console.deal_until("paying") == "paying"
        title = console.wait_text("#payouts-title", r"Payouts · round \d+-\d+ · house ")
        round_id, figure = title.split(" · ")[1].removeprefix("round "), title.split(" · ")[2].removeprefix("house ")
        shown_house[round_id] = money(figure)
        lines_seen += page.locator("#payout-lines li").all_inner_texts()
        if len(shown_house) == 3:
            screenshot(page, "console-payouts-1280x800.png")
        console.tap("Confirm payouts")
        console.page.wait_for_function("!document.querySelector('#payout-actions button')", timeout=15_000)
        state = console.act("Next round", "betting", "shuffling")
        if state == "shuffling":
            break
    else:
        raise AssertionError("the shoe did not end")
    assert "shoe finished" in console.line()
    page.set_viewport_size({"width": 1920, "height": 1080})
    screenshot(page, "console-shoe-end-1920x1080.png")
    rounds = recall_json(table, "--last", "0")
    assert len(rounds) == len(shown_house) >= 15
    journal_house = {r["round_id"]: house(r) for r in rounds}
    assert shown_house == journal_house
    assert sum(shown_house.values()) == sum(journal_house.values())
    for r in rounds:
        assert r["confirmations"] and r["confirmations"][-1]["who"] == "dee"
        players = {(b["box"], b["player"]) for b in r["bets"]}
        assert players <= {("1", "ann"), ("2", "ann"), ("3", "ben")} and len(players) == 3
    assert any(line.startswith("Box 1 · ann · Banker: pay 19.00 (20.00 less 1.00 commission)") for line in lines_seen)
    assert any(line.startswith("Box 3 · ben · Tie: take 5.00") for line in lines_seen)
    table.stop_station()


def test_an_irregularity_recall_and_a_supervisor_on_the_same_screen(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4)
    table.start_station()
    console = open_console(browser, table, seed=5)
    page = console.page
    console.bet("ann", "20.00", "1", "Banker")
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    console.tap("Confirm payouts")
    console.act("Next round", "betting")
    console.bet("ann", "20.00", "1", "Banker")
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    table.draw()  # a card nobody called for
    console.wait_state("irregularity")
    assert "waiting for supervisor" in console.line()
    # Recall works while the table waits, and says it is recall.
    console.tap("Recall")
    console.wait_text("#recall-rounds", "Round 1-1")
    assert page.get_by_role("heading", name="RECALL").is_visible()
    assert console.line().startswith("RECALL")
    screenshot(page, "console-recall-irregularity-1280x800.png")
    console.tap("Close recall")
    # The dealer cannot decide; a supervisor signs in on this screen for one decision.
    assert not page.get_by_role("button", name="Burn", exact=True).is_visible()
    console.supervisor_signs_in("sue")
    console.wait_text("#supervisor-title", "Supervisor sue: one decision")
    assert "Burn the card" in page.locator("#irregularity").inner_text()
    screenshot(page, "console-supervisor-1280x800.png")
    console.tap("Burn")
    console.wait_state("paying")
    page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=15_000)
    assert page.locator("#supervisor").is_hidden()
    decision = [r for r in table.journal_records() if r["kind"] == "SupervisorDecision"][-1]
    assert decision["payload"]["actor"] == {"role": "supervisor", "who": "sue"}
    # A correction: the supervisor signs in again, finds the round in recall and corrects it.
    console.tap("Confirm payouts")
    console.act("Next round", "betting")
    console.supervisor_signs_in("sue")
    console.tap("Recall")
    console.wait_text("#recall-rounds", "Round 1-1")
    page.get_by_role("button", name="Correct Box 1 ann Banker of round 1-1").click()
    page.get_by_label("Correct region").select_option("player")
    page.get_by_label("Reason").fill("chips were on Player")
    console.tap("Correct bet")
    difference = console.wait_text("#correction-result", "Correction of round 1-1")
    assert "Box 1 · ann · Banker 20.00 → Box 1 · ann · Player 20.00" in difference
    assert "by sue" in difference
    screenshot(page, "console-correction-1280x800.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    screenshot(page, "console-correction-1920x1080.png")
    words = recall_text(table, "1-1")
    assert "bet          box 1 ann Banker 20.00" in words, words
    assert "correction" in words and "by supervisor sue (chips were on Player)" in words
    table.stop_station()


def test_a_casino_war_shoe_with_a_war_and_a_surrender(browser: Any, console_table: Any) -> None:
    table = console_table(game="war", decks=4, boxes=7, players_per_box=3)
    table.start_station()
    console = open_console(browser, table, seed=3, cut_at=80)  # a short shoe: every step, fewer rounds
    page = console.page
    decided = {"war": 0, "surrender": 0}
    for _ in range(200):
        if not page.locator(".bet").count():
            console.bet("ann", "10.00", "1", "War")
            console.bet("ben", "10.00", "2", "War")
            console.bet("ben", "5.00", "2", "Tie")
        console.act("No more bets", "dealing")
        state = console.deal_until("paying", "war_decision")
        while state == "war_decision":
            choice = "war" if decided["war"] <= decided["surrender"] else "surrender"
            before = console.line()
            page.get_by_role("button", name=re.compile(rf"^{choice.capitalize()}: box")).first.click()
            decided[choice] += 1
            page.wait_for_function("line => document.querySelector('[role=status]').innerText !== line",
                                   arg=before, timeout=15_000)
            state = console.state
            if decided["war"] == 1 and choice == "war":
                screenshot(page, "console-war-1280x800.png")
            if state != "war_decision":
                state = console.deal_until("paying")
        console.wait_text("#payouts-title", "Payouts")
        console.tap("Confirm payouts")
        console.page.wait_for_function("!document.querySelector('#payout-actions button')", timeout=15_000)
        if console.act("Next round", "betting", "shuffling") == "shuffling":
            break
    assert decided["war"] and decided["surrender"], decided
    page.set_viewport_size({"width": 1920, "height": 1080})
    screenshot(page, "console-war-shoe-end-1920x1080.png")
    rounds = recall_json(table, "--last", "0")
    outcomes = {s["outcome"] for r in rounds for s in r["settlement"] or []}
    assert {"surrender", "win", "lose"} <= outcomes
    assert any(s["region"] == "go_to_war" for r in rounds for s in r["settlement"] or [])
    table.stop_station()
