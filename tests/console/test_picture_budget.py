"""The console's picture budget (station/console/picture_budget.py): a few pictures at once,
the sustained rate held, a change after a pause never held back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.console.picture_budget import PictureBudget


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_goes_at_once_then_the_rate_holds_and_a_pause_refills() -> None:
    clock = Clock()
    budget = PictureBudget(10.0, 3, clock)
    for _ in range(3):
        assert budget.wait_s() == 0.0
        budget.spend()
    assert budget.wait_s() == pytest.approx(0.1)  # the fourth at once waits one interval
    clock.now += 0.04
    assert budget.wait_s() == pytest.approx(0.06)
    clock.now += 0.06
    assert budget.wait_s() == 0.0
    budget.spend()
    clock.now += 1.0  # a person's pause: the whole burst is back, no more
    for _ in range(3):
        assert budget.wait_s() == 0.0
        budget.spend()
    assert budget.wait_s() > 0


def test_a_change_every_fifth_of_a_second_is_never_held_back() -> None:
    """A chip put down, taken off, put down again at a person's pace: each at once."""
    clock = Clock()
    budget = PictureBudget(10.0, 3, clock)
    for _ in range(100):
        assert budget.wait_s() == 0.0
        budget.spend()
        clock.now += 0.2


@given(st.lists(st.floats(min_value=0.0, max_value=0.5), min_size=1, max_size=200))
def test_no_window_holds_more_pictures_than_the_burst_and_the_rate_allow(gaps: list[float]) -> None:
    clock = Clock()
    budget = PictureBudget(10.0, 3, clock)
    sent: list[float] = []
    for gap in gaps:
        clock.now += gap
        clock.now += budget.wait_s()  # the worker waits as told, then sends
        budget.spend()
        sent.append(clock.now)
    for i, start in enumerate(sent):
        within = [t for t in sent[i:] if t - start <= 1.0]
        assert len(within) <= 3 + 10 * 1.0 + 1e-9


def test_a_budget_without_a_rate_or_a_burst_is_refused() -> None:
    with pytest.raises(ValueError, match="rate above 0"):
        PictureBudget(0.0, 3)
    with pytest.raises(ValueError, match="burst from 1"):
        PictureBudget(10.0, 0)
