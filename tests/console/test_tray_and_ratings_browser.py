"""The chip tray and rated play on the console, in a real browser against a real ``station run``
(docs/tray.md, docs/ratings.md): the dealer records a cash buy-in and cannot type a card's
number; a supervisor rates a player by the number they type, counts the opener by
denomination with a witness, is refused a fill without its slip, enters the drop, and ends the
rating; what the journal holds of each, with who. The forms pass the layout check at the four
screen sizes; screenshots at 1280x800 and 1920x1080 go to tests/artifacts/."""

from __future__ import annotations

from typing import Any

from ..browser import BROWSER_MARKS
from .console_page import WAIT_MS, check_every_size, open_console
from .test_supervisor_browser import SHOTS, refused, supervisor_done

pytestmark = BROWSER_MARKS


def test_the_tray_a_buy_in_and_a_rating_from_the_console(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4, table_extra='currency = "EUR"')
    table.start_station()
    console = open_console(browser, table, seed=6)
    page = console.page

    # The dealer: a buy-in for ann at box 1; no card number to type.
    console.player("ann")
    console.tap("Players and cash")
    assert page.get_by_label("Card number (supervisor)", exact=True).is_hidden()
    page.get_by_label("Box of the player", exact=True).select_option("1")
    page.get_by_label("Cash buy-in", exact=True).fill("500.00")
    check_every_size(page, "dealer buy-in", SHOTS)
    console.tap("Record buy-in")
    page.wait_for_function("document.getElementById('players-form').hidden", timeout=WAIT_MS)
    [buy_in] = [r["payload"] for r in table.journal_records() if r["kind"] == "BuyIn"]
    assert (buy_in["box"], buy_in["player"], buy_in["amount"], buy_in["actor"]["who"]) == ("1", "ann", 50_000, "dee")

    # A supervisor rates ann by the number on her card.
    console.supervisor_signs_in("sue")
    console.tap("Players and cash")
    page.get_by_label("Card number (supervisor)", exact=True).fill("4000123456789")
    page.get_by_label("Box of the player", exact=True).select_option("1")
    console.tap("Rate player")
    supervisor_done(console)
    console.wait_text("#rated-list", "Box 1 · ann · card …6789")

    # The opener, counted by denomination and signed with a witness.
    console.supervisor_signs_in("sue")
    console.tap("Chip tray")
    assert page.get_by_role("button", name="Count from the tray antenna").count() == 0  # no chip reader here
    page.get_by_label("Count", exact=True).select_option("opener")
    page.get_by_label("Count of 25.00 chips", exact=True).fill("40")
    page.get_by_label("Count of 5.00 chips", exact=True).fill("100")
    page.get_by_label("Witness", exact=True).fill("dee")
    check_every_size(page, "supervisor chip tray", SHOTS)
    console.tap("Record the count")
    supervisor_done(console)
    [opener] = [r["payload"] for r in table.journal_records() if r["kind"] == "TrayCounted"]
    assert (opener["what"], opener["chips"], opener["witness"], opener["actor"]["who"]) == (
        "opener", [[500, 100], [2500, 40]], "dee", "sue")

    # A fill without its slip is refused, with the reason; then the drop.
    console.supervisor_signs_in("sue")
    console.tap("Chip tray")
    console.wait_text("#tray-state", r"Opening 1 open \(entries 1 opener\): opener 1,500.00")
    page.get_by_label("Count", exact=True).select_option("fill")
    page.get_by_label("Count of 25.00 chips", exact=True).fill("20")
    page.get_by_label("Witness", exact=True).fill("rob")
    console.tap("Record the count")
    assert refused(console) == "refused: a fill needs the number of its slip"
    page.get_by_label("Drop counted", exact=True).fill("500.00")
    console.tap("Enter the drop")
    supervisor_done(console)
    drops = [r["payload"] for r in table.journal_records() if r["kind"] == "DropCounted"]
    assert [(d["amount"], d["actor"]["who"]) for d in drops] == [(50_000, "sue")]

    # The opener recounted: a correction names the entry, says why, and gives the count.
    console.supervisor_signs_in("sue")
    console.tap("Chip tray")
    console.wait_text("#tray-state", "entries 1 opener, 2 drop")
    page.get_by_label("Entry to correct", exact=True).fill("1")
    page.get_by_label("Count of 25.00 chips", exact=True).fill("41")
    page.get_by_label("Count of 5.00 chips", exact=True).fill("100")
    console.tap("Correct the entry")
    assert refused(console) == "reason: string should have at least 1 character (why, for the journal)"
    page.get_by_label("Why", exact=True).fill("a 25.00 chip under the float")
    check_every_size(page, "supervisor tray correction", SHOTS)
    console.tap("Correct the entry")
    supervisor_done(console)
    [corrected] = [r["payload"] for r in table.journal_records() if r["kind"] == "TrayCorrected"]
    assert (corrected["entry"], corrected["chips"], corrected["reason"], corrected["actor"]["who"]) == (
        1, [[500, 100], [2500, 41]], "a 25.00 chip under the float", "sue")

    # The dealer ends ann's rating when she leaves.
    console.tap("End the rating of ann on Box 1")
    page.wait_for_function("!document.querySelector('#rated-list li')", timeout=WAIT_MS)
    closed = [r["payload"] for r in table.journal_records() if r["kind"] == "RatingClosed"]
    assert [(c["box"], c["player"], c["actor"]["who"]) for c in closed] == [("1", "ann", "dee")]
    table.stop_station()
