"""The chips on the layout on the console, in a real browser (docs/chips.md, docs/console.md):
``station run`` with its chip reader a simulator in this process, on whose layout the test
puts and takes chips as players and a dealer would.

The dealer sees, under the felt, each spot's chips beside the bet keyed there, a spot that
differs said so in words, and a flagged chip named with its UID; one tap (`Confirm chip bets`)
makes the chips the bets. While the round is paid, each box's payment is checked as its payout
zone is read; an underpayment holds the table, said over the felt; the dealer cannot accept it
(no button, and the command sent with the dealer's session is refused with the reason); the
station killed and started again holds it still; a supervisor accepts it with how it was
settled. A supervisor flags a chip on the layout by its UID (a change without its reason is
refused, the reason shown) and the panel names it at once. The layout check at every size
with the panel for the dealer and for the supervisor."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import RunningSimulator, start_simulator
from station.cards import parse_cards

from ..browser import BROWSER_MARKS
from ..chip_rig import CHIP_TABLE, chip_reader_sections, write_registry
from .conftest import ConsoleTable
from .console_page import WAIT_MS, ConsolePage, check_every_size, open_console
from .test_supervisor_browser import supervisor_done

pytestmark = [*BROWSER_MARKS, pytest.mark.e2e]  # a station, a chip reader simulator and a browser

BANKER_WINS = "KH 2D 6S 2C 3H"  # player 6, banker 4 draws a 3: banker 7 wins
ANTENNAS = {1: "spot:1:player", 2: "spot:1:banker", 3: "payout:1", 4: "spot:2:player", 5: "payout:2"}
PLAYER, BANKER, PAYOUT = 1, 2, 3
TENS = [f"E0040100000010{n:02X}" for n in range(12)]  # 10.00 each
FIVES = [f"E0040100000005{n:02X}" for n in range(6)]  # 5.00 each
ONES = [f"E0040100000001{n:02X}" for n in range(12)]  # 1.00 each
FLAGGED = "E0040100000F0001"
SHOTS = ((1280, 800), (1366, 768))


#: A full table's antennas: every box's Player and Banker spots, then every box's payout zone.
FULL = {n + 1: place for n, place in enumerate(
    [f"spot:{box}:{region}" for box in range(1, 8) for region in ("player", "banker")]
    + [f"payout:{box}" for box in range(1, 8)])}
#: More 10.00 chips, for a full table.
MORE_TENS = [f"E00401000001{n:04X}" for n in range(40)]


def chip_station(console_table: Any, directory: Path,
                 antennas: dict[int, str]) -> tuple[ConsoleTable, RunningSimulator]:
    """A mini baccarat table whose bets are its chips (one tap), a wrong payment holding it, and
    its console; its chip reader a simulator here with ``antennas`` (number to place)."""
    reader = start_simulator("chipreader", {"directory": str(directory)}, antennas=len(antennas))
    registry = write_registry(directory / "chips.csv", {"10.00": TENS + MORE_TENS, "5.00": FIVES, "1.00": ONES},
                              [f"{FLAGGED},10.00,EUR,flagged,test series,reported stolen"])
    table = console_table(table_extra=CHIP_TABLE, config_extra=chip_reader_sections(reader.url, registry, antennas))
    return table, reader


@pytest.fixture
def chip_table(console_table: Any, tmp_path: Path) -> Iterator[tuple[ConsoleTable, RunningSimulator]]:
    """The table with its antennas under box 1's and box 2's spots and payout zones."""
    table, reader = chip_station(console_table, tmp_path, ANTENNAS)
    try:
        yield table, reader
    finally:
        reader.stop()


@pytest.fixture
def full_chip_table(console_table: Any, tmp_path: Path) -> Iterator[tuple[ConsoleTable, RunningSimulator]]:
    """The table with an antenna under every box's Player and Banker spots and payout zone."""
    table, reader = chip_station(console_table, tmp_path, FULL)
    try:
        yield table, reader
    finally:
        reader.stop()


def open_stacked_shoe(console: ConsolePage, rounds: int) -> None:
    """Shuffle, cut and burn a stacked shoe (AS exposed: burn one, 2C), then ``rounds`` rounds
    the Banker wins."""
    console.wait_state("shuffling")
    console.table.shoe.simulator.load(parse_cards(f"AS 2C {' '.join([BANKER_WINS] * rounds)} 9S 9D 9C 8H 8S 8D"))
    console.act("Shuffle done", "cutting")
    console.tap("Confirm cut")
    console.page.wait_for_function("document.body.dataset.state === 'burning'", timeout=60_000)
    console.deal_until("betting")


def wait_spot(console: ConsolePage, box: str, region: str, *parts: str) -> None:
    """Until the panel shows the spot's line as ``parts`` (the station read the chips put down)."""
    console.page.wait_for_function(
        "([selector, want]) => JSON.stringify([...document.querySelectorAll(selector)].map((e) => e.innerText)) "
        "=== JSON.stringify(want)",
        arg=[f"#chip-lines .chip-spot[data-box='{box}'][data-region='{region}'] > span", list(parts)],
        timeout=WAIT_MS)


def held(console: ConsolePage) -> str:
    """Until "next round" is refused for a wrong payment and the screen says all of it: the
    refusal (returned), the panel over the felt and the dealer's line, so the screen stays as it
    is while its layout is checked."""
    refusal = console.wait_text("#refusal", "wrong payment")
    console.wait_text("#chip-hold-words", "holds the table")
    console.wait_text("[role=status]", "put the wrong payment right")
    return refusal


def named_controls(console: ConsolePage, *containers: str) -> list[str]:
    """The accessible name of every visible control in ``containers`` ("" for one without)."""
    return list(console.page.evaluate(
        """(selectors) => selectors
             .flatMap((s) => [...document.querySelectorAll(`${s} button, ${s} input, ${s} select`)])
             .filter((el) => el.getClientRects().length)
             .map((el) => (el.getAttribute('aria-label') || [...(el.labels || [])].map((l) => l.textContent).join(' ')
                           || (el.tagName === 'BUTTON' ? el.textContent : '')).trim())""", list(containers)))


def test_the_chips_on_the_layout_a_wrong_payment_and_a_flagged_chip_on_the_console(
        browser: Any, chip_table: tuple[ConsoleTable, RunningSimulator]) -> None:
    table, reader = chip_table
    layout = reader.simulator
    table.start_station()
    console = open_console(browser, table)
    page = console.page
    open_stacked_shoe(console, 2)
    assert page.get_by_role("region", name="Chips on the layout", exact=True).is_visible()

    # Chips put down: each spot's chips beside the bet keyed there (none yet), in words.
    layout.place(BANKER, TENS[0:2])
    layout.place(PLAYER, [TENS[2], FLAGGED])
    wait_spot(console, "1", "banker", "Box 1 \u00b7 Banker", "chips 20.00", "keyed 0.00", "differs")
    wait_spot(console, "1", "player", "Box 1 \u00b7 Player", "chips 10.00", "keyed 0.00", "differs")
    flagged = f"Box 1 \u00b7 Player: chip {FLAGGED} is flagged, not counted"
    console.wait_text("#chip-lines", FLAGGED)
    assert page.locator("#chip-lines .chip-bad[data-box='1']").all_inner_texts() == [flagged]
    assert console.wait_text("#layout-chips-title", "differ") == (
        "Chips on the layout \u00b7 2 spots differ from the bets: Box 1 \u00b7 Banker, Box 1 \u00b7 Player")
    assert named_controls(console, "#layout-chips") == ["Confirm chip bets"]
    check_every_size(page, "chips betting", SHOTS)

    # One tap: the chips become the bets, through the keyed bets' own checks.
    console.tap("Confirm chip bets")
    wait_spot(console, "1", "banker", "Box 1 \u00b7 Banker", "chips 20.00", "keyed 20.00", "agrees")
    wait_spot(console, "1", "player", "Box 1 \u00b7 Player", "chips 10.00", "keyed 10.00", "agrees")
    assert console.wait_text("#layout-chips-title", "^Chips on the layout$") == "Chips on the layout"
    assert sorted(page.locator("#layout .bet-text").all_inner_texts()) == ["P1: Banker 20.00", "P1: Player 10.00"]
    console.act("No more bets", "dealing")
    assert page.get_by_role("button", name="Confirm chip bets").count() == 0  # betting is closed
    console.wait_text("#layout-chips-title", "locked at no more bets")
    console.deal_until("paying")

    # Paid 10.00 of the 19.00 owed: the panel says so; "next round" is held until it is put
    # right or a supervisor accepts it.
    layout.place(PAYOUT, TENS[3:4])
    under = "Box 1 paid 10.00, owed 19.00: under by 9.00"
    assert console.wait_text("#chip-lines .chip-payment[data-box='1']", "paid 10.00") == under
    console.tap("Confirm payouts")
    page.wait_for_function("!document.querySelector('#payout-actions button')", timeout=WAIT_MS)
    console.tap("Next round")
    refusal = held(console)
    assert "a wrong payment of round 1-1: " + under in refusal, refusal
    assert console.wait_text("#chip-hold-words", "holds") == "Wrong payment: round 1-1 holds the table"
    assert page.get_by_role("region", name="Wrong payment", exact=True).is_visible()
    assert page.locator("#chip-hold-detail").inner_text() == (
        "Box 1 under by 9.00 \u2014 put the wrong payment right in the payout zone or a supervisor accepts it")
    assert page.get_by_role("button", name="Accept payment").count() == 0  # not the dealer's to do
    check_every_size(page, "chips wrong payment dealer", SHOTS)
    # The command itself, sent with the dealer's session as the page sends any: refused by role.
    page.evaluate("send('accept-payment', {round_id: '1-1', note: ''})")
    refusal = console.wait_text("#refusal", "supervisor")
    assert "accept-payment" in refusal or "only a supervisor" in refusal, refusal
    # The station killed and started again: the journal holds the table still.
    assert table.stop_station(signal.SIGKILL) == -signal.SIGKILL
    table.start_station()
    page.reload()
    console.sign_in("dee")
    assert console.wait_text("#chip-hold-words", "holds") == "Wrong payment: round 1-1 holds the table"
    assert console.wait_text("#chip-lines .chip-payment[data-box='1']", "paid") == under

    # A supervisor on the dealer's screen accepts it, with how it was settled.
    console.supervisor_signs_in("sue")
    console.wait_text("#alerts", FLAGGED)  # the flagged chip is an alarm on the supervisor's desk too
    assert named_controls(console, "#chip-hold") == ["How the payment was settled", "Accept payment"]
    page.get_by_label("How the payment was settled", exact=True).fill("paid 9.00 in cash")
    check_every_size(page, "chips wrong payment supervisor", SHOTS)
    console.tap("Accept payment")
    page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=WAIT_MS)  # the turn is over
    page.wait_for_function("document.getElementById('chip-hold').hidden", timeout=WAIT_MS)
    assert page.get_by_role("region", name="Layout", exact=True).is_visible()  # the felt back in its place
    news = console.wait_text("#chip-news", "accepted")
    assert news == "Payment of round 1-1 accepted as it lay by sue (paid 9.00 in cash)", news
    [accepted] = [r["payload"] for r in table.journal_records() if r["kind"] == "ChipPaymentAccepted"]
    assert (accepted["round_id"], accepted["actor"]["who"], accepted["note"]) == ("1-1", "sue", "paid 9.00 in cash")
    for antenna in (PAYOUT, BANKER, PLAYER):
        layout.remove(antenna)
    page.wait_for_function("!document.querySelector('#chip-lines .chip-bad')", timeout=WAIT_MS)  # the flagged chip gone
    console.act("Next round", "betting")
    assert console.wait_text("#chip-lines", "No chips") == "No chips on the betting spots"

    # A supervisor flags a chip lying on the Banker by its UID: without a reason it is refused
    # with the station's reason; with one, the chip counts no more and the panel names it.
    layout.place(BANKER, TENS[4:6])
    wait_spot(console, "1", "banker", "Box 1 \u00b7 Banker", "chips 20.00", "keyed 0.00", "differs")
    console.supervisor_signs_in("sue")
    console.tap("Chip status")
    assert named_controls(console, "#chip-status-form") == [
        "Chip UID", "New status", "Why the chip's status changes", "Set chip status"]
    assert not page.get_by_role("region", name="Layout", exact=True).is_visible()  # the felt steps aside for it
    page.get_by_label("Chip UID", exact=True).fill("E00401")  # not a UID: said at once, nothing sent
    console.tap("Set chip status")
    assert console.wait_text("#refusal", "Chip UID") == "Chip UID: 16 hexadecimal digits, as an alarm names it"
    page.get_by_label("Chip UID", exact=True).fill(TENS[5].lower())  # typed as it is read off a chip
    page.get_by_label("New status", exact=True).select_option("flagged")
    check_every_size(page, "chips chip status", SHOTS[:1])
    console.tap("Set chip status")
    assert "reason" in console.wait_text("#refusal", "reason")
    assert page.evaluate("document.body.dataset.role") == "supervisor"  # a refusal does not end the turn
    page.get_by_label("Why the chip's status changes", exact=True).fill("reported stolen at table 3")
    console.tap("Set chip status")
    page.wait_for_function("document.body.dataset.role === 'dealer'", timeout=WAIT_MS)
    wait_spot(console, "1", "banker", "Box 1 \u00b7 Banker", "chips 10.00", "keyed 0.00", "differs")
    assert page.get_by_role("region", name="Layout", exact=True).is_visible()
    assert page.locator("#chip-lines .chip-bad[data-box='1']").all_inner_texts() == [
        f"Box 1 \u00b7 Banker: chip {TENS[5]} is flagged, not counted"]
    assert console.wait_text("#chip-news", "flagged") == f"Chip {TENS[5]} flagged by sue (reported stolen at table 3)"
    [changed] = [r["payload"] for r in table.journal_records() if r["kind"] == "ChipStatusSet"]
    assert (changed["uid"], changed["status"], changed["actor"]["who"]) == (TENS[5], "flagged", "sue")
    check_every_size(page, "chips flagged", SHOTS[:1])
    table.stop_station()


def test_a_full_tables_chips_scroll_in_their_own_region_and_the_layout_holds(
        browser: Any, full_chip_table: tuple[ConsoleTable, RunningSimulator]) -> None:
    """Seven boxes read, Player and Banker each, a flagged chip among them: more lines than the
    room under the felt holds, in betting, paying and held by seven wrong payments, for the
    dealer and the supervisor; they scroll in their own region, every one of them seen whole."""
    table, reader = full_chip_table
    layout = reader.simulator
    antenna = {place: number for number, place in FULL.items()}
    table.start_station()
    console = open_console(browser, table)
    page = console.page
    open_stacked_shoe(console, 1)
    chips = iter(MORE_TENS)
    for box in range(1, 8):
        layout.place(antenna[f"spot:{box}:banker"], [next(chips), next(chips)])
        layout.place(antenna[f"spot:{box}:player"], [next(chips)] + ([FLAGGED] if box == 3 else []))
    page.wait_for_function("document.querySelectorAll('#chip-lines .chip-spot.differs').length === 14 && "
                           "document.querySelectorAll('#chip-lines .chip-bad').length === 1", timeout=WAIT_MS)
    title = "Chips on the layout \u00b7 14 spots differ from the bets"
    assert console.wait_text("#layout-chips-title", "differ") == title
    check_every_size(page, "chips full table betting", SHOTS[:1])
    console.tap("Confirm chip bets")
    page.wait_for_function("document.querySelectorAll('#chip-lines .chip-spot.agrees').length === 14 && "
                           "!ui.sending.size", timeout=WAIT_MS)  # drawn, and the tap answered
    check_every_size(page, "chips full table confirmed", SHOTS[:1])
    console.act("No more bets", "dealing")
    console.deal_until("paying")
    for box in range(1, 8):
        layout.place(antenna[f"payout:{box}"], [next(chips)])
    page.wait_for_function(  # every zone read: the picture does not change while the layout is checked
        "[...document.querySelectorAll('#chip-lines .chip-payment-under')].filter((l) => "
        "l.innerText.includes('paid 10.00')).length === 7", timeout=WAIT_MS)
    check_every_size(page, "chips full table paying", SHOTS[:1])
    console.tap("Next round")
    held(console)
    check_every_size(page, "chips full table held dealer", SHOTS[:1])
    console.supervisor_signs_in("sue")
    check_every_size(page, "chips full table held supervisor", SHOTS[:1])
    table.stop_station()


def test_a_supervisor_counts_the_opener_from_the_tray_antenna(browser: Any, console_table: Any,
                                                               tmp_path: Path) -> None:
    """At a table whose chip reader has an antenna under the tray, the chip tray's form offers
    `Count from the tray antenna` (docs/tray.md): the opener is the tray's stable read, signed
    with the witness typed as for a count by hand, and listed as the antenna's; the layout check
    at every size with the button."""
    table, reader = chip_station(console_table, tmp_path, {1: "tray"})
    try:
        table.start_station()
        console = open_console(browser, table)
        page = console.page
        reader.simulator.place(1, [TENS[0], TENS[1], FIVES[0]])
        table.wait_for(lambda s: (s["chips"]["places"].get("tray") or {}).get("amount") == 2500)
        console.supervisor_signs_in("sue")
        console.tap("Chip tray")
        page.get_by_label("Count", exact=True).select_option("opener")
        page.get_by_label("Witness", exact=True).fill("dee")
        check_every_size(page, "supervisor chip tray with its antenna", SHOTS[:1])
        console.tap("Count from the tray antenna")
        supervisor_done(console)
        [opener] = [r["payload"] for r in table.journal_records() if r["kind"] == "TrayCounted"]
        assert (opener["what"], opener["chips"], opener["counted_by"], opener["witness"], opener["actor"]["who"]) == (
            "opener", [], "reader", "dee", "sue")
        console.supervisor_signs_in("sue")
        console.tap("Chip tray")
        assert console.wait_text("#tray-state", "by the tray antenna").startswith(
            "Opening 1 open (entries 1 opener by the tray antenna): opener 25.00")
        table.stop_station()
    finally:
        reader.stop()
