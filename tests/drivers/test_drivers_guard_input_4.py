"""Guard tests of the input devices' key rules, fourth set (the ``drivers`` mutation guard,
docs/testing.md), through ``KeyPresses`` and ``KeyboardWedge`` with exact times.

Each test answers a mutant that survived the guard's tests:

* a released key waits out the debounce time before its press is taken, and ``next_due`` says
  how much of that time is left, so the foot switch's reader sleeps that long and no less
  (``drivers/input/presses.py``, ``next_due``);
* a keyboard-wedge reader's line holds up to 128 characters (track 1 holds 79): a line of 128
  is typed whole, the 129th character drops the line typed so far, counted once, and the line
  goes on from that character (``drivers/input/wedge.py``, ``MAX_LINE``).
"""

from __future__ import annotations

import pytest

from drivers.input.keys import key_code
from drivers.input.presses import DOWN, UP, KeyPress, KeyPresses
from drivers.input.wedge import KEY_ENTER, KeyboardWedge, WedgeCounts

F13 = key_code("KEY_F13")

#: The longest line a reader types, as a number of the rule (not read from the code).
LONGEST_LINE = 128


def test_a_released_key_is_due_once_the_debounce_time_has_passed_and_next_due_says_how_long() -> None:
    keys = KeyPresses(frozenset({F13}), debounce_s=0.030, long_press_s=0.800)
    assert keys.feed(F13, DOWN, 1.000) == []
    assert keys.feed(F13, UP, 1.100) == []
    assert keys.next_due(1.100) == pytest.approx(0.030)  # the whole debounce time is left
    assert keys.next_due(1.110) == pytest.approx(0.020)
    assert keys.due(1.129) == []
    assert keys.due(1.131) == [KeyPress(F13)]
    assert keys.next_due(1.131) is None  # nothing pending


def _type(wedge: KeyboardWedge, count: int, now: float) -> float:
    """Type ``count`` sevens a millisecond apart, from ``now``; returns the time after."""
    seven = key_code("KEY_7")
    for _ in range(count):
        now += 0.001
        assert wedge.feed(seven, 1, now) is None
    return now


def test_a_line_of_128_characters_is_typed_whole() -> None:
    wedge = KeyboardWedge()
    now = _type(wedge, LONGEST_LINE, 0.0)
    assert wedge.feed(KEY_ENTER, 1, now + 0.001) == "7" * LONGEST_LINE
    assert wedge.counts == WedgeCounts(lines=1, dropped_idle=0, dropped_long=0)


def test_the_129th_character_drops_the_line_and_the_line_goes_on_from_it() -> None:
    wedge = KeyboardWedge()
    now = _type(wedge, LONGEST_LINE + 1, 0.0)
    assert wedge.feed(KEY_ENTER, 1, now + 0.001) == "7"  # the 129th character alone
    assert wedge.counts == WedgeCounts(lines=1, dropped_idle=0, dropped_long=1)
