"""The pure analyses: exact edges equal station analyze's, the statistics' maths, the order and
repeat tests with their false-alarm bounds, and 1,000 properly shuffled shoes with no alarm."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from station.analysis.baccarat_odds import analyse_baccarat, count_rounds
from station.analysis.war_odds import analyse_war
from station.cards import FULL_DECK, Card, Rank, ShoeComposition, Suit, parse_card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.games.baccarat.rules import Hand, next_hand, result_of
from station.games.deck_check import judge_counts
from station.integrity import order, repeat, stats
from station.integrity.edges import fast_count_rounds, house_edges, offered_wagers
from station.integrity.monitor import IntegrityMonitor

SHOE_8 = [card for _ in range(8) for card in FULL_DECK]


@st.composite
def removed_cards(draw: Any, decks: int = 8) -> list[Card]:
    """Cards seen so far: a prefix of a shuffled shoe (as station analyze --remove takes them)."""
    seed = draw(st.integers(0, 10**6))
    count = draw(st.integers(0, 52 * decks - 10))
    shoe = [card for _ in range(decks) for card in FULL_DECK]
    random.Random(seed).shuffle(shoe)
    return shoe[:count]


@settings(max_examples=60, deadline=None)
@given(removed=removed_cards(), decks=st.sampled_from([4, 6, 8]))
def test_the_fast_count_is_station_analyze_s_count(removed: list[Card], decks: int) -> None:
    comp = ShoeComposition(decks)
    for card in removed:  # a smaller shoe: skip what it cannot hold
        if comp.can_remove(card):
            comp.remove(card)
    if len(comp) < 6:
        return
    values = comp.by_baccarat_value()
    assert fast_count_rounds(values) == count_rounds(values)


@settings(max_examples=40, deadline=None)
@given(removed=removed_cards())
def test_the_edges_of_a_composition_are_station_analyze_remove_s(removed: list[Card]) -> None:
    comp = ShoeComposition(8)
    comp.remove_all(removed)
    wagers = offered_wagers("baccarat", ("banker", "player", "tie"), None)
    edges = house_edges("baccarat", comp, wagers, None)
    analysed = {e.key: e.house_edge for e in analyse_baccarat(comp, (8,)).edges}
    assert edges == {w.key: analysed[w.key] for w in wagers}
    war_wagers = offered_wagers("war", ("war", "tie"), None)
    war = {e.key: e.house_edge for e in analyse_war(comp).edges}
    assert house_edges("war", comp, war_wagers, None) == {w.key: war[w.key] for w in war_wagers}


def test_a_fresh_shoe_s_published_edges() -> None:
    edges = house_edges("baccarat", ShoeComposition(8), offered_wagers("baccarat", ("banker", "player", "tie"), None),
                        None)
    assert [round(float(edges[k]) * 100, 4) for k in ("banker_commission", "player", "tie_8_to_1")] == [
        1.0579, 1.2351, 14.3596]


@settings(max_examples=100, deadline=None)
@given(x=st.floats(0.0, 60.0))
@example(x=5e-324)  # the smallest float: half of it is 0, whose logarithm does not exist
def test_chi_squared_survival_matches_the_closed_forms(x: float) -> None:
    assert math.isclose(stats.chi2_sf(x, 2), math.exp(-x / 2), rel_tol=1e-9, abs_tol=1e-15)
    assert math.isclose(stats.chi2_sf(x, 1), math.erfc(math.sqrt(x / 2)), rel_tol=1e-8, abs_tol=1e-14)
    # df 4: Q = exp(-x/2) (1 + x/2)
    assert math.isclose(stats.chi2_sf(x, 4), math.exp(-x / 2) * (1 + x / 2), rel_tol=1e-8, abs_tol=1e-14)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 11), p=st.floats(0.05, 0.95), length=st.integers(1, 12))
def test_the_longest_streak_tail_is_the_enumerated_one(n: int, p: float, length: int) -> None:
    total = 0.0
    for seq in itertools.product("BP", repeat=n):
        longest = max(len(list(g)) for _, g in itertools.groupby(seq))
        if longest >= length:
            total += math.prod(p if s == "B" else 1 - p for s in seq)
    assert math.isclose(stats.longest_streak_tail(n, p, length), total, rel_tol=1e-9, abs_tol=1e-12)


def test_every_test_s_false_alarm_bound_is_below_one_in_a_million() -> None:
    for decks in range(4, 9):
        bounds = order.false_alarm_bounds(decks)
        assert bounds["total"] < 1e-6, (decks, bounds)
        assert repeat.false_alarm_bound(decks, depth=100) < 1e-6
        assert bounds["total"] + repeat.false_alarm_bound(decks, depth=100) < 1e-6


def new_deck(decks: int = 8) -> list[Card]:
    """Decks as they come from the maker: each suit A to K, suit after suit."""
    one = [Card(rank, suit) for suit in (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS) for rank in Rank]
    return one * decks


def test_ordered_arrangements_are_found() -> None:
    assert order.order_statistics(new_deck()).found
    assert order.order_statistics(list(reversed(new_deck()))).found
    by_rank = sorted(new_deck(), key=lambda c: (list(Rank).index(c.rank), list(Suit).index(c.suit)))
    assert order.order_statistics(by_rank).found  # aces, then twos...: rank steps and suit cycles
    cycling = [Card(rank, suit) for rank in (Rank.NINE, Rank.THREE, Rank.KING, Rank.FIVE) for suit in Suit]
    random.Random(3).shuffle(cycling)
    suits = [c.suit for c in cycling]
    by_suit = [Card(c.rank, list(Suit)[i % 4]) for i, c in enumerate(cycling)]
    assert suits and "the suits repeat every 4 cards" in " ".join(order.order_statistics(by_suit).found)
    shuffled = list(SHOE_8)
    random.Random(1).shuffle(shuffled)
    assert not order.order_statistics(shuffled).found


def test_a_repeated_run_is_found_wherever_it_starts() -> None:
    earlier = list(SHOE_8)
    random.Random(5).shuffle(earlier)
    index = repeat.ShoeSequence.of(1, earlier)
    run = repeat.longest_common_run(earlier[100:116], index)
    assert run is not None and (run.length, run.at, run.earlier_at) == (16, 0, 100)
    other = list(SHOE_8)
    random.Random(6).shuffle(other)
    assert repeat.longest_common_run(other[:16], index) is None


def test_a_deck_check_is_judged_against_the_table_s_decks() -> None:
    full = [(c.code, 8) for c in FULL_DECK]
    assert judge_counts(full, 8).passed
    short = [(code, 7 if code == "7H" else n) for code, n in full]
    verdict = judge_counts(short, 8)
    assert verdict.short == (("7H", 1),) and not verdict.over and verdict.by_rank() == {"7": (31, 32)}
    assert "short 7H" in verdict.words() and "7: 31 of 32" in verdict.words()
    assert not judge_counts([(c.code, 6) for c in FULL_DECK], 8, reported_decks=6).passed  # a 6-deck set, 8-deck table
    over = judge_counts([*full, ("AS", 1)], 8)
    assert over.over == (("AS", 1),) and not over.passed


# --- 1,000 properly shuffled shoes ----------------------------------------------------------

def deal_shoe(cards: list[Card]) -> tuple[list[Card], list[tuple[list[Card], str]]]:
    """The exposed card and its burn, then rounds to 15 cards from the back, by the rules."""
    burn = 1 + cards[0].rank.pip
    i = burn
    rounds = []
    while i < len(cards) - 15 - 6:
        player: list[Card] = []
        banker: list[Card] = []
        first = i
        while (hand := next_hand(tuple(player), tuple(banker))) is not None:
            (player if hand is Hand.PLAYER else banker).append(cards[i])
            i += 1
        rounds.append((cards[first:i], result_of(player, banker).outcome.value))
    return cards[:burn], rounds


def feed_shoe(monitor: IntegrityMonitor, number: int, cards: list[Card], with_edges: bool) -> list[Any]:
    """Feed a shoe as the core publishes it (the composition only at the start, unless
    ``with_edges``: the edges are what cost time)."""
    comp = ShoeComposition(8)
    start, rounds = deal_shoe(cards)
    comp.remove_all(start)

    def left() -> tuple[int, ...]:
        return tuple(comp.count(c) for c in FULL_DECK)

    findings = monitor.feed(out.CardsAccounted(number, "", "start", tuple(start), left(), 8))
    for n, (dealt, outcome) in enumerate(rounds, start=1):
        comp.remove_all(dealt)
        rid = RoundId(number, n)
        monitor.feed(out.RoundSettled(rid, "baccarat", (), (), outcome, False, False, False, (), 0))
        findings += monitor.feed(out.CardsAccounted(number, rid, "round", tuple(dealt),
                                                    left() if with_edges else (), 8, shoe_over=n == len(rounds)))
    findings += monitor.feed(out.CardsAccounted(number, "", "end", (), left(), 8, shoe_over=True))
    return findings


def test_a_thousand_properly_shuffled_shoes_raise_no_alarm() -> None:
    monitor = IntegrityMonitor(CoreOptions())
    rng = random.Random(20261201)
    findings = []
    for number in range(1, 1001):
        cards = list(SHOE_8)
        rng.shuffle(cards)
        findings += feed_shoe(monitor, number, cards, with_edges=number <= 20)
    alarms = [f for f in findings if f.severity == "alarm"]
    assert alarms == []
    # Statistics alert at p < 0.001: three tests a shoe and the window's, so a few in 1,000 shoes.
    unlikely = [f for f in findings if f.code == "results_unlikely"]
    assert len(unlikely) <= 15, [f.detail for f in unlikely]


def test_the_bounds_hold_where_the_simulation_can_see_them() -> None:
    """At thresholds low enough to happen in 20,000 simulated shoes, the observed frequency of each
    statistic stays under the same bound formula (docs/integrity.md gives the figures of 10^6)."""
    rng = random.Random(7)
    shoes = 20_000
    suited3 = up11 = cycle4 = 0
    for _ in range(shoes):
        first = rng.sample(SHOE_8, 16)
        result = order.order_statistics(first)
        suited3 += result.suited_steps >= 3
        up11 += result.rank_steps_up >= 9
        cycle4 += result.suit_cycles[4] >= 8
    pool = 52 * 8 - 15
    bound_suited3 = math.comb(15, 3) * (16 / pool) ** 3
    bound_up9 = math.comb(15, 9) * (64 / pool) ** 9
    bound_cycle = math.comb(12, 8) * (104 / pool) ** 8
    assert suited3 / shoes <= bound_suited3
    assert up11 / shoes <= bound_up9
    assert cycle4 / shoes <= bound_cycle
    assert suited3 > 0  # the statistic does move: the bound is not met by a test that never fires


def test_new_deck_order_and_a_repeated_shoe_are_alarms() -> None:
    monitor = IntegrityMonitor(CoreOptions())
    ordered = feed_shoe(monitor, 1, new_deck(), with_edges=False)
    assert [f.code for f in ordered if f.severity == "alarm"] == ["shoe_unshuffled"]
    shuffled = list(SHOE_8)
    random.Random(11).shuffle(shuffled)
    assert not [f for f in feed_shoe(monitor, 2, shuffled, with_edges=False) if f.severity == "alarm"]
    again = feed_shoe(monitor, 3, shuffled, with_edges=False)
    assert [f.code for f in again if f.severity == "alarm"] == ["shoe_repeated"]
    assert "repeats shoe 2" in next(f for f in again if f.code == "shoe_repeated").detail


def test_a_tie_rich_end_of_shoe_is_an_advantage_situation() -> None:
    monitor = IntegrityMonitor(CoreOptions())
    comp = ShoeComposition(8, {parse_card(code): 8 for code in ("TS", "TH", "TD", "JS")})
    left = tuple(comp.count(c) for c in FULL_DECK)
    found = monitor.feed(out.CardsAccounted(1, "1-70", "round", (), left, 8))
    tie = [f for f in found if f.code == "advantage_situation" and "tie" in f.data["wager"]]
    assert tie and tie[0].data["player_edge_percent"] > 100  # every round is a 0-0 tie
    # Still favourable after the next round: the same situation, not raised again.
    assert not monitor.feed(out.CardsAccounted(1, "1-71", "round", (), left, 8))
