"""The console's parts without a browser: PIN hashes, sessions and the wrong-PIN limit on a
clock the test turns, the words of every kind of payout, and the picture folded from outputs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from station.cards import parse_card
from station.chip_inputs import ChipsOnPlace
from station.chips.registry import ChipStanding, ChipStatus
from station.config.pins import PinError, hash_pin, pin_problem, stored_problem, verify_pin
from station.console.sessions import MAX_FAILURES, SUPERVISOR_TURN_S, SessionBook, User
from station.console.settings import ConsoleSection
from station.console.view import ConsoleView, TableLayout
from station.console.words import in_chips, input_words, payout_words, region_label, settled_lines
from station.core import outputs as out
from station.core.chip_table import ChipRules
from station.core.rounds import RoundId
from station.events import Actor, TrayCorrected, TrayCounted
from station.games.layout import SettledBet
from station.money import Money

EUR = Money(2, "EUR")
DEALER, OTHER, SUPERVISOR = User("dee", "dealer", ""), User("dan", "dealer", ""), User("sue", "supervisor", "")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_pin_is_stored_salted_and_slow_and_checked_in_full() -> None:
    first, second = hash_pin("1234"), hash_pin("1234")
    assert first != second and first.startswith("scrypt$16384$8$1$") and "1234" not in first
    assert verify_pin("1234", first) and verify_pin("1234", second)
    assert not verify_pin("1235", first) and not verify_pin("", first) and not verify_pin("1234", "garbage")
    assert stored_problem(first) is None and stored_problem("sha256$abc")
    assert pin_problem("12") and pin_problem("12a4") and pin_problem("1234") is None
    with pytest.raises(PinError, match="4 to 12 digits"):
        hash_pin("abc")


def test_five_wrong_pins_a_minute_then_a_wait() -> None:
    clock = Clock()
    book = SessionBook(600, clock)
    for _ in range(MAX_FAILURES):
        assert book.wait_s("sue") == 0
        book.failed("sue")
        clock.now += 1
    assert book.wait_s("sue") == pytest.approx(55)
    assert book.wait_s("dee") == 0  # another name is not held up
    clock.now += 55
    assert book.wait_s("sue") == 0


def test_idle_sessions_end_and_a_supervisor_has_one_turn_on_a_dealers_screen() -> None:
    clock = Clock()
    book = SessionBook(600, clock)
    session = book.sign_in(DEALER, None).session
    assert session is not None and session.csrf and session.csrf != session.ident
    assert book.look_up(session.ident).session is session
    turn = book.sign_in(SUPERVISOR, session)
    assert turn.session is session and session.acting is SUPERVISOR and turn.acting is SUPERVISOR
    assert session.describe()["turn"] == 1
    assert turn.turn is not None
    book.decided(turn.turn)
    # Each change of who acts is a newer turn: a screen told of turn 1 after turn 2 keeps turn 2.
    assert session.acting is DEALER and session.describe()["turn"] == 2
    book.sign_in(SUPERVISOR, session)
    clock.now += SUPERVISOR_TURN_S + 1
    assert book.look_up(session.ident).standing == "own" and session.acting is DEALER  # the turn ran out
    assert session.describe()["turn"] == 4
    assert book.sign_out(book.look_up(session.ident)) == "session" and book.look_up(session.ident).standing == "none"
    first = book.sign_in(DEALER, None).session
    other = book.sign_in(OTHER, first).session  # a new dealer's shift: a session of their own
    assert other is not None and other.user is OTHER
    clock.now += 601
    assert book.look_up(other.ident).standing == "none" and book.counters.idle_signed_out == 1


@pytest.mark.parametrize(("bet", "action", "line"), [
    (SettledBet("3", "ann", "banker", 2000, 2000, 0, "win", 1900, 100), "pay",
     "Box 3 · ann · Banker: pay 19.00 (20.00 less 1.00 commission)"),
    (SettledBet("3", "ann", "banker", 2500, 2000, 500, "win", 1900, 100), "pay",
     "Box 3 · ann · Banker: pay 19.00 (20.00 less 1.00 commission); return 5.00 (void part, over the chip-exact "
     "limit)"),
    (SettledBet("1", "bo", "tie", 500, 500, 0, "win", 4000), "pay", "Box 1 · bo · Tie: pay 40.00 (8 to 1)"),
    (SettledBet("1", "bo", "banker", 2000, 2000, 0, "win", 1000), "pay", "Box 1 · bo · Banker: pay 10.00 (1 to 2)"),
    (SettledBet("2", "cy", "player", 1000, 1000, 0, "lose", -1000), "take", "Box 2 · cy · Player: take 10.00"),
    (SettledBet("2", "cy", "player", 1000, 1000, 0, "push", 0), "push",
     "Box 2 · cy · Player: push, 10.00 stays the player's"),
    (SettledBet("4", "di", "war", 1000, 1000, 0, "surrender", -500), "take",
     "Box 4 · di · War: surrender, take 5.00 and return 5.00"),
    (SettledBet("S2", "ed", "player", 1000, 0, 1000, "void", 0), "return",
     "Standing 2 · ed · Player: return 10.00 (void)"),
    (SettledBet("1", "ann", "progressive", 500, 500, 0, "win", 0), "jackpot",
     "Box 1 · ann · Progressive: jackpot, paid at a supervisor's sign-off; 5.00 stays the player's"),
])
def test_every_payout_in_words(bet: SettledBet, action: str, line: str) -> None:
    assert payout_words(bet, EUR) == (action, line)


def test_a_network_address_needs_tls() -> None:
    with pytest.raises(ValueError, match="only over TLS"):
        ConsoleSection(bind="192.168.1.20")
    with pytest.raises(ValueError, match="go together"):
        ConsoleSection(tls_cert="/etc/cert.pem")
    assert ConsoleSection(bind="192.168.1.20", tls_cert="c.pem", tls_key="k.pem").url == "https://192.168.1.20:8081/"
    assert ConsoleSection().url == "http://127.0.0.1:8081/"


def layout() -> TableLayout:
    return TableLayout("T1", "baccarat", "baccarat", "mini", ("1", "2"), ("banker", "player", "tie"),
                       ("banker", "player"), 3, (500, 1000, 2000), 500, 100_000, EUR, "Europe/Vienna")


def fold(view: ConsoleView, *steps: tuple[Any, str]) -> dict[str, Any]:
    for output, round_id in steps:
        view.apply(output, round_id)
    return view.to_json()


def test_the_picture_follows_a_round_and_keeps_the_bets_a_tie_leaves_on() -> None:
    view = ConsoleView(layout())
    round_1 = RoundId(1, 1)
    card = parse_card
    tie = (("player", (card("9S"), card("KH"))), ("banker", (card("9D"), card("QC"))))
    bets = (SettledBet("1", "ann", "banker", 2000, 2000, 0, "push", 0), SettledBet("2", "bo", "tie", 500, 500, 0, "win",
                                                                                  4000))
    shown = fold(view, (out.BetAccepted(round_1, "1", "ann", "banker", 2000), "1-1"),
                 (out.BetAccepted(round_1, "2", "bo", "tie", 500), "1-1"),
                 (out.CardRevealed(round_1, "player", 1, card("9S")), "1-1"),
                 (out.RoundSettled(round_1, "baccarat", tie, (("player", 9), ("banker", 9)), "tie", True, False, False,
                                   bets, -4000, carried=((("1", "ann", "banker"), 2000),)), "1-1"),
                 (out.PayoutsDue(round_1, ("1", "2")), "1-1"),
                 (out.PayoutsConfirmation(round_1, ("2",), ("1",), "dealer", "dee"), "1-1"))
    assert shown["cards"] == [{"position": "player", "index": 1, "card": "9S", "text": "9♠"}]
    payouts = shown["payouts"]
    assert payouts["pending"] == ["1"] and payouts["house"] == "-40.00 EUR"
    assert [line["text"] for line in payouts["lines"]] == [
        "Box 1 · ann · Banker: push, 20.00 stays the player's", "Box 2 · bo · Tie: pay 40.00 (8 to 1) = 2 × 20.00"]
    shown = fold(view, (out.StateChanged("betting", "paying"), "1-2"))
    assert shown["round"] == "1-2" and shown["cards"] == []
    assert shown["bets"] == [{"box": "1", "player": "ann", "region": "banker", "amount": 2000, "text": "Banker 20.00"}]


def test_a_payout_in_the_tables_chips_and_the_lines_in_the_order_of_the_boxes() -> None:
    chips = (100, 500, 1000, 2000, 2500)
    paid = SettledBet("3", "ann", "banker", 2000, 2000, 0, "win", 1900, 100)
    assert payout_words(paid, EUR, chips) == ("pay", "Box 3 · ann · Banker: pay 19.00 (20.00 less 1.00 commission) "
                                                     "= 1 × 10.00, 1 × 5.00, 4 × 1.00")
    assert in_chips(9500, chips, EUR) == "3 × 25.00, 1 × 20.00"
    assert in_chips(250, (100, 500), EUR) == "", "not made exactly by the chips: the amount alone"
    lines = settled_lines([SettledBet("10", "a", "tie", 500, 500, 0, "lose", -500), paid,
                           SettledBet("S1", "b", "player", 1000, 1000, 0, "win", 1000),
                           SettledBet("2", "c", "player", 1000, 1000, 0, "push", 0)], EUR, chips)
    assert [line["box"] for line in lines] == ["2", "3", "10", "S1"]
    assert lines[3]["text"] == "Standing 1 · b · Player: pay 10.00 (even money) = 1 × 10.00"


@pytest.mark.parametrize(("kind", "words"), [("PayoutsConfirmed", "Payouts confirmed"),
                                              ("NoMoreBets", "No more bets"), ("BetPlaced", "Bet placed"),
                                              ("CardDealt", "Card dealt")])
def test_an_input_s_kind_in_words(kind: str, words: str) -> None:
    assert input_words(kind) == words


def test_the_chips_offered_are_the_table_s_up_to_its_maximum_each_with_ink_that_reads_on_it() -> None:
    from station.config.chip_colours import chip_colour

    chips = (100, 500, 2500, 10000, 50000)
    layout = TableLayout("t", "baccarat", "Mini Baccarat", "mini", ("1",), ("banker",), (), 1, chips, 500, 10000,
                         Money(2, "EUR"), "UTC", chip_shades=tuple(chip_colour(c, 2, {"2500": "black"}) for c in chips))
    offered = layout.to_json()["chips"]
    assert [(c["text"], c["colour"], c["ink"]) for c in offered] == [
        ("1.00", "#f4f1ea", "#111111"), ("5.00", "#c62828", "#ffffff"), ("25.00", "#1b1b1b", "#ffffff"),
        ("100.00", "#1b1b1b", "#ffffff")]  # 500.00 is over the table's maximum of 100.00
    assert chip_colour(100, 0, {}) == "#1b1b1b" and chip_colour(7, 2, {}) == "#8a8f98"  # 100 JPY black; 0.07 grey


def test_the_tray_form_lists_an_entry_the_tray_antenna_counted_as_its_own_and_after_a_restart(
        make_table: Any) -> None:
    """docs/tray.md: the picture folded from the core's outputs and the one resumed from the
    machine after a restart both list the antenna's opener as such (a hand count as before, and
    the opener once corrected by hand); the layout tells the page whether to offer the antenna's
    count."""
    table = make_table(chips=ChipRules())
    sue = Actor("supervisor", "sue")
    table.post(ChipsOnPlace("tray", (ChipStanding("E004010000000001", ChipStatus.ACTIVE, 500),)),
               TrayCounted("opener", (), "dee", sue, counted_by="reader"),
               TrayCounted("fill", ((500, 2),), "rob", sue, "F-1"))
    table.restart()
    resumed = ConsoleView(layout())
    resumed.resume(table.machine)
    assert resumed.to_json()["tray"]["entries"] == ["1 opener by the tray antenna", "2 fill"]
    table.post(TrayCorrected(1, "recounted", sue, ((500, 2),)))
    folded = ConsoleView(replace(layout(), tray_antenna=True))
    for output in table.outputs:
        folded.apply(output, "")
    shown = folded.to_json()
    assert shown["tray"]["entries"] == ["1 opener by the tray antenna", "2 fill", "3 opener (corrects 1)"]
    assert shown["table"]["tray_antenna"] is True and ConsoleView(layout()).to_json()["table"]["tray_antenna"] is False
    table.restart()
    resumed = ConsoleView(layout())
    resumed.resume(table.machine)
    assert resumed.to_json()["tray"]["entries"] == ["1 opener", "2 fill"]  # the opener's counts are the hand's now


def test_a_side_bet_is_drawn_as_one_and_a_main_bet_is_not() -> None:
    """The console draws side bets two to a row under the main bets: a label says which."""
    assert region_label("player_pair") == {"region": "player_pair", "name": region_label("player_pair")["name"],
                                           "short": "P Pair", "side": True}
    assert region_label("dragon_bonus_banker")["side"] is True
    assert [region_label(main)["side"] for main in ("player", "banker", "tie")] == [False, False, False]
