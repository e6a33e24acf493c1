"""Corners of the integrity monitor that mutation testing (tools/mutate.py, docs/testing.md)
found unguarded: each test here fails on a mutant that survived the rest of the tests.

The monitor is pure: it is fed the core's outputs (the accounts of the cards out of the shoe,
the settled rounds, the payout option) and returns its findings; these tests feed it as the
core publishes them."""

from __future__ import annotations

import random

from station.cards import FULL_DECK, Card, ShoeComposition, parse_card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.integrity.monitor import IntegrityMonitor, IntegritySettings

SHOE_8 = [card for _ in range(8) for card in FULL_DECK]


def left(comp: ShoeComposition) -> tuple[int, ...]:
    return tuple(comp.count(c) for c in FULL_DECK)


def settled(round_id: str, outcome: str, game: str = "baccarat") -> out.RoundSettled:
    return out.RoundSettled(RoundId.parse(round_id), game, (), (), outcome, False, False, False, (), 0)


def shuffled(seed: int) -> list[Card]:
    cards = list(SHOE_8)
    random.Random(seed).shuffle(cards)
    return cards


def test_casino_war_results_are_read_from_the_first_box() -> None:
    options = CoreOptions(game="war")
    monitor = IntegrityMonitor(options)
    decks = options.decks
    comp = ShoeComposition(decks)
    monitor.feed(out.CardsAccounted(1, "", "start", (), left(comp), decks))
    for n, outcome in enumerate(["box 1:win box 2:lose", "box 3:tie", "box 1:lose", "void", "box 2"], start=1):
        monitor.feed(settled(f"1-{n}", outcome, "war"))
        monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), decks))
    assert monitor.shoe is not None and monitor.shoe.results == ["win", "tie", "lose", "", ""]


def test_the_account_of_a_shoe_counts_cards_beyond_its_decks_and_what_was_left() -> None:
    monitor = IntegrityMonitor(CoreOptions(decks=4), keep_shoes=True)
    aces = tuple(parse_card("AS") for _ in range(5))
    monitor.feed(out.CardsAccounted(1, "", "start", aces[:3], (), 4))
    monitor.feed(out.CardsAccounted(1, "1-1", "round", (*aces[3:], parse_card("2H")), (), 4))
    comp = ShoeComposition(4)
    for card in (*aces[:4], parse_card("2H")):
        comp.remove(card)
    monitor.feed(out.CardsAccounted(1, "", "end", (), left(comp), 4, emptied=True, shoe_over=True))
    [record] = monitor.shoes
    assert record.account() == {"expected": 208, "read": 6, "left_unread": 203, "emptied": True,
                                "beyond_decks": {"AS": 5}}
    assert record.ended and record.to_json()["first_cards"] == ["AS"] * 5 + ["2H"]


def test_a_new_shoe_ends_the_one_before_even_without_its_end() -> None:
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)
    assert monitor.summary() == {"shoe": None}
    monitor.feed(out.CardsAccounted(1, "", "start", tuple(shuffled(1)[:3]), (), 8))
    summary = monitor.summary()
    assert (summary["shoe"], summary["cards_read"], summary["results"], summary["first_cards_tested"]) == (1, 3, 0,
                                                                                                          False)
    monitor.feed(out.CardsAccounted(2, "", "start", tuple(shuffled(2)[:20]), (), 8))
    assert [r.shoe for r in monitor.shoes] == [1] and monitor.shoes[0].ended
    assert monitor.summary()["first_cards_tested"] is True and monitor.summary()["cards_read"] == 20


def test_a_payout_option_change_changes_the_wagers_whose_edges_are_watched() -> None:
    monitor = IntegrityMonitor(CoreOptions())
    comp = ShoeComposition(8)
    monitor.feed(out.CardsAccounted(1, "", "start", (), left(comp), 8))
    before = set(monitor.last_edges["house_edge_percent"])
    assert "banker_commission" in before
    assert monitor.last_edges["house_edge_percent"]["player"] == 1.2351  # percent, to four places
    monitor.feed(out.PayoutOptionApplied("no_commission", RoundId(1, 2)))
    monitor.feed(out.CardsAccounted(1, "1-1", "round", (), left(comp), 8))
    after = set(monitor.last_edges["house_edge_percent"])
    assert "banker_commission" not in after and after != before
    assert monitor.last_edges["shoe"] == 1 and monitor.last_edges["cards_left"] == 416


def test_an_advantage_is_raised_when_it_begins_and_again_after_it_ended() -> None:
    monitor = IntegrityMonitor(CoreOptions())
    rich = ShoeComposition(8, {parse_card(code): 8 for code in ("TS", "TH", "TD", "JS")})  # every round a tie
    plain = ShoeComposition(8)
    keys = []
    for n, comp in enumerate([rich, rich, plain, rich], start=1):
        found = monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), left(comp), 8))
        keys += [f.key for f in found if f.code == "advantage_situation" and "tie" in f.data["wager"]]
    assert keys == ["advantage:1:tie_8_to_1:1-1", "advantage:1:tie_8_to_1:1-4"]
    assert monitor.summary()["advantage"] == {"tie_8_to_1": "1-4"}
    # After the last round of the shoe nothing more is dealt from it: nothing to raise.
    other = IntegrityMonitor(CoreOptions(), keep_shoes=True)  # the report's, which keeps each account's edges
    assert not other.feed(out.CardsAccounted(1, "1-9", "round", (), left(rich), 8, shoe_over=True))
    assert other.shoe is not None and other.shoe.edges  # the edges are still recorded


def test_the_advantage_threshold_is_the_configured_percent() -> None:
    """A fresh 8-deck shoe: the house's edge on the Player is 1.2351%; players never have +1%."""
    comp = ShoeComposition(8)
    for percent, expected in ((-1.3, {"banker_commission", "player"}), (-1.2, {"banker_commission"})):
        monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(advantage_percent=percent))
        found = monitor.feed(out.CardsAccounted(1, "", "start", (), left(comp), 8))
        assert {f.data["wager"] for f in found} == expected
        assert all(f.key.endswith(":start") and f.severity == "alert" and not f.stop for f in found)


def _play(monitor: IntegrityMonitor, shoe: int, outcomes: list[str], end: bool = True) -> list[str]:
    comp = ShoeComposition(8)
    found = monitor.feed(out.CardsAccounted(shoe, "", "start", (), left(comp), 8))
    for n, outcome in enumerate(outcomes, start=1):
        monitor.feed(settled(f"{shoe}-{n}", outcome))
        found += monitor.feed(out.CardsAccounted(shoe, f"{shoe}-{n}", "round", (), (), 8))
    if end:
        found += monitor.feed(out.CardsAccounted(shoe, "", "end", (), (), 8, shoe_over=True))
    return [f.key for f in found]


def test_a_shoe_of_one_sided_results_is_unlikely() -> None:
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)  # the report's, which keeps each test's figures
    keys = _play(monitor, 1, ["banker"] * 40 + ["player"] * 40)
    assert "stats:1:shoe 1:outcomes" not in keys  # no Tie in 80 rounds: p about 0.02, not below 0.001
    assert "stats:1:shoe 1:streaks" in keys and "stats:1:shoe 1:longest streak" in keys
    record = monitor.shoe
    assert record is not None
    names = [t["test"] for t in record.tests]
    assert names == ["outcomes (shoe 1)", "longest streak (shoe 1)", "streaks (shoe 1)"]
    assert record.tests[0]["observed"] == {"banker": 40, "player": 40, "tie": 0}
    assert record.tests[0]["expected"] == {k: round(v, 3) for k, v in record.tests[0]["expected"].items()}
    assert abs(sum(record.tests[0]["expected"].values()) - 80) < 0.01


def test_the_window_is_tested_once_it_is_full() -> None:
    """The rolling window of the last 60 rounds is tested at each shoe's end once it holds 60;
    its findings are named by the rounds ever added to it (here every one is a finding: a
    significance of 1)."""
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(window_rounds=60, significance=1.0), keep_shoes=True)
    rng = random.Random(4)
    first = _play(monitor, 1, [rng.choice(["banker", "player"]) for _ in range(50)])
    assert not [k for k in first if k.startswith("stats:window")]
    assert monitor.shoe is not None and not [t for t in monitor.shoe.tests if "last" in t["test"]]
    second = _play(monitor, 2, ["banker"] * 30)
    window = [t["test"] for t in monitor.shoe.tests if "last" in t["test"]]
    assert window == ["outcomes (last 60 rounds)", "longest streak (last 60 rounds)", "streaks (last 60 rounds)"]
    assert [k for k in second if k.startswith("stats:window")] == [
        "stats:window:80:outcomes", "stats:window:80:longest streak", "stats:window:80:streaks"]


def test_a_continuous_shuffler_is_tested_every_block_of_rounds() -> None:
    monitor = IntegrityMonitor(CoreOptions(equipment="continuous"), IntegritySettings(block_rounds=30), keep_shoes=True)
    _play(monitor, 1, ["banker"] * 29, end=False)
    assert monitor.shoe is not None and monitor.shoe.tests == []
    _play_more(monitor, 1, 30, ["banker"] * 31)
    names = [t["test"] for t in monitor.shoe.tests]
    assert names == ["outcomes (rounds 1-30)", "longest streak (rounds 1-30)", "streaks (rounds 1-30)",
                     "outcomes (rounds 31-60)", "longest streak (rounds 31-60)", "streaks (rounds 31-60)"]


def _play_more(monitor: IntegrityMonitor, shoe: int, start: int, outcomes: list[str]) -> None:
    for n, outcome in enumerate(outcomes, start=start):
        monitor.feed(settled(f"{shoe}-{n}", outcome))
        monitor.feed(out.CardsAccounted(shoe, f"{shoe}-{n}", "round", (), (), 8))


def test_a_shoe_that_never_showed_its_composition_is_not_tested() -> None:
    """With no composition at its start there are no probabilities to test results against."""
    monitor = IntegrityMonitor(CoreOptions())
    monitor.feed(out.CardsAccounted(1, "", "start", (), (), 8))
    for n in range(1, 41):
        monitor.feed(settled(f"1-{n}", "banker"))
        monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), 8))
    assert monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True)) == []
    assert monitor.shoe is not None and monitor.shoe.tests == [] and monitor.shoe.results == ["banker"] * 40


def test_the_station_s_monitor_keeps_no_finished_shoe_the_report_s_does() -> None:
    kept, station = IntegrityMonitor(CoreOptions(), keep_shoes=True), IntegrityMonitor(CoreOptions())
    for monitor in (kept, station):
        _play(monitor, 1, ["banker", "player"])
    assert [r.shoe for r in kept.shoes] == [1] and station.shoes == []
