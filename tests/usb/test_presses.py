"""Presses from reports: each press exactly once, whatever the link duplicates or loses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.usb.codec import PedalReport
from drivers.usb.presses import Press, PressTracker
from drivers.usb.protocol import EventType

DOWN, UP, LONG = EventType.DOWN, EventType.UP, EventType.LONG


def reports(*events: tuple[EventType, int, bool], start: int = 0) -> list[PedalReport]:
    """Reports with consecutive sequence numbers; the held bitmap follows the events."""
    held = 0
    out = []
    for offset, (event, button, long) in enumerate(events):
        held = held & ~(1 << button) if event is UP else held | (1 << button)
        out.append(PedalReport((start + offset) % 256, event, button, held, long=long))
    return out


def feed_all(tracker: PressTracker, items: list[PedalReport]) -> list[Press]:
    return [press for report in items for press in tracker.feed(report)]


def test_short_press_fires_on_release_only() -> None:
    tracker = PressTracker()
    down, up = reports((DOWN, 0, False), (UP, 0, False))
    assert tracker.feed(down) == []
    assert tracker.feed(up) == [Press(0, long=False)]


def test_long_press_fires_at_the_threshold_and_not_again_on_release() -> None:
    tracker = PressTracker()
    down, long, up = reports((DOWN, 1, False), (LONG, 1, False), (UP, 1, True))
    assert tracker.feed(down) == []
    assert tracker.feed(long) == [Press(1, long=True)]
    assert tracker.feed(up) == []


def test_lost_long_report_still_gives_one_long_press_on_release() -> None:
    tracker = PressTracker()
    down, _lost, up = reports((DOWN, 1, False), (LONG, 1, False), (UP, 1, True))
    assert feed_all(tracker, [down, up]) == [Press(1, long=True)]
    assert tracker.counts.lost == 1


def test_duplicate_report_is_skipped() -> None:
    tracker = PressTracker()
    down, up = reports((DOWN, 0, False), (UP, 0, False))
    assert feed_all(tracker, [down, down, up, up]) == [Press(0, long=False)]
    assert tracker.counts.duplicates == 2


def test_long_fired_for_an_earlier_press_does_not_swallow_a_later_short_press() -> None:
    """LONG seen, then that press's UP and the next DOWN lost: the short UP still fires."""
    tracker = PressTracker()
    items = reports((DOWN, 0, False), (LONG, 0, False), (UP, 0, True), (DOWN, 0, False), (UP, 0, False))
    assert feed_all(tracker, [items[0], items[1], items[4]]) == [Press(0, long=True), Press(0, long=False)]


def test_sequence_wraps_without_counting_loss() -> None:
    tracker = PressTracker()
    items = reports((DOWN, 2, False), (UP, 2, False), (DOWN, 2, False), (UP, 2, False), start=254)
    assert [r.sequence for r in items] == [254, 255, 0, 1]
    assert feed_all(tracker, items) == [Press(2, False), Press(2, False)]
    assert tracker.counts.lost == 0


def test_reset_accepts_a_restarted_device() -> None:
    tracker = PressTracker()
    feed_all(tracker, reports((DOWN, 0, False), (UP, 0, False), start=40))
    tracker.reset()
    assert feed_all(tracker, reports((DOWN, 0, False), (UP, 0, False), start=0)) == [Press(0, False)]
    assert tracker.counts.lost == 0 and tracker.counts.duplicates == 0


press_kinds = st.lists(st.tuples(st.integers(0, 7), st.booleans()), max_size=40)


@settings(max_examples=200)
@given(press_kinds, st.integers(0, 255), st.sets(st.integers(0, 119)))
def test_every_press_once_even_with_each_report_duplicated(
    kinds: list[tuple[int, bool]], start: int, dup: set[int]
) -> None:
    events: list[tuple[EventType, int, bool]] = []
    for button, long in kinds:
        events.append((DOWN, button, False))
        if long:
            events.append((LONG, button, False))
        events.append((UP, button, long))
    stream = []
    for index, report in enumerate(reports(*events, start=start)):
        stream.append(report)
        if index in dup:
            stream.append(report)
    assert feed_all(PressTracker(), stream) == [Press(b, long) for b, long in kinds]
