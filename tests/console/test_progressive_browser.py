"""The progressive jackpot on the console, in a real browser (docs/progressive.md, docs/console.md):
the meter over the felt in the table's money; a jackpot dealt from a stacked shoe (the Player's
4♠ 4♠ and the Banker's 9♥ 9♥, both naturals by suited pairs) turns it into the jackpot's panel
with who won what; the dealer cannot sign it off (no button, and the table refuses the command
sent with the dealer's session, the reason in the alert line) nor deal the next round; the
station killed and started again shows the same jackpot waiting; a
supervisor signs it off with how it was paid, the meter starts again at its seed, the journal
says who, and the next round is dealt; then the supervisor resets the meter. The layout check
at every size, with the panel for the dealer and for the supervisor."""

from __future__ import annotations

import signal
from typing import Any

from station.cards import parse_cards

from ..browser import BROWSER_MARKS
from .console_page import WAIT_MS, ConsolePage, check_every_size, open_console

pytestmark = BROWSER_MARKS

#: A table in euros with a progressive (as config/examples/baccarat-side-bets.toml offers it):
#: its meter starts at 20,000.00 EUR and takes 15% of every progressive wager.
PROGRESSIVE = """currency = "EUR"
[table.side_bets.progressive]
pays = "progressive_natural_pairs"
min = 100
max = 500
[table.progressive]
pool = "natural-pairs"
seed = 2000000
share_bp = 1500"""
#: AS exposed (burn one), 2C burned; then P, B, P, B: 4S 9H 4S 9H, the whole meter; cards to spare.
STACKED = "AS 2C 4S 9H 4S 9H 9S 9D 9C 8H 8S 8D 8C KH KD KC"
SHOTS = ((1280, 800), (1366, 768))


def open_stacked_shoe(console: ConsolePage) -> None:
    console.wait_state("shuffling")
    console.table.shoe.simulator.load(parse_cards(STACKED))
    console.act("Shuffle done", "cutting")
    console.tap("Confirm cut")
    # The station's first moments are its busiest (the integrity monitor builds the side bets'
    # count tables on a thread of its own): beside a loaded suite, give the cut a minute.
    console.page.wait_for_function("document.body.dataset.state === 'burning'", timeout=60_000)
    console.deal_until("betting")


def sign(console: ConsolePage) -> str:
    """The meter beside the dealer's line, as one line of words."""
    return " ".join(console.page.locator("#progressive-sign").inner_text().split())


def test_a_jackpot_waits_for_the_supervisors_sign_off_on_the_console(browser: Any, console_table: Any) -> None:
    table = console_table(table_extra=PROGRESSIVE)
    table.start_station()
    console = open_console(browser, table)
    page = console.page
    open_stacked_shoe(console)
    assert page.get_by_role("region", name="Progressive jackpot", exact=True).is_visible()
    assert sign(console) == "Progressive Jackpot 20,000.00 EUR"

    console.bet("ann", "20.00", "1", "Banker")
    console.bet("ann", "5.00", "1", "Progressive")
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    # 15% of the 5.00 wager went to the meter before the jackpot was valued: 20,000.75 EUR.
    words = console.wait_text("#jackpot-words", "Jackpot!")
    assert words == "Jackpot! Box 1 ann wins 20,000.75 EUR \u2014 waiting for a supervisor", words
    assert page.get_by_role("region", name="Jackpot", exact=True).is_visible()
    assert sign(console) == "Progressive Jackpot 20,000.75 EUR"
    assert "a supervisor signs the progressive jackpot off" in console.line()
    assert page.get_by_role("button", name="Sign off jackpot").count() == 0  # not the dealer's to do
    check_every_size(page, "progressive jackpot dealer", SHOTS)

    # The dealer pays the round's bets; the next round waits for the jackpot's sign-off.
    console.tap("Confirm payouts")
    page.wait_for_function("!document.querySelector('#payout-actions button')", timeout=WAIT_MS)
    console.tap("Next round")
    refusal = console.wait_text("#refusal", "progressive jackpot")
    assert "the progressive jackpot of round 1-1 waits for a supervisor's sign-off" in refusal, refusal
    assert console.state == "paying"
    # The command itself, sent with the dealer's session as the page sends any: refused by role.
    page.evaluate("send('progressive-sign-off', {round_id: '1-1', note: ''})")
    refusal = console.wait_text("#refusal", "supervisor")
    assert "progressive-sign-off" in refusal or "only a supervisor" in refusal, refusal
    assert page.locator("#jackpot-words").inner_text().startswith("Jackpot!")
    # The station killed and started again: the jackpot is the journal's, and waits still.
    assert table.stop_station(signal.SIGKILL) == -signal.SIGKILL
    table.start_station()
    page.reload()
    console.sign_in("dee")
    assert console.wait_text("#jackpot-words", "Jackpot!") == words
    assert sign(console) == "Progressive Jackpot 20,000.75 EUR"

    # A supervisor on the dealer's screen: the sign-off, with how it was paid.
    console.supervisor_signs_in("sue")
    button = page.get_by_role("button", name="Sign off jackpot", exact=True)
    assert button.is_visible()
    page.get_by_label("How it was paid", exact=True).fill("cheque 4411")
    check_every_size(page, "progressive jackpot supervisor", SHOTS)
    button.click()
    page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=WAIT_MS)  # the turn is over
    news = console.wait_text("#jackpot-words", "paid")
    assert news == "Jackpot of round 1-1 paid: 20,000.75 EUR, signed off by sue (cheque 4411)", news
    assert sign(console) == "Progressive Jackpot 20,000.00 EUR"  # the seed again
    assert page.get_by_role("button", name="Sign off jackpot").count() == 0
    [signed] = [r["payload"] for r in table.journal_records() if r["kind"] == "ProgressiveSignOff"]
    assert (signed["round_id"], signed["actor"]["who"], signed["actor"]["role"], signed["note"]) == (
        "1-1", "sue", "supervisor", "cheque 4411")
    check_every_size(page, "progressive jackpot paid", SHOTS)
    console.act("Next round", "betting")
    page.wait_for_function("document.getElementById('jackpot').hidden", timeout=WAIT_MS)  # said until now
    assert sign(console) == "Progressive Jackpot 20,000.00 EUR"

    # The supervisor resets the meter: a reset without its reason is refused, with the reason.
    console.supervisor_signs_in("sue")
    console.tap("Progressive meter")
    page.get_by_label("Meter from now", exact=True).fill("25,000.00")
    check_every_size(page, "progressive meter reset", SHOTS[:1])
    console.tap("Reset meter")
    assert "reason" in console.wait_text("#refusal", "reason")
    page.get_by_label("Why the meter is reset", exact=True).fill("the casino adds to the meter")
    console.tap("Reset meter")
    page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=WAIT_MS)
    news = console.wait_text("#jackpot-words", "reset")
    assert news == "Meter reset from 20,000.00 EUR to 25,000.00 EUR by sue (the casino adds to the meter)", news
    assert sign(console) == "Progressive Jackpot 25,000.00 EUR"
    assert table.status()["progressive"]["meter"] == 2_500_000
    table.stop_station()
