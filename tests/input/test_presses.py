"""Key events to presses (drivers/input/presses.py), with exact times: repeats ignored, chatter
debounced on release, long presses at the threshold, keys down at open not pressed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.input.presses import DOWN, REPEAT, UP, KeyPress, KeyPresses

F13, F14 = 183, 184


def presses(events: list[tuple[float, int, int]], end: float = 10.0, down_at_open: frozenset[int] = frozenset(),
            ) -> list[tuple[float, KeyPress]]:
    keys = KeyPresses(frozenset({F13, F14}), debounce_s=0.030, long_press_s=0.800)
    keys.reset(down_at_open)
    out: list[tuple[float, KeyPress]] = []
    for at, code, value in events:
        out += [(at, p) for p in keys.feed(code, value, at)]
    out += [(end, p) for p in keys.due(end)]
    return out


def test_a_tap_is_one_short_press_reported_once_the_release_has_settled() -> None:
    keys = KeyPresses(frozenset({F13}), debounce_s=0.030)
    assert keys.feed(F13, DOWN, 1.000) == []
    assert keys.feed(F13, UP, 1.120) == []
    assert keys.due(1.149) == []
    assert keys.due(1.151) == [KeyPress(F13)]
    assert keys.due(5.0) == [] and keys.counts.presses == 1


def test_autorepeat_while_held_is_ignored() -> None:
    events = [(0.0, F13, DOWN)] + [(0.25 + 0.033 * i, F13, REPEAT) for i in range(15)] + [(0.7, F13, UP)]
    assert [p for _, p in presses(events)] == [KeyPress(F13)]


def test_a_switch_that_bounces_when_it_closes_and_opens_is_one_press() -> None:
    events = [(0.000, F13, DOWN), (0.002, F13, UP), (0.004, F13, DOWN), (0.006, F13, UP), (0.009, F13, DOWN),
              (0.150, F13, UP), (0.153, F13, DOWN), (0.155, F13, UP)]
    assert [p for _, p in presses(events)] == [KeyPress(F13)]


def test_two_presses_further_apart_than_the_debounce_are_two() -> None:
    events = [(0.0, F13, DOWN), (0.1, F13, UP), (0.2, F13, DOWN), (0.3, F13, UP)]
    assert [p for _, p in presses(events)] == [KeyPress(F13), KeyPress(F13)]


def test_a_long_hold_is_a_long_press_at_the_threshold_and_its_release_says_nothing() -> None:
    keys = KeyPresses(frozenset({F13}), long_press_s=0.800)
    keys.feed(F13, DOWN, 0.0)
    assert abs((keys.next_due(0.5) or 0) - 0.3) < 1e-9
    assert keys.due(0.799) == []
    assert keys.due(0.800) == [KeyPress(F13, long=True)]
    keys.feed(F13, UP, 2.0)
    assert keys.due(3.0) == [] and keys.counts.presses == 1


def test_keys_pressed_together_are_each_a_press_and_unmapped_keys_nothing() -> None:
    events = [(0.0, F13, DOWN), (0.01, F14, DOWN), (0.02, 30, DOWN), (0.1, F14, UP), (0.2, F13, UP), (0.3, 30, UP)]
    assert sorted(p.code for _, p in presses(events)) == [F13, F14]


def test_a_key_down_when_the_device_was_opened_is_not_a_press() -> None:
    events = [(0.5, F13, UP), (1.0, F13, DOWN), (1.1, F13, UP)]
    assert [p for _, p in presses(events, down_at_open=frozenset({F13}))] == [KeyPress(F13)]  # only the next one


BOUNCES = st.lists(st.tuples(st.floats(0.0005, 0.009), st.sampled_from([DOWN, UP, REPEAT])), max_size=3)


@given(BOUNCES, st.floats(0.05, 0.6), BOUNCES)
def test_any_chatter_at_either_end_of_a_press_is_one_short_press(closing: list[tuple[float, int]], hold: float,
                                                                 opening: list[tuple[float, int]]) -> None:
    """However a switch chatters as it closes and as it opens (each bounce within the debounce
    time of the last), a press held less than the long time is one short press."""
    at, events = 0.0, [(0.0, F13, DOWN)]
    for gap, value in [*closing, (0.001, DOWN)]:
        at += gap
        events.append((at, F13, value))
    at += hold
    for gap, value in [(0.0, UP), *opening, (0.001, UP)]:
        at += gap
        events.append((at, F13, value))
    assert [p for _, p in presses(events, end=at + 1.0)] == [KeyPress(F13)]
