"""The progressive on the console's picture, without a browser (station/console/progressive.py):
the meter in the table's money, a jackpot waiting with who won what, its sign-off and a reset
said until the next round opens, and the same picture resumed from the machine's view of its
ledger after a restart (what ``station ctl status`` shows)."""

from __future__ import annotations

from station.console.progressive import ProgressivePicture
from station.console.view import ConsoleView, TableLayout
from station.core import outputs as out
from station.money import Money

EUR = Money(2, "EUR")
AWARD = {"box": "1", "player": "ann", "region": "progressive", "hand": "both_suited", "percent": 100,
         "amount": 2_000_375}


def layout(seed: int | None) -> TableLayout:
    return TableLayout("T1", "baccarat", "baccarat", "mini", ("1", "2"), ("banker", "player", "tie", "progressive"),
                       ("banker", "player"), 3, (100, 500, 2500), 500, 100_000, EUR, "UTC", progressive_seed=seed)


def test_a_table_without_a_progressive_shows_none() -> None:
    assert ConsoleView(layout(None)).to_json()["progressive"] is None


def test_the_meter_a_jackpot_its_sign_off_and_a_reset_in_the_tables_money() -> None:
    view = ConsoleView(layout(2_000_000))
    assert view.to_json()["progressive"]["meter_words"] == "Progressive Jackpot 20,000.00 EUR"
    view.apply(out.ProgressiveMeter("natural-pairs", 2_000_375, "round", 375, "1-1"), "1-1")
    view.apply(out.ProgressiveHit("1-1", "natural-pairs", 2_000_375, (AWARD,)), "1-1")
    shown = view.to_json()["progressive"]
    assert shown["meter_text"] == "20,003.75 EUR"
    assert shown["pending"]["words"] == "Jackpot! Box 1 ann wins 20,003.75 EUR \u2014 waiting for a supervisor"
    assert shown["pending"]["round_id"] == "1-1"
    view.apply(out.ProgressivePaid("1-1", "natural-pairs", (AWARD,), 2_000_375, 2_000_000, 2_000_000, "supervisor",
                                   "sue", "cheque 4411"), "1-1")
    shown = view.to_json()["progressive"]
    assert shown["pending"] is None and shown["meter_text"] == "20,000.00 EUR" and shown["jackpots"] == 1
    assert shown["news"] == "Jackpot of round 1-1 paid: 20,003.75 EUR, signed off by sue (cheque 4411)"
    view.apply(out.ProgressiveWasReset("natural-pairs", 2_000_000, 2_500_000, "casino adds", "supervisor", "sue"),
               "1-1")
    assert view.to_json()["progressive"]["news"] == (
        "Meter reset from 20,000.00 EUR to 25,000.00 EUR by sue (casino adds)")
    view.apply(out.StateChanged("betting", "paying"), "1-2")  # the next round: what was done is said no more
    assert view.to_json()["progressive"]["news"] == ""
    assert view.to_json()["progressive"]["meter"] == 2_500_000


def test_a_jackpot_waiting_is_there_again_after_a_restart() -> None:
    status = {"pool": "natural-pairs", "member": "table", "meter": 2_000_375, "seed": 2_000_000, "share_bp": 1500,
              "contributed": 375, "rebase": None, "tables": [], "latest": None,
              "pending": {"round_id": "1-1", "awards": [AWARD]}, "jackpots": 0, "paid": 0, "last_paid": None}
    shown = ProgressivePicture.resumed(EUR, status).to_json()
    assert shown["pending"]["words"] == "Jackpot! Box 1 ann wins 20,003.75 EUR \u2014 waiting for a supervisor"
    assert (shown["meter"], shown["seed_words"]) == (2_000_375, "20,000.00 EUR")
