"""Money as people read it, held to account piece by piece (the ``money`` mutation guard,
docs/testing.md): every currency's minor digits against ISO 4217 as written out here, the
bounds of the digits, a signed amount, the words of odds and of a correction's difference,
box and card names, and every bound of a change of limits (docs/limits.md)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from station.console.words import box_name, card_text, decision_words, difference_words, payout_words
from station.games.layout import SettledBet
from station.games.limits import LIMIT_KEYS, LimitsError, TableLimits, chip_words, limits_words
from station.money import MAX_MINOR_DIGITS, MINOR_DIGITS, Money, minor_digits_problem

#: ISO 4217's minor units of the currencies the station knows, from the standard's list (not
#: from the station's table: a slip in either shows here).
ISO_4217 = {
    **dict.fromkeys(["AED", "ARS", "AUD", "BGN", "BRL", "CAD", "CHF", "CNY", "COP", "CZK", "DKK", "EUR", "GBP",
                     "HKD", "HUF", "IDR", "ILS", "INR", "KHR", "LAK", "MOP", "MXN", "MYR", "NOK", "NZD", "PEN",
                     "PHP", "PLN", "QAR", "RON", "RSD", "RUB", "SEK", "SGD", "THB", "TRY", "TWD", "UAH", "USD",
                     "ZAR"], 2),
    **dict.fromkeys(["CLP", "ISK", "JPY", "KRW", "VND", "XAF", "XOF"], 0),
    **dict.fromkeys(["BHD", "JOD", "KWD", "OMR", "TND"], 3),
}


def test_every_currency_s_digits_are_iso_4217_s() -> None:
    assert MINOR_DIGITS == ISO_4217
    for code, digits in ISO_4217.items():
        assert minor_digits_problem(code, digits) is None
        assert minor_digits_problem(code, digits + 1) == f"{code} has {digits} minor digit(s) in ISO 4217, not " \
                                                          f"{digits + 1}"


@pytest.mark.parametrize(("digits", "problem"), [
    (-1, "-1 digits: ISO 4217 minor units have 0 to 4"), (0, None), (MAX_MINOR_DIGITS, None),
    (5, "5 digits: ISO 4217 minor units have 0 to 4"),
])
def test_the_digits_of_a_currency_not_in_the_table(digits: int, problem: str | None) -> None:
    assert MAX_MINOR_DIGITS == 4
    assert minor_digits_problem("XYZ", digits) == problem


@pytest.mark.parametrize(("amount", "text"), [(1900, "+19.00"), (0, "0.00"), (-2000, "-20.00"), (1, "+0.01")])
def test_a_gain_or_a_loss_always_says_its_sign(amount: int, text: str) -> None:
    assert Money(2, "EUR").signed(amount) == text


@pytest.mark.parametrize(("stake", "net", "odds"), [
    (2000, 1000, "1 to 2"),  # a no-commission Banker win on 6
    (2000, 3000, "on 20.00"),  # no odds a table pays: said by its stake
    (1000, 800, "4 to 5"),  # no simple odds: said by its stake
    (1000, 1000, "even money"), (1000, 8000, "8 to 1"),
])
def test_odds_in_words(stake: int, net: int, odds: str) -> None:
    bet = SettledBet("1", "ann", "player", stake, stake, 0, "win", net)
    line = payout_words(bet, Money(2))[1]
    assert line == f"Box 1 · ann · Player: pay {Money(2)(net)} ({'on 10.00' if odds == '4 to 5' else odds})"


def test_a_correction_s_difference_pays_or_takes_back() -> None:
    assert difference_words("2", "bo", "tie", 500, Money(2)) == "Box 2 · bo · Tie: pay 5.00 more"
    assert difference_words("2", "bo", "tie", -500, Money(2)) == "Box 2 · bo · Tie: take back 5.00"
    assert difference_words("2", "bo", "tie", 0, Money(2)) == "Box 2 · bo · Tie: take back 0.00"
    assert difference_words("2", "bo", "tie", 1, Money(2)) == "Box 2 · bo · Tie: pay 0.01 more"


def test_names_people_read() -> None:
    assert [box_name(b) for b in ("3", "S2", "s4", "Sx", " 7 ")] == ["Box 3", "Standing 2", "Standing 4", "Box Sx",
                                                                     "Box 7"]
    assert [card_text(c) for c in ("TS", "AH", "9D", "KC", "AZ")] == ["10♠", "A♥", "9♦", "K♣", "AZ"]
    assert decision_words("resume", "supervisor_called") == "Go on with the round"
    assert decision_words("resume", "no such reason") == "Go on as if nothing happened (held cards are checked again)"
    assert decision_words("void", "supervisor_called") != "Go on with the round"


def test_the_limits_are_checked_at_their_bounds() -> None:
    base = TableLimits(1000, 500_000, (100, 500))
    assert base.to_json() == {"min_bet": 1000, "max_bet": 500_000, "chips": [100, 500], "differential": 0,
                              "tie_min": 0, "tie_max": 0, "pair_min": 0, "pair_max": 0, "box_max": 0, "player_max": 0}
    keys = LIMIT_KEYS
    assert base.changed({"differential": 1000}, keys).differential == 1000  # at the minimum: allowed
    assert base.changed({"max_bet": 1000}, keys).max_bet == 1000  # minimum and maximum the same
    assert base.changed({"tie_min": 500, "tie_max": 500}, keys).tie_max == 500
    assert base.changed({"chips": [500, 100]}, keys).chips == (100, 500)
    # The smallest amounts a table can have: a minor unit, a chip of one, a Tie line of one.
    smallest = TableLimits(1, 1, (1, 5), tie_min=1, tie_max=1)
    assert (smallest.min_bet, smallest.chips, smallest.tie_min) == (1, (1, 5), 1)
    assert TableLimits.from_json({**smallest.to_json(), "chips": [5, 1]}) == smallest
    refusals: dict[str, dict[str, Any]] = {
        "min_bet: must be above 0, got 0.00": {"min_bet": 0},
        "chips: chip denominations are positive whole minor units, got [0, 100]": {"chips": [0, 100]},
        "chips: chip denominations are positive whole minor units, got [True]": {"chips": [True]},
        "chips: give at least one chip denomination, got ()": {"chips": []},
        "tie_max: tie limits need 0 < tie_min <= tie_max (both 0: none), got 0.00 - 5.00": {"tie_max": 500},
        "pair_max: pair limits need 0 < pair_min <= pair_max (both 0: none), got 6.00 - 5.00": {
            "pair_min": 600, "pair_max": 500},
        "differential: a differential of 9.99 is below the table minimum 10.00": {"differential": 999},
        "box_max: must be a whole number of minor units, 0 or more, got True": {"box_max": True},
    }
    for reason, change in refusals.items():
        with pytest.raises(LimitsError) as refused:
            base.changed(change, keys)
        assert str(refused.value) == reason
    with pytest.raises(LimitsError, match="give at least one chip denomination"):
        TableLimits(1000, 500_000, ())
    with pytest.raises(LimitsError, match="give at least one chip denomination, got 100"):
        TableLimits(1000, 500_000, 100)  # type: ignore[arg-type]


def test_the_limits_of_a_configuration_and_in_words() -> None:
    baccarat = SimpleNamespace(min_bet=1000, max_bet=500_000, chips=[500, 100], differential=0, tie_min=100,
                               tie_max=5000, pair_min=0, pair_max=0)  # no [table.war]: no box or player maximum
    limits = TableLimits.from_settings(baccarat)
    assert (limits.box_max, limits.player_max, limits.chips) == (0, 0, (100, 500))
    assert TableLimits.from_json(limits.to_json()) == limits
    money = Money(2)
    assert limits_words(limits.to_json(), money) == "10.00 - 5,000.00, chips 1.00 5.00, Tie 1.00 - 50.00"
    assert limits_words(limits.to_json(), money, chips=False) == "10.00 - 5,000.00, Tie 1.00 - 50.00"
    assert chip_words(limits.to_json(), money) == "chips        1.00 5.00"
    war = TableLimits(1000, 100_000, (100,), box_max=20_000, player_max=10_000, differential=2000)
    assert limits_words(war.to_json(), money) == ("10.00 - 1,000.00, chips 1.00, differential 20.00, "
                                                  "box max 200.00, player max 100.00")
