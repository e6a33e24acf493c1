"""Chips that stack, in a real browser by the controls' accessible names: a tap adds the chip to
the player's bet on the spot and the table judges the whole; a whole it does not take yet stays
pending on the spot until the next chip makes it one; an amount can be typed; one chip can be
taken off. What the table took is what the journal holds, and a double tap is one request."""

from __future__ import annotations

import re
from typing import Any

from ..browser import BROWSER_MARKS, screenshot
from ..waiting import wait_until
from .console_page import WAIT_MS, ConsolePage, check_every_size, open_console
from .test_console_browser import recall_json

pytestmark = BROWSER_MARKS


def tap_spot(console: ConsolePage, box: str, region: str) -> str:
    """Tap a spot and wait for the station's answer (the box's bets read differently, or a
    refusal); the refusal line after it."""
    selector = f".box[data-box='{box}'] .bets"
    before = console.page.locator(selector).inner_text()
    console.tap(f"Box {box} {region}")
    console.page.wait_for_function(
        "([selector, before]) => document.querySelector(selector).innerText !== before",
        arg=[selector, before], timeout=WAIT_MS)
    return console.alert()


def box_bets(console: ConsolePage, box: str) -> str:
    return str(console.page.locator(f".box[data-box='{box}'] .bets").inner_text())


def test_two_ten_chips_make_the_banker_bet_a_typed_amount_and_a_chip_taken_off(browser: Any,
                                                                                 console_table: Any) -> None:
    table = console_table(decks=4, table_extra='currency = "EUR"\nchip_colours = { "2000" = "#123456" }')
    table.start_station()
    console = open_console(browser, table, seed=6)
    page = console.page
    # Each chip in its colour: 1.00 white and 10.00 blue by their face values, 20.00 as configured.
    shade = "el => getComputedStyle(el).backgroundColor"
    assert page.get_by_role("button", name="Chip 1.00", exact=True).evaluate(shade) == "rgb(244, 241, 234)"
    assert page.get_by_role("button", name="Chip 10.00", exact=True).evaluate(shade) == "rgb(30, 86, 176)"
    assert page.get_by_role("button", name="Chip 20.00", exact=True).evaluate(shade) == "rgb(18, 52, 86)"
    console.player("ann")
    console.tap("Chip 10.00")
    # Under commission a Banker bet is a multiple of 20.00 (5.12): one 10.00 chip is not a bet...
    assert "cannot be paid exactly" in tap_spot(console, "1", "Banker")
    assert "ann: Banker +10.00 pending" in box_bets(console, "1")
    screenshot(page, "console-chip-pending-1280x800.png")
    # ...and the second makes it one: the table took the whole 20.00.
    assert tap_spot(console, "1", "Banker") == ""
    assert "ann: Banker 20.00" in box_bets(console, "1") and "pending" not in box_bets(console, "1")
    # Chips on a bet the table already holds add to it.
    console.tap("Chip 20.00")
    assert tap_spot(console, "1", "Banker") == ""
    assert "ann: Banker 40.00" in box_bets(console, "1")
    # A typed amount instead of a chip.
    page.get_by_label("Bet amount", exact=True).fill("35.00")
    console.player("ben")
    assert tap_spot(console, "2", "Player") == ""
    assert "ben: Player 35.00" in box_bets(console, "2")
    check_every_size(page, "chips stacked and a typed amount", ((1280, 800), (1920, 1080)))
    # One chip off the Banker bet: 40.00 less a 20.00 chip.
    console.tap("Chip 20.00")
    console.tap("Take a chip of 20.00 off ann Banker 40.00 on Box 1")
    page.wait_for_function("document.querySelector(\".box[data-box='1'] .bets\").innerText.includes('Banker 20.00')",
                           timeout=WAIT_MS)
    # A pending stack can be cleared.
    console.tap("Chip 1.00")
    console.player("cy")
    assert "below the table minimum" in tap_spot(console, "3", "Tie")
    assert "cy: Tie +1.00 pending" in box_bets(console, "3")
    console.tap("Clear pending cy Tie on Box 3")
    page.wait_for_function("!document.querySelector(\".box[data-box='3'] .bets\").innerText.includes('pending')",
                           timeout=WAIT_MS)
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    # A double tap on "Confirm payouts" is one confirmation: the second tap, before the first is
    # answered, is not sent (the round's record holds no refused repeat).
    page.get_by_role("button", name="Confirm payouts", exact=True).dblclick()
    console.wait_text("#payout-actions", "Confirmed by dee")
    [settled] = recall_json(table, "--last", "1")
    assert sorted((b["box"], b["player"], b["region"], b["amount"]) for b in settled["bets"]) == [
        ("1", "ann", "banker", 2000), ("2", "ben", "player", 3500)]
    assert [c["who"] for c in settled["confirmations"]] == ["dee"]
    assert [r["reason"] for r in settled["refused"] if r["input"] == "PayoutsConfirmed"] == []
    table.stop_station()


def test_a_casino_war_wager_of_ten_built_from_two_five_chips_and_paid_in_chips(browser: Any,
                                                                              console_table: Any) -> None:
    table = console_table(game="war", decks=4, boxes=7, players_per_box=3, table_extra='currency = "EUR"')
    table.start_station()
    console = open_console(browser, table, seed=3)
    console.player("ann")
    console.tap("Chip 5.00")
    assert "could not be halved in chips" in tap_spot(console, "1", "War")  # a surrender pays back half
    wait_until(lambda: "ann: War +5.00 pending" in box_bets(console, "1"), 10, "the 5.00 chip pending")
    assert tap_spot(console, "1", "War") == ""  # the second 5.00 chip makes the 10.00 wager
    wait_until(lambda: "ann: War 10.00" in box_bets(console, "1"), 10, "the 10.00 wager on the box")
    console.act("No more bets", "dealing")
    state = console.deal_until("paying", "war_decision")
    while state == "war_decision":
        console.page.get_by_role("button", name=re.compile(r"^Surrender: box")).first.click()
        state = console.deal_until("paying")
    lines = console.page.locator("#payout-lines li").all_inner_texts()
    [line] = [text for text in lines if text.startswith("Box 1 · ann · War")]
    [settled] = recall_json(table, "--last", "1")
    [bet] = [s for s in settled["settlement"] if s["player"] == "ann"]
    # What the screen says to pay or take is the settlement's figure.
    amount = f"{abs(bet['net']) // 100}.{abs(bet['net']) % 100:02d}"
    assert (f"pay {amount}" if bet["net"] > 0 else f"take {amount}") in line, (line, bet)
    table.stop_station()
