"""The shared wait (tests/waiting.py): returns what the predicate found, as soon as it finds
it, and fails naming what it waited for."""

from __future__ import annotations

import itertools

import pytest

from .waiting import wait_until


def test_it_returns_the_first_true_answer() -> None:
    answers = itertools.chain([0, None, ""], itertools.repeat("ready"))
    assert wait_until(lambda: next(answers), timeout=5, what="readiness", poll=0) == "ready"


def test_it_fails_naming_what_it_waited_for() -> None:
    with pytest.raises(AssertionError, match=r"waited 0.05 s for the broker to listen"):
        wait_until(lambda: False, timeout=0.05, what="the broker to listen", poll=0.01)
