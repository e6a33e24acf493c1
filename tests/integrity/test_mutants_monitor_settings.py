"""The monitor's settings and its shoe account at their bounds, found unguarded by mutation
testing (tools/mutate.py, docs/testing.md): each test here fails on a mutant that survived the
rest of the tests.

The monitor is pure: it is fed the core's outputs as the core publishes them (the account of
each shoe's first cards, its end) and returns its findings."""

from __future__ import annotations

import random

from station.cards import FULL_DECK, Card, ShoeComposition, parse_card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.integrity.monitor import IntegrityFinding, IntegrityMonitor, IntegritySettings

SHOE_8 = [card for _ in range(8) for card in FULL_DECK]


def first_cards(seed: int) -> tuple[Card, ...]:
    """The first 16 cards of a properly shuffled 8-deck shoe."""
    cards = list(SHOE_8)
    random.Random(seed).shuffle(cards)
    return tuple(cards[:16])


def play_shoe(monitor: IntegrityMonitor, shoe: int, cards: tuple[Card, ...]) -> list[IntegrityFinding]:
    """A shoe whose first cards are ``cards``, then its end: the findings of its first cards."""
    found = monitor.feed(out.CardsAccounted(shoe, "", "start", cards, (), 8))
    monitor.feed(out.CardsAccounted(shoe, "", "end", (), (), 8, shoe_over=True))
    return found


def repeats(found: list[IntegrityFinding]) -> list[int]:
    return [f.data["shoe"] for f in found if f.code == "shoe_repeated"]


def test_by_default_a_shoe_is_compared_with_the_twenty_shoes_before_it() -> None:
    """docs/integrity.md: D = 20 earlier shoes. The first shoe is out of reach of the 22nd; the
    third is within reach of the 23rd (shoes 3 to 22 are its twenty before)."""
    monitor = IntegrityMonitor(CoreOptions())
    shoes = {n: first_cards(n) for n in range(1, 22)}
    for n, cards in shoes.items():
        assert repeats(play_shoe(monitor, n, cards)) == []
    assert repeats(play_shoe(monitor, 22, shoes[1])) == []
    assert repeats(play_shoe(monitor, 23, shoes[3])) == [3]


def test_a_depth_of_one_compares_a_shoe_with_the_one_before_it_only() -> None:
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(repeat_depth=1))
    one, two = first_cards(1), first_cards(2)
    play_shoe(monitor, 1, one)
    play_shoe(monitor, 2, two)
    assert repeats(play_shoe(monitor, 3, one)) == []
    assert repeats(play_shoe(monitor, 4, one)) == [3]


def test_a_card_read_as_often_as_there_are_decks_is_not_beyond_them() -> None:
    monitor = IntegrityMonitor(CoreOptions(decks=4), keep_shoes=True)
    cards = tuple(parse_card(c) for c in ["KH"] * 4 + ["AS"] * 5)
    monitor.feed(out.CardsAccounted(1, "", "start", cards, (), 4))
    monitor.feed(out.CardsAccounted(1, "", "end", (), (), 4, shoe_over=True))
    assert monitor.shoes[0].account()["beyond_decks"] == {"AS": 5}


def test_the_advantage_threshold_is_read_as_a_percent_to_the_hundredth() -> None:
    """A fresh 8-deck shoe: the house's edge is 1.2351% on the Player and 1.0579% on the Banker
    under commission. A threshold of -1.24% (players' edge) is below the Player's -1.2351%, one
    of -1.23% above it; -1.06% and -1.05% part the Banker's the same way."""
    comp = ShoeComposition(8)
    left = tuple(comp.count(c) for c in FULL_DECK)
    for percent, expected in ((-1.24, {"banker_commission", "player"}), (-1.23, {"banker_commission"}),
                              (-1.06, {"banker_commission"}), (-1.05, set())):
        monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(advantage_percent=percent))
        found = monitor.feed(out.CardsAccounted(1, "", "start", (), left, 8))
        assert {f.data["wager"] for f in found} == expected, percent


def test_unlikely_results_are_an_alert_that_stops_no_round() -> None:
    """A shoe of 40 Banker wins then 40 Player wins: its streaks are unlikely, which the
    supervisor hears as an alert; the round goes on (docs/integrity.md: only alarms stop)."""
    comp = ShoeComposition(8)
    monitor = IntegrityMonitor(CoreOptions())
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    found: list[IntegrityFinding] = []
    for n, outcome in enumerate(["banker"] * 40 + ["player"] * 40, start=1):
        monitor.feed(out.RoundSettled(RoundId(1, n), "baccarat", (), (), outcome, False, False, False, (), 0))
        found += monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), 8))
    found += monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True))
    unlikely = [f for f in found if f.code == "results_unlikely"]
    assert {f.key for f in unlikely} == {"stats:1:shoe 1:streaks", "stats:1:shoe 1:longest streak"}
    assert all(f.severity == "alert" and f.stop is False for f in unlikely)


def test_a_count_of_the_cards_left_must_name_every_card_of_the_deck() -> None:
    """The core publishes one count per card of the deck, in order; a count of another length
    is refused rather than read as a shorter shoe."""
    import pytest

    from station.integrity.edges import composition_of

    full = [8] * 52
    assert len(composition_of(full, 8)) == 416
    for wrong in (full[:51], [*full, 8]):
        with pytest.raises(ValueError):
            composition_of(wrong, 8)


def test_a_window_of_one_round_holds_the_last_round_only() -> None:
    comp = ShoeComposition(8)
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(window_rounds=1, significance=1.0),
                               keep_shoes=True)  # the report's, which keeps each test's figures
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    for n, outcome in enumerate(["banker", "player", "banker"], start=1):
        monitor.feed(out.RoundSettled(RoundId(1, n), "baccarat", (), (), outcome, False, False, False, (), 0))
        monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), 8))
    monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True))
    assert monitor.shoe is not None
    window = [t for t in monitor.shoe.tests if "last" in t["test"]]
    assert window[0]["test"] == "outcomes (last 1 rounds)"
    assert window[0]["observed"] == {"banker": 1, "player": 0, "tie": 0}


def test_an_account_too_small_for_a_round_records_no_edges() -> None:
    """Five cards left: no round can be dealt from them for sure, so there are no edges to
    record or show; the last edges shown stay those of the account before."""
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)  # the report's, which keeps each account's edges
    comp = ShoeComposition(8)
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    shown = monitor.summary()["edges"]
    five = tuple(1 if c.code in ("AS", "2S", "3S", "4S", "5S") else 0 for c in FULL_DECK)
    assert monitor.feed(out.CardsAccounted(1, "1-1", "round", (), five, 8)) == []
    assert monitor.shoe is not None and len(monitor.shoe.edges) == 1
    assert monitor.summary()["edges"] == shown and shown["round_id"] == ""


def test_results_of_a_shoe_ended_by_the_next_shoe_s_start_name_no_round() -> None:
    """A shoe with no end account (the station restarted into the next shoe): its results are
    tested when the next shoe starts, and those findings name no round ("", never None)."""
    comp = ShoeComposition(8)
    left = tuple(comp.count(c) for c in FULL_DECK)
    monitor = IntegrityMonitor(CoreOptions())
    monitor.feed(out.CardsAccounted(1, "", "start", (), left, 8))
    for n, outcome in enumerate(["banker"] * 40 + ["player"] * 40, start=1):
        monitor.feed(out.RoundSettled(RoundId(1, n), "baccarat", (), (), outcome, False, False, False, (), 0))
        monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), 8))
    found = monitor.feed(out.CardsAccounted(2, "", "start", (), left, 8))
    unlikely = [f for f in found if f.code == "results_unlikely"]
    assert unlikely and all(f.shoe == 1 and f.round_id == "" for f in unlikely)


def _settle(monitor: IntegrityMonitor, shoe: int, outcomes: list[str], start: int = 1) -> None:
    for n, outcome in enumerate(outcomes, start=start):
        monitor.feed(out.RoundSettled(RoundId(shoe, n), "baccarat", (), (), outcome, False, False, False, (), 0))
        monitor.feed(out.CardsAccounted(shoe, f"{shoe}-{n}", "round", (), (), 8))


def test_a_continuous_shuffler_is_tested_every_eighty_rounds_by_default() -> None:
    comp = ShoeComposition(8)
    monitor = IntegrityMonitor(CoreOptions(equipment="continuous"), keep_shoes=True)
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    _settle(monitor, 1, ["banker", "player"] * 39 + ["tie"])
    assert monitor.shoe is not None and monitor.shoe.tests == []
    _settle(monitor, 1, ["banker"], start=80)
    assert monitor.shoe.tests[0]["test"] == "outcomes (rounds 1-80)"


def test_voided_rounds_take_no_place_in_the_window() -> None:
    """The window of the last 60 rounds holds decided rounds only: 50 decided and 20 voided
    (accounted with no settlement, as the core publishes a void) are not 60 yet, so the window
    is not tested."""
    comp = ShoeComposition(8)
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(window_rounds=60, significance=1.0))
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    _settle(monitor, 1, ["banker", "player"] * 25)
    for n in range(51, 71):
        monitor.feed(out.CardsAccounted(1, f"1-{n}", "round", (), (), 8))
    assert monitor.shoe is not None and monitor.shoe.results[50:] == [""] * 20
    found = monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True))
    assert monitor.window_rounds == 50 and len(monitor.window) == 50
    assert not [f for f in found if f.key.startswith("stats:window")]


def test_a_run_shared_with_two_earlier_shoes_names_the_first_found() -> None:
    """The new shoe's first eight cards are in shoe 1 and, as long a run, in shoe 2: the alarm
    names the shoe it was first found in, the older one. A longer run with a later shoe is the
    one named."""
    monitor = IntegrityMonitor(CoreOptions())
    one, two, other = first_cards(21), first_cards(22), first_cards(23)
    run = one[:8]
    play_shoe(monitor, 1, one)
    second = two[:4] + run + two[12:]
    play_shoe(monitor, 2, second)
    found = play_shoe(monitor, 3, run + other[:8])
    assert repeats(found) == [1]
    found = play_shoe(monitor, 4, second[2:14] + other[8:12])
    assert repeats(found) == [2] and found[-1].data["length"] == 12


def test_window_findings_of_a_shoe_ended_by_the_next_shoe_s_start_name_no_round() -> None:
    comp = ShoeComposition(8)
    left = tuple(comp.count(c) for c in FULL_DECK)
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(window_rounds=60, significance=1.0))
    monitor.feed(out.CardsAccounted(1, "", "start", (), left, 8))
    _settle(monitor, 1, ["banker", "player"] * 35)
    found = monitor.feed(out.CardsAccounted(2, "", "start", (), left, 8))
    window = [f for f in found if f.key.startswith("stats:window")]
    assert window and all(f.shoe == 1 and f.round_id == "" for f in window)


def test_a_p_value_equal_to_the_significance_is_not_below_it() -> None:
    """Forty alternating results: the longest streak is 1, whose p-value is exactly 1. With a
    significance of 1 the streaks test (p below 1) is a finding, that one is not (and the
    outcomes are too few for their test: under 5 Ties expected)."""
    comp = ShoeComposition(8)
    monitor = IntegrityMonitor(CoreOptions(), IntegritySettings(significance=1.0))
    monitor.feed(out.CardsAccounted(1, "", "start", (), tuple(comp.count(c) for c in FULL_DECK), 8))
    _settle(monitor, 1, ["banker", "player"] * 20)
    found = monitor.feed(out.CardsAccounted(1, "", "end", (), (), 8, shoe_over=True))
    keys = {f.key for f in found if f.code == "results_unlikely"}
    assert keys == {"stats:1:shoe 1:streaks"}


def test_by_default_the_window_is_the_last_four_hundred_rounds() -> None:
    """Five shoes of 80 decided rounds: at the fifth shoe's end the window holds 400 and is
    tested; at the fourth's it did not yet."""
    comp = ShoeComposition(8)
    left = tuple(comp.count(c) for c in FULL_DECK)
    monitor = IntegrityMonitor(CoreOptions(), keep_shoes=True)  # the report's, which keeps each test's figures
    for shoe in range(1, 6):
        monitor.feed(out.CardsAccounted(shoe, "", "start", (), left, 8))
        _settle(monitor, shoe, ["banker", "player", "banker", "tie"] * 20)
        monitor.feed(out.CardsAccounted(shoe, "", "end", (), (), 8, shoe_over=True))
        window = [t["test"] for t in monitor.shoes[-1].tests if "last" in t["test"]]
        assert window == ([] if shoe < 5 else ["outcomes (last 400 rounds)", "longest streak (last 400 rounds)",
                                               "streaks (last 400 rounds)"]), shoe
