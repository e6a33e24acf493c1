"""Side bets on the dealer's console, as a dealer taps them: each side-bet region of each box
is a button named for a screen reader ("Box 1 Dragon 7"), a bet placed on it shows on the
box, and the layout holds at every screen size with the two shipped side-bet tables (EZ
Baccarat with Dragon 7 and Panda 8; a commission table with the pairs and Dragon Bonus: 11
regions a box); the payouts of a round settle the side bets with the main bets."""

from __future__ import annotations

from typing import Any

import pytest

from ..browser import BROWSER_MARKS
from .console_page import ConsolePage, check_every_size

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


@pytest.mark.parametrize(("extra", "regions"), [
    (EZ, ["Banker", "Player", "Tie", "Dragon 7", "Panda 8"]),
    (EVERY_SIDE_BET, ["Banker", "Player", "Tie", "Player Pair", "Banker Pair", "Either Pair", "Perfect Pair",
                      "Dragon Bonus Player", "Dragon Bonus Banker"]),
], ids=["ez", "pairs-and-dragon-bonus"])
def test_side_bet_regions_are_named_and_fit_every_screen(browser: Any, console_table: Any, extra: str,
                                                         regions: list[str]) -> None:
    table = console_table(decks=4, table_extra=extra)
    table.start_station()
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    console = ConsolePage(page, table)
    console.sign_in("dee")
    console.open_shoe(seed=5)
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
    check_every_size(page, f"payouts side bets {len(regions)} regions", ((1280, 800),))
    table.stop_station()
