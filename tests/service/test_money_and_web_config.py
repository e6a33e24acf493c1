"""Money as players read it and where the scoreboard is served: the ``[table]`` currency keys,
the tie and pair limits, ``[web] bind`` (issue 13), each refused with the key and the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.money import format_amount, format_money, format_range, minor_digits_problem
from station.service.config import parse_config

FILE = Path("station.toml")


def problem(data: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as raised:
        parse_config(data, FILE)
    return str(raised.value)


@pytest.mark.parametrize(("amount", "digits", "text"), [
    (1000, 2, "10.00"), (500000, 2, "5,000.00"), (5, 2, "0.05"), (0, 2, "0.00"), (-150050, 2, "-1,500.50"),
    (1000, 0, "1,000"), (500000, 0, "500,000"), (1234567, 3, "1,234.567"),
])
def test_amounts_are_written_from_minor_units_with_integers(amount: int, digits: int, text: str) -> None:
    assert format_amount(amount, digits) == text


def test_money_with_its_currency() -> None:
    assert format_range(1000, 500000, 2, "EUR") == "10.00 \u2013 5,000.00 EUR"
    assert format_money(1000, 0, "JPY") == "1,000 JPY" and format_money(1000, 2) == "10.00"
    with pytest.raises(TypeError):
        format_amount(10.5, 2)  # type: ignore[arg-type]  # the point of the test
    assert minor_digits_problem("EUR", 2) is None and minor_digits_problem("XYZ", 3) is None
    assert minor_digits_problem("KWD", 2) == "KWD has 3 minor digit(s) in ISO 4217, not 2"


def test_the_currency_keys_are_checked() -> None:
    config = parse_config({"table": {"currency": "JPY", "minor_digits": 0}}, FILE)
    assert (config.table.currency, config.table.minor_digits) == ("JPY", 0)
    assert "station.toml: table.minor_digits: JPY has 0 minor digit(s) in ISO 4217, not 2" in problem(
        {"table": {"currency": "JPY"}})
    assert "table.currency" in problem({"table": {"currency": "eur"}})
    assert "table.minor_digits" in problem({"table": {"minor_digits": 5}})


def test_tie_and_pair_limits_come_in_pairs() -> None:
    config = parse_config({"table": {"tie_min": 500, "tie_max": 50000, "pair_min": 500, "pair_max": 25000}}, FILE)
    assert (config.table.tie_max, config.table.pair_max) == (50000, 25000)
    assert "table.tie_max: tie limits need 0 < tie_min <= tie_max" in problem({"table": {"tie_max": 500}})
    assert "table.pair_max" in problem({"table": {"pair_min": 900, "pair_max": 500}})


def test_the_page_may_be_served_on_one_lan_address_never_on_all() -> None:
    assert parse_config({"web": {"bind": "10.20.30.41"}}, FILE).web.bind == "10.20.30.41"
    assert parse_config({"web": {"host": "::1"}}, FILE).web.bind == "::1"  # the older name of the key
    assert parse_config({}, FILE).web.bind == "127.0.0.1"
    assert "web.bind: 0.0.0.0 would serve the page on every network" in problem({"web": {"bind": "0.0.0.0"}})
    assert "web.bind: '::' is not" in problem({"web": {"bind": "::"}}) or "every network" in problem(
        {"web": {"bind": "::"}})
    assert "web.bind: 'pit-screen.local' is not an IP address" in problem({"web": {"bind": "pit-screen.local"}})
    assert "web.max_connections" in problem({"web": {"max_connections": 0}})
