"""The console's layout as a dealer sees it, at every size the table's screens are used at
(tests/layout.py): no text drawn over other text, none cut off or spilling out of its button,
every control a 48 px target and every field labelled once, on the sign-in screen, the layout
with bets on it, the cards being dealt, the payouts, a supervisor's decision in an
irregularity, recall, and a correction open over recall."""

from __future__ import annotations

from typing import Any

from ..browser import BROWSER_MARKS
from .console_page import ConsolePage, check_every_size

pytestmark = BROWSER_MARKS


def test_the_console_layout_holds_at_every_screen_size(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4, table_extra='timezone = "Europe/Vienna"')
    table.start_station()
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    console = ConsolePage(page, table)
    page.get_by_label("Name", exact=True).wait_for()
    # The table's time before anyone signs in, as after.
    page.wait_for_function("/\\d\\d:\\d\\d:\\d\\d CES?T$/.test(document.getElementById('table-clock').textContent)",
                           timeout=10_000)
    check_every_size(page, "layout sign-in")
    console.sign_in("dee")
    console.open_shoe(seed=5)
    console.bet("ann", "20.00", "1", "Banker")
    console.bet("ann", "10.00", "2", "Player")
    console.bet("ben", "5.00", "3", "Tie")
    check_every_size(page, "layout with bets", ((1280, 800), (1366, 768), (1920, 1080)))
    console.act("No more bets", "dealing")
    for _ in range(3):  # the cards drawn as cards, mid-deal
        table.draw()
    page.locator("#cards .card").nth(2).wait_for()
    check_every_size(page, "layout dealing", ((1280, 800), (1920, 1080)))
    console.deal_until("paying")
    console.wait_text("#payouts-title", "Payouts")
    check_every_size(page, "layout payouts", ((1366, 768), (3840, 2160)))
    table.draw()  # a card nobody called for
    console.wait_state("irregularity")
    console.supervisor_signs_in("sue")
    console.wait_text("#irregularity", "Irregularity")
    check_every_size(page, "layout supervisor")
    console.tap("Burn")
    console.wait_state("paying")
    console.tap("Confirm payouts")
    console.act("Next round", "betting")
    console.supervisor_signs_in("sue")
    console.tap("Recall")
    console.wait_text("#recall-rounds", "Round 1-1")
    check_every_size(page, "layout recall")
    page.get_by_role("button", name="Correct Box 1 ann Banker of round 1-1").click()
    page.get_by_label("Correct region").wait_for()
    check_every_size(page, "layout correction", ((1280, 800), (1920, 1080)))
    table.stop_station()
