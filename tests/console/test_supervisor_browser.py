"""The supervisor's screen in a real browser (Debian's Chromium through Playwright), against a
real ``station run``, as a pit supervisor uses it on the dealer's screen: late bets allowed
(5.14) and placed by the dealer; the table differential's decision (back to betting, reduce,
accept) reached by Banker bets the chips cannot reduce exactly; the Banker payout option
switched for the next round; an integrity alarm raised by a card the shoe cannot hold,
acknowledged with a note. Refusals are read in the one element with role ``alert``, every
amount in the table's money, and from ``station ctl`` too. Each new screen state passes the
layout check at the four screen sizes; screenshots at 1280x800 and 1920x1080 go to
tests/artifacts/."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from drivers.simulators import CUT_CARD, shuffled_shoe
from station.cards import parse_card

from ..browser import BROWSER_MARKS
from ..service.conftest import DEALER_TOKEN, SUPERVISOR_TOKEN
from .console_page import WAIT_MS, ConsolePage, check_every_size, open_console

pytestmark = BROWSER_MARKS

#: The sizes each new screen state is photographed at (all four are checked).
SHOTS = ((1280, 800), (1920, 1080))


def play_out(console: ConsolePage) -> str:
    """Deal and reveal the round to its payouts (dealing style C turns the cards on Reveal);
    the round's id, from the payouts' title."""
    for _ in range(12):
        state = console.deal_until("paying", "revealing")
        if state == "paying":
            return payouts_round(console)
        console.act("Reveal", "dealing", "paying")
    raise AssertionError(f"the round did not end: {console.line()}")


def payouts_round(console: ConsolePage) -> str:
    title = console.wait_text("#payouts-title", r"Payouts · round \d+-\d+")
    return title.split(" · ")[1].removeprefix("round ")


def pay_and_open_the_next_round(console: ConsolePage) -> None:
    console.tap("Confirm payouts")
    console.page.wait_for_function("!document.querySelector('#payout-actions button')", timeout=WAIT_MS)
    console.act("Next round", "betting")


def add_chip(console: ConsolePage, player: str, chip: str, box: str, region: str) -> None:
    """One more chip on a bet already on the layout: the box's bets read differently after."""
    console.player(player)
    console.tap(f"Chip {chip}")
    selector = f".box[data-box='{box}'] .bets"
    before = console.page.locator(selector).inner_text()
    console.tap(f"Box {box} {region}")
    console.page.wait_for_function(
        "([selector, before]) => document.querySelector(selector).innerText !== before || "
        "document.getElementById('refusal').innerText", arg=[selector, before], timeout=WAIT_MS)
    assert console.alert() == "", console.alert()


def supervisor_done(console: ConsolePage) -> None:
    """The supervisor's one change was applied: the screen is the dealer's again."""
    console.page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=WAIT_MS)
    assert console.page.locator("#supervisor").is_hidden()


def refused(console: ConsolePage) -> str:
    console.page.wait_for_function("document.querySelector('[role=alert]').innerText !== ''", timeout=WAIT_MS)
    return console.alert()


def ctl(table: Any, *args: str, token_text: str = DEALER_TOKEN) -> subprocess.CompletedProcess[str]:
    token = table.directory / "ctl.token"
    token.write_text(token_text)
    return subprocess.run([sys.executable, "-m", "station", "ctl", "--socket", str(table.socket), "--token-file",
                           str(token), *args], capture_output=True, text=True, timeout=60)


def recall(table: Any, round_id: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--json", "--round", round_id, "--config",
                          str(table.config)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (round_,) = json.loads(out.stdout)
    return dict(round_)


def test_money_in_refusals_late_bets_and_the_banker_payout_option(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4, dealing_style="C", table_extra='currency = "EUR"')
    table.start_station()
    console = open_console(browser, table, seed=8)
    page = console.page
    # A refusal a dealer reads: every amount in the table's currency with its minor digits.
    console.bet("ann", "25.00", "1", "Banker")
    assert refused(console) == ("refused: Banker bet of 25.00 EUR cannot be paid exactly in chips of 1.00 EUR: "
                                "largest acceptable is 20.00 EUR")
    check_every_size(page, "refusal in euros", SHOTS)
    console.tap("Clear pending ann Banker on Box 1")  # the refused chips stayed pending on the spot
    # The same rules through station ctl: the same words.
    over = ctl(table, "send", "bet", "--set", "box=2", "--set", "player=bo", "--set", "region=player",
               "--set", "amount=100100")
    assert over.returncode == 1, over
    assert over.stderr.strip() == ("refused: Player bet of 1,001.00 EUR takes player bo's total on Player to "
                                   "1,001.00 EUR, over the maximum of 1,000.00 EUR: at most 1,000.00 EUR more")
    low = ctl(table, "send", "bet", "--set", "box=2", "--set", "player=bo", "--set", "region=tie",
              "--set", "amount=400")
    assert low.stderr.strip() == "refused: Tie bet of 4.00 EUR on box 2 is below the table minimum of 5.00 EUR"

    # Late bets (5.14): two cards out face down, no card revealed; the dealer cannot reopen betting.
    console.bet("ann", "20.00", "1", "Banker")
    console.act("No more bets", "dealing")
    for _ in range(2):
        before = console.line()
        table.draw()
        page.wait_for_function("line => document.querySelector('[role=status]').innerText !== line",
                               arg=before, timeout=WAIT_MS)
    assert not page.get_by_role("button", name="Allow late bets", exact=True).is_visible()
    console.supervisor_signs_in("sue")
    page.get_by_role("button", name="Allow late bets", exact=True).wait_for()
    check_every_size(page, "supervisor late bets", SHOTS)
    console.act("Allow late bets", "betting")
    supervisor_done(console)
    console.bet("ben", "10.00", "2", "Player")  # the late bet, placed by the dealer
    assert console.alert() == ""
    console.act("No more bets", "dealing")
    round_id = play_out(console)
    records = table.journal_records()
    [allowed] = [r for r in records if r["kind"] == "LateBetOverride"]
    assert allowed["payload"]["actor"] == {"role": "supervisor", "who": "sue"}
    late = [r for r in records if r["kind"] == "BetPlaced" and r["seq"] > allowed["seq"]]
    assert [(r["payload"]["player"], r["payload"]["amount"], r["payload"]["actor"]["who"]) for r in late] == [
        ("ben", 1000, "dee")]
    decisions = recall(table, round_id)["decisions"]
    assert any("late_bets_allowed" in d and d["who"] == "sue" and d["role"] == "supervisor" for d in decisions)
    assert {"late_bet": "placed", "bet": ["2", "ben", "player", 1000], "role": "dealer", "who": "dee"} in decisions

    # The Banker payout option, switched by the supervisor for the next round (5.11).
    console.supervisor_signs_in("sue")
    page.get_by_role("button", name="Banker payout: no commission", exact=True).wait_for()
    check_every_size(page, "supervisor payout option", SHOTS)
    console.tap("Banker payout: no commission")
    supervisor_done(console)
    [changed] = [r for r in table.journal_records() if r["kind"] == "PayoutOptionChanged"]
    assert changed["payload"]["option"] == "no_commission"
    assert changed["payload"]["actor"] == {"role": "supervisor", "who": "sue"}
    pay_and_open_the_next_round(console)
    # Without commission rule 5.12 does not apply: the Banker bet of 25.00 refused before goes on.
    console.bet("ann", "25.00", "1", "Banker")
    assert console.alert() == ""
    console.act("No more bets", "dealing")
    next_id = play_out(console)
    assert recall(table, next_id)["payout_option"] == "no_commission"
    if any(line.startswith("Box 1 · ann · Banker: pay") for line in page.locator("#payout-lines li").all_inner_texts()):
        assert "Box 1 · ann · Banker: pay 25.00 (even money)" in page.locator("#payout-lines").inner_text()
    table.stop_station()


def test_the_differential_decision_back_to_betting_reduce_and_accept(browser: Any, console_table: Any) -> None:
    # Banker bets move in steps of 20.00 under commission (5.12): against Player 10.00 and a
    # differential of 5.00, no Banker total of whole steps lies within 5.00 of the Player side.
    table = console_table(decks=4, table_extra='currency = "EUR"\ndifferential = 500\n'
                                               'differential_reduction = "supervisor"')
    table.start_station()
    console = open_console(browser, table, seed=4)
    page = console.page
    console.bet("ann", "20.00", "1", "Banker")
    add_chip(console, "ann", "20.00", "1", "Banker")
    console.bet("ben", "10.00", "2", "Player")
    console.act("No more bets", "irregularity")
    console.wait_text("[role=status]", "waiting for supervisor")
    console.supervisor_signs_in("sue")
    detail = console.wait_text("#irregularity", "table differential exceeded")
    assert "Banker total 40.00 EUR exceeds Player total 10.00 EUR by 30.00 EUR; the table differential is 5.00 EUR" \
        in detail, detail
    assert "it cannot be met by reducing Banker bets in chips of 1.00 EUR" in detail
    assert not page.get_by_role("button", name="Reduce", exact=True).is_visible()
    resume = page.get_by_role("button", name="Resume", exact=True)
    assert resume.get_attribute("aria-describedby") == "decision-resume"
    assert page.locator("#decision-resume").inner_text() == "Back to betting: the dealer changes the bets"
    check_every_size(page, "supervisor differential", SHOTS)
    console.act("Resume", "betting")
    supervisor_done(console)
    # Back to betting: the dealer adds to the Player side; now 20.00 of Banker meets it.
    add_chip(console, "ben", "10.00", "2", "Player")
    console.act("No more bets", "irregularity")
    console.supervisor_signs_in("sue")
    console.wait_text("#irregularity", "reduce pro rata")
    assert page.locator("#decision-reduce").inner_text() == "Reduce the larger side's bets as the station proposes"
    assert "ann's Banker bet on box 1 40.00 EUR -> 20.00 EUR" in page.locator("#irregularity").inner_text()
    check_every_size(page, "supervisor differential reduce", SHOTS)
    console.act("Reduce", "dealing")
    supervisor_done(console)
    console.deal_until("paying")
    first = payouts_round(console)
    pay_and_open_the_next_round(console)
    # The next round: the same imbalance, accepted as it is.
    console.bet("ann", "20.00", "1", "Banker")
    add_chip(console, "ann", "20.00", "1", "Banker")
    console.bet("ben", "10.00", "2", "Player")
    console.act("No more bets", "irregularity")
    console.supervisor_signs_in("sue")
    console.wait_text("#irregularity", "table differential exceeded")
    assert page.locator("#decision-accept").inner_text() == "Deal the bets as they are, over the differential"
    console.act("Accept", "dealing")
    supervisor_done(console)
    console.deal_until("paying")
    second = payouts_round(console)
    table.stop_station()
    reduced, accepted = recall(table, first), recall(table, second)
    assert {(b["box"], b["player"], b["region"], b["amount"]) for b in reduced["bets"]} == {
        ("1", "ann", "banker", 2000), ("2", "ben", "player", 2000)}
    assert {(b["box"], b["player"], b["region"], b["amount"]) for b in accepted["bets"]} == {
        ("1", "ann", "banker", 4000), ("2", "ben", "player", 1000)}
    decided = [r["payload"] for r in table.journal_records() if r["kind"] == "SupervisorDecision"]
    assert [(d["decision"], d["actor"]["who"]) for d in decided] == [("resume", "sue"), ("reduce", "sue"),
                                                                    ("accept", "sue")]


def test_an_integrity_alarm_acknowledged_with_a_note(browser: Any, console_table: Any) -> None:
    table = console_table(decks=4)
    table.start_station()
    console = open_console(browser, table)
    page = console.page
    console.wait_state("shuffling")
    # A fifth King of hearts in a shoe of four decks: the opening four cards of the first round
    # are Kings of hearts (0 to 0: both hands draw), and the Player's third card is one more.
    cards = [c for c in shuffled_shoe(4, 9) if c != parse_card("KH")]
    opening = [parse_card(code) for code in ("2C", "9S", "8D")]  # exposed 2: burn two
    for card in opening:
        cards.remove(card)
    stacked = [*opening, *[parse_card("KH")] * 5, *cards]
    stacked.insert(len(stacked) - 15, CUT_CARD)
    table.shoe.simulator.load(stacked)
    console.act("Shuffle done", "cutting")
    console.act("Confirm cut", "burning")
    console.deal_until("betting")
    console.bet("ann", "20.00", "1", "Banker")
    console.act("No more bets", "dealing")
    assert console.deal_until("irregularity") == "irregularity"
    console.supervisor_signs_in("sue")
    alert = console.wait_text("#alerts", "Alert 1")
    assert "Alert 1 (alarm): KH read once more than 4 decks hold" in alert, alert
    # A dealer's screen has no acknowledge; the supervisor's note goes with the acknowledgement.
    page.get_by_label("Note for alert 1", exact=True).fill("shoe taken off the table, decks counted")
    check_every_size(page, "supervisor integrity alarm", SHOTS)
    console.tap("Acknowledge alert 1")
    supervisor_done(console)
    status = json.loads(ctl(table, "--json", "status").stdout)
    assert status["integrity"]["alerts_open"] == 0, status["integrity"]
    # Acknowledging it again is refused, naming who did.
    again = ctl(table, "send", "ack", "--set", "ident=1", "--set", "note=again", token_text=SUPERVISOR_TOKEN)
    assert again.returncode == 1 and again.stderr.strip() == "refused: alert 1 was acknowledged by sue", again
    console.supervisor_signs_in("sue")
    console.wait_text("#irregularity", "Irregularity")
    assert page.get_by_role("button", name="Acknowledge alert 1", exact=True).count() == 0
    console.tap("Void")
    console.wait_state("paying", "betting")
    supervisor_done(console)
    table.stop_station()
    report = subprocess.run([sys.executable, "-m", "station", "integrity", "report", "--journal",
                             str(table.journal)], capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    said = " ".join(report.stdout.split())  # the report wraps to the terminal's width
    assert "acknowledged by sue: shoe taken off the table, decks counted" in said, report.stdout
    acknowledged = [r["payload"] for r in table.journal_records() if r["kind"] == "AlertAcknowledged"]
    assert [(a["ident"], a["note"], a["actor"]["who"]) for a in acknowledged] == [
        (1, "shoe taken off the table, decks counted", "sue"), (1, "again", "sam")]  # the second one refused
