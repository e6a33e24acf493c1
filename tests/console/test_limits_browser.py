"""The table's limits changed on the console by a supervisor, in a real browser against a real
``station run`` (docs/limits.md): the form shows the limits in force, a change the table cannot
have is refused with its reason in the table's money, an accepted one waits for the next round
and says so, the dealer's chips and the header follow when it applies, and a bet under the new
minimum is refused. The form passes the layout check at the four screen sizes."""

from __future__ import annotations

from typing import Any

from ..browser import BROWSER_MARKS
from .console_page import WAIT_MS, check_every_size, open_console
from .test_supervisor_browser import SHOTS, pay_and_open_the_next_round, play_out, refused, supervisor_done

pytestmark = BROWSER_MARKS


def test_a_supervisor_changes_the_limits_and_chips_from_the_next_round(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4, table_extra='currency = "EUR"')
    table.start_station()
    console = open_console(browser, table, seed=5)
    page = console.page
    assert page.get_by_label("Table minimum", exact=True).is_hidden()  # not on the dealer's screen
    console.supervisor_signs_in("sue")
    assert page.get_by_label("Table minimum", exact=True).is_hidden()  # the form opens on demand
    console.tap("Table limits")
    minimum = page.get_by_label("Table minimum", exact=True)
    assert minimum.input_value() == "5.00"
    assert page.get_by_label("Table maximum", exact=True).input_value() == "1,000.00"
    assert page.get_by_label("Chips in play", exact=True).input_value() == "1.00 5.00 10.00 20.00 25.00"
    check_every_size(page, "supervisor limits", SHOTS)

    # A minimum the smallest chip cannot make is refused, in the table's money.
    minimum.fill("10.50")
    console.tap("Change limits from the next round")
    assert refused(console) == "refused: min_bet: 10.50 EUR cannot be made of chips of 1.00 EUR"

    minimum.fill("10.00")
    page.get_by_label("Chips in play", exact=True).fill("1.00 5.00 10.00 20.00 25.00 100.00")
    page.get_by_label("Why the limits change", exact=True).fill("evening")
    console.tap("Change limits from the next round")
    supervisor_done(console)
    [changed] = [r["payload"] for r in table.journal_records() if r["kind"] == "LimitsChanged"
                 and r["payload"]["actor"]["who"] == "sue" and r["payload"]["changes"].get("min_bet") == 1000]
    assert changed["changes"] == {"min_bet": 1000, "chips": [100, 500, 1000, 2000, 2500, 10000]}
    assert changed["reason"] == "evening"

    # The round in play keeps its limits; the dealer's chips are still the old ones.
    assert page.get_by_role("button", name="Chip 100.00", exact=True).count() == 0
    console.bet("ann", "5.00", "1", "Player")
    assert console.alert() == ""
    console.act("No more bets", "dealing")
    play_out(console)
    pay_and_open_the_next_round(console)
    page.get_by_role("button", name="Chip 100.00", exact=True).wait_for(timeout=WAIT_MS)
    assert "10.00 – 1,000.00 EUR" in page.locator("#game-name").inner_text()
    console.bet("bo", "5.00", "2", "Player")
    assert refused(console) == "refused: Player bet of 5.00 EUR on box 2 is below the table minimum of 10.00 EUR"
    table.stop_station()
