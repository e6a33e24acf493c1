"""The odds and the statistics at their bounds, found unguarded by mutation testing
(tools/mutate.py, docs/testing.md): each test here fails on a mutant that survived the rest of
the tests."""

from __future__ import annotations

import pytest

from station.analysis.baccarat_odds import CompositionTooSmall, count_rounds
from station.analysis.round_table import MAX_ROUND_CARDS
from station.integrity.edges import fast_count_rounds


def test_the_fast_count_takes_a_shoe_of_exactly_the_cards_a_round_may_need() -> None:
    """Six cards (the most a round takes) are enough for the odds; five are not."""
    assert MAX_ROUND_CARDS == 6
    six = [0, 1, 0, 1, 1, 0, 1, 0, 1, 1]  # a ten-value, a 3, a 4, a 6, an 8 and a 9
    assert fast_count_rounds(six) == count_rounds(six)
    five = [0, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    with pytest.raises(CompositionTooSmall, match="5 cards left"):
        fast_count_rounds(five)


def test_the_p_value_of_two_degrees_of_freedom_is_exact() -> None:
    """With df 2, P(X >= x) is exp(-x/2): the continued fraction (x/2 from 2 on) gives it to
    within 1e-14, where it has converged, over the whole range the outcomes test sees."""
    from math import exp, isclose

    from station.integrity import stats

    for k in range(0, 600):
        x = 4.0 + k / 10
        assert isclose(stats.chi2_sf(x, 2), exp(-x / 2), rel_tol=1e-14), x


def test_a_streak_longer_than_the_results_has_no_chance_at_all() -> None:
    from station.integrity import stats

    for n, p in ((10, 0.5068), (3, 0.3), (25, 0.4932)):
        assert stats.longest_streak_tail(n, p, n + 1) == 0.0
        assert stats.longest_streak_tail(n, p, n) > 0.0


def test_the_p_value_of_any_even_degrees_of_freedom_is_its_closed_form() -> None:
    """For df = 2k, P(X >= x) = exp(-x/2) * sum of (x/2)^j / j! for j < k: both methods (the
    series below x/2 = k + 1, the continued fraction above) agree with it to 1e-12."""
    from math import exp, factorial, isclose

    from station.integrity import stats

    for k in (2, 3, 5, 8):
        for step in range(1, 200):
            x = step / 4
            half = x / 2
            exact = exp(-half) * sum(half**j / factorial(j) for j in range(k))
            assert isclose(stats.chi2_sf(x, 2 * k), exact, rel_tol=1e-12), (k, x)


def test_casino_war_offers_the_tie_wager_only_where_the_layout_has_it() -> None:
    from station.integrity.edges import offered_wagers

    with_tie = [w.key for w in offered_wagers("war", ("war", "tie"), None)]
    assert with_tie == ["casino_war_go_to_war", "casino_war_surrender", "tie_wager_10_to_1"]
    assert [w.key for w in offered_wagers("war", ("war",), None)] == ["casino_war_go_to_war", "casino_war_surrender"]


def test_counts_and_expectations_of_different_lengths_are_refused() -> None:
    from station.integrity import stats

    with pytest.raises(ValueError, match="zip"):
        stats.chi_squared("outcomes", [10, 20, 30], [20.0, 20.0])
