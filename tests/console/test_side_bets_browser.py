"""Side bets on the dealer's console, as a dealer taps them: each side-bet region of each box
is a button named for a screen reader ("Box 1 Dragon 7"), a bet placed on it shows on the
box, and the layout holds at every screen size with the two shipped side-bet tables (EZ
Baccarat with Dragon 7 and Panda 8; a commission table with the pairs and Dragon Bonus: 11
regions a box); the payouts of a round settle the side bets with the main bets, and however many
lines a round pays, they can all be read and every confirm button stays on the screen."""

from __future__ import annotations

from typing import Any

import pytest

from ..browser import BROWSER_MARKS
from ..layout import SCREEN_SIZES
from .console_page import WAIT_MS, ConsolePage, check_every_size

pytestmark = BROWSER_MARKS

EZ = """banker_payout = "ez"
[table.side_bets.dragon_7]
min = 500
max = 10000
[table.side_bets.panda_8]
min = 500
max = 10000"""

EVERY_SIDE_BET = "\n".join(
    f"[table.side_bets.{bet}]\nmin = 500\nmax = 10000"
    for bet in ("player_pair", "banker_pair", "either_pair", "perfect_pair", "dragon_bonus_player",
                "dragon_bonus_banker"))
#: Every side bet of config/examples/baccarat-side-bets.toml: the pairs, Dragon Bonus and the
#: progressive, whose meter hangs over the felt (docs/progressive.md).
WITH_PROGRESSIVE = EVERY_SIDE_BET + """
[table.side_bets.progressive]
pays = "progressive_natural_pairs"
min = 100
max = 500
[table.progressive]
pool = "natural-pairs"
seed = 1000000
share_bp = 1500"""


#: The payout lines of each table's first round, side bets like main bets: in words, and a
#: payout in the table's chips (25.00 the largest). Seed 76 deals a Dragon 7 first (the Banker's
#: 2-Q-5 beats the Player's 6-5-5): the Banker bet pushes (EZ) and the Dragon 7 pays 40 to 1;
#: seed 1 a Player Pair in a hand that loses (7-7-10 to the Banker's 3-10-6): the Banker, the
#: Player Pair and the Dragon Bonus Banker (a win by 5) all pay, three lines that wrap in the side
#: column.
PAYOUTS = {
    "ez": ["Box 1 \u00b7 ann \u00b7 Banker: push, 20.00 stays the player's",
           "Box 1 \u00b7 ann \u00b7 Dragon 7: pay 200.00 (40 to 1) = 8 \u00d7 25.00",
           "Box 2 \u00b7 ben \u00b7 Panda 8: take 5.00"],
    "pairs-and-dragon-bonus": [
        "Box 1 \u00b7 ann \u00b7 Banker: pay 19.00 (20.00 less 1.00 commission) = 1 \u00d7 10.00, 1 \u00d7 5.00, "
        "4 \u00d7 1.00",
        "Box 1 \u00b7 ann \u00b7 Player Pair: pay 55.00 (11 to 1) = 2 \u00d7 25.00, 1 \u00d7 5.00",
        "Box 2 \u00b7 ben \u00b7 Dragon Bonus Banker: pay 10.00 (2 to 1) = 1 \u00d7 10.00"],
    "with-progressive": [
        "Box 1 \u00b7 ann \u00b7 Player Pair: pay 55.00 (11 to 1) = 2 \u00d7 25.00, 1 \u00d7 5.00",
        "Box 2 \u00b7 ben \u00b7 Progressive: take 5.00"],
}


@pytest.mark.parametrize(("extra", "regions", "seed", "paid"), [
    (EZ, ["Banker", "Player", "Tie", "Dragon 7", "Panda 8"], 76, "ez"),
    (EVERY_SIDE_BET, ["Banker", "Player", "Tie", "Player Pair", "Banker Pair", "Either Pair", "Perfect Pair",
                      "Dragon Bonus Player", "Dragon Bonus Banker"], 1, "pairs-and-dragon-bonus"),
    (WITH_PROGRESSIVE, ["Banker", "Player", "Tie", "Player Pair", "Banker Pair", "Either Pair", "Perfect Pair",
                        "Dragon Bonus Player", "Dragon Bonus Banker", "Progressive"], 1, "with-progressive"),
], ids=["ez", "pairs-and-dragon-bonus", "with-progressive"])
def test_side_bet_regions_are_named_and_fit_every_screen(browser: Any, console_table: Any, extra: str,
                                                         regions: list[str], seed: int, paid: str) -> None:
    table = console_table(decks=4, table_extra=extra)
    table.start_station()
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    console = ConsolePage(page, table)
    console.sign_in("dee")
    console.open_shoe(seed=seed)
    names = page.eval_on_selector_all(".box:first-child .region", "rs => rs.map(r => r.getAttribute('aria-label'))")
    assert names == [f"Box 1 {region}" for region in regions]
    console.bet("ann", "20.00", "1", "Banker")
    console.bet("ann", "5.00", "1", regions[3])
    console.bet("ben", "5.00", "2", regions[-1])
    bets = page.eval_on_selector_all(".bet-text", "bs => bs.map(b => b.textContent)")
    assert any(regions[3] in text for text in bets), bets
    check_every_size(page, f"layout side bets {len(regions)} regions", ((1280, 800), (1920, 1080)))
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    console.wait_text("#payouts-title", "Payouts")
    payouts = page.locator("#payout-lines").inner_text()
    assert regions[3] in payouts and regions[-1] in payouts, payouts
    for line in PAYOUTS[paid]:  # a side bet's payout reads like a main bet's: words, odds, chips
        assert line in payouts, payouts
    check_every_size(page, f"payouts side bets {len(regions)} regions", ((1280, 800),))
    table.stop_station()


#: Six boxes, each a Banker bet and two side bets that win on seed 1's first round: 18 lines to
#: pay, more than the side column of a 1280x800 screen holds.
MANY = [(str(box), f"p{box}", region, amount) for box in range(1, 7)
        for region, amount in (("banker", 2000), ("player_pair", 500), ("dragon_bonus_banker", 500))]


def test_any_number_of_payout_lines_leaves_the_confirm_buttons_on_the_screen(browser: Any,
                                                                            console_table: Any) -> None:
    table = console_table(decks=4, table_extra=EVERY_SIDE_BET)
    table.start_station()
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    console = ConsolePage(page, table)
    console.sign_in("dee")
    console.open_shoe(seed=1)
    for box, player, region, amount in MANY:  # placed at the control socket: the page shows them
        table.ctl("bet", {"box": box, "player": player, "region": region, "amount": amount})
    page.wait_for_function(f"document.querySelectorAll('.bet').length === {len(MANY)}", timeout=WAIT_MS)
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    console.wait_text("#payouts-title", "Payouts")
    lines = page.locator("#payout-lines li")
    assert lines.count() == len(MANY) and all("pay" in text for text in lines.all_inner_texts())
    # Every size: every line readable whole at some scroll of the list, nothing cut or overlapping,
    # the confirm buttons on the screen (tests/console/scroll_regions.py).
    check_every_size(page, "payouts 18 lines", ((1280, 800), (1366, 768), (3840, 2160)))
    for width, height in SCREEN_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        buttons = page.locator("#payout-actions button")
        names = [buttons.nth(i).get_attribute("aria-label") or buttons.nth(i).inner_text()
                 for i in range(buttons.count())]
        assert names == ["Confirm payouts", *(f"Confirm box {box}" for box in range(1, 7))], names
        for index in range(buttons.count()):
            place = buttons.nth(index).bounding_box()
            assert place is not None and place["y"] >= 0 and place["y"] + place["height"] <= height, (width, height,
                                                                                                      place)
        if (width, height) == (1280, 800):  # the list scrolls here: the test reaches the case it is for
            assert page.eval_on_selector("#payout-lines", "l => l.scrollHeight > l.clientHeight + 20")
    page.set_viewport_size({"width": 1366, "height": 768})
    for number in range(1, 7):  # box by box, each button tapped where it is, the list never scrolled
        console.tap(f"Confirm box {number}")
        page.wait_for_function(f"!document.querySelector('#payout-actions [aria-label=\"Confirm box {number}\"]')",
                               timeout=WAIT_MS)
    console.act("Next round", "betting")
    table.stop_station()
