"""The monitor's record of a shoe and its checkpoint form, found unguarded by mutation testing
(tools/mutate.py, docs/testing.md): each test fails on a mutant that survived the rest."""

from __future__ import annotations

import pytest

from station.cards import FULL_DECK, ShoeComposition
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.integrity.monitor import IntegrityMonitor
from station.integrity.monitor_state import MONITOR_FORMAT, monitor_state, restore_monitor


def _shoe_start(monitor: IntegrityMonitor, shoe: int) -> None:
    comp = ShoeComposition(8)
    monitor.feed(out.CardsAccounted(shoe, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))


def _rounds(monitor: IntegrityMonitor, shoe: int, outcomes: list[str]) -> None:
    for n, outcome in enumerate(outcomes, start=1):
        monitor.feed(out.RoundSettled(RoundId(shoe, n), "baccarat", (), (), outcome, False, False, False, (), 0))
        monitor.feed(out.CardsAccounted(shoe, f"{shoe}-{n}", "round", (), (), 8))


def test_a_shoe_dealt_to_its_last_card_leaves_none_unread() -> None:
    """The account of a shoe that ended with no card left says 0 left unread, not 1."""
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)
    _shoe_start(monitor, 1)
    monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True, emptied=True))
    assert monitor.shoes[-1].account()["left_unread"] == 0


def test_the_checkpoint_keeps_a_run_of_rounds_under_one_start_once() -> None:
    """The results window is written as runs: the rounds dealt from shoes that started alike
    share their start probabilities, which the checkpoint holds once for the run, not once a
    round (a 400-round window would otherwise hold 400 copies)."""
    monitor = IntegrityMonitor(CoreOptions())
    for shoe in (1, 2):  # both start full: the same probabilities
        _shoe_start(monitor, shoe)
        _rounds(monitor, shoe, ["banker", "player", "tie"])
        monitor.feed(out.CardsAccounted(shoe, "", "end", (), (), 8, shoe_over=True))
    window = monitor_state(monitor)["window"]
    assert [results for _, results in window] == [["banker", "player", "tie"] * 2]


def test_a_monitor_state_of_another_layout_is_refused_with_both_numbers() -> None:
    """A state written in a layout this station does not read is refused, never read as if it
    were its own (the service then passes over the checkpoint and replays instead)."""
    state = {**monitor_state(IntegrityMonitor(CoreOptions())), "format": MONITOR_FORMAT + 1}
    with pytest.raises(ValueError, match=rf"^monitor state of format {MONITOR_FORMAT + 1}, this station reads "
                                         rf"{MONITOR_FORMAT}$"):
        restore_monitor(CoreOptions(), None, state)


def test_a_shoe_in_play_is_not_said_to_be_emptied() -> None:
    """Until the shoe ends, its account says it has not reported itself empty; at an end that
    did not empty it, neither."""
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)
    _shoe_start(monitor, 1)
    _rounds(monitor, 1, ["banker"])
    assert monitor.shoe is not None and monitor.shoe.account()["emptied"] is False
    comp = ShoeComposition(8)
    monitor.feed(out.CardsAccounted(1, "", "end", (), tuple(comp.count(c) for c in FULL_DECK), 8, shoe_over=True))
    assert monitor.shoes[-1].account()["emptied"] is False
