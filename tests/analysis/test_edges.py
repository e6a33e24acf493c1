"""Exact percentage printing: rounding is done on fractions, never on floats."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from station.analysis.edges import fraction_text, house_edge, percent


def test_rounding_half_to_even_and_sign() -> None:
    assert percent(Fraction(1, 3)) == "33.3333"
    assert percent(Fraction(2, 3)) == "66.6667"
    assert percent(Fraction(5, 10**7)) == "0.0000"  # exactly half a unit: to even
    assert percent(Fraction(15, 10**7)) == "0.0002"
    assert percent(Fraction(-1, 80)) == "-1.2500"
    assert percent(Fraction(1, 8), 2) == "12.50"
    assert percent(Fraction(3, 1), 0) == "300"


@given(st.fractions(min_value=-10, max_value=10))
def test_percent_is_within_half_a_unit(value: Fraction) -> None:
    assert abs(Fraction(percent(value)) - value * 100) <= Fraction(1, 2 * 10**4)


def test_house_edge_is_minus_the_expected_result() -> None:
    assert house_edge(-3, 200) == Fraction(3, 200)
    assert fraction_text(Fraction(-6, 4)) == "-3/2"
