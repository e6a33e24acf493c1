"""Corners of the pure analyses that mutation testing (tools/mutate.py, docs/testing.md) found
unguarded: each test here fails on a mutant that survived the rest of the tests."""

from __future__ import annotations

from math import comb, isclose

from station.integrity import order, repeat


def test_the_false_alarm_bounds_follow_the_formulas_of_docs_integrity_md() -> None:
    """The table of docs/integrity.md: of the first 16 cards, 15 steps; each step drawn from at
    least P = 52N - 15 unseen cards; at most 2N, 8N, 13N (and N per named card) make it hold."""
    for decks in (4, 6, 8):
        pool = 52 * decks - 15
        bounds = order.false_alarm_bounds(decks)
        suited = comb(15, 8) * (2 * decks / pool) ** 8
        rank = 2 * comb(15, 13) * (8 * decks / pool) ** 13
        cycles = sum((13 * decks / pool) ** (16 - k) for k in (1, 2, 3, 4))
        assert isclose(bounds["suited_steps"], suited, rel_tol=1e-12)
        assert isclose(bounds["rank_steps"], rank, rel_tol=1e-12)
        assert isclose(bounds["suit_cycles"], cycles, rel_tol=1e-12)
        assert isclose(bounds["total"], suited + rank + cycles, rel_tol=1e-12)
        # D earlier shoes, 9 places in the first 16 cards, 52N - 7 in each earlier shoe.
        for depth in (1, 20):
            expected = depth * 9 * (52 * decks - 7) * (decks / pool) ** 8
            assert isclose(repeat.false_alarm_bound(decks, depth), expected, rel_tol=1e-12)
        assert isclose(repeat.false_alarm_bound(decks, 1, earlier_cards=100), 9 * 93 * (decks / pool) ** 8,
                       rel_tol=1e-12)
    # docs/integrity.md: the sum is 1.8e-7 per shoe for 8 decks with D = 20.
    assert 1.7e-7 < order.false_alarm_bounds(8)["total"] + repeat.false_alarm_bound(8, 20) < 1.8e-7


def test_pearsons_statistic_and_its_p_value_on_counts_worked_by_hand() -> None:
    from math import exp

    from station.integrity import stats

    result = stats.chi_squared("outcomes", [10, 20, 30], [20.0, 20.0, 20.0])
    assert result.statistic == 10.0  # (100 + 0 + 100) / 20
    assert isclose(result.p_value or 0, exp(-5.0), rel_tol=1e-9)  # df 2: exp(-x/2)
    assert result.note == "60 results, df 2"
    assert stats.chi_squared("x", [5, 5], [5.0, 5.0]).p_value == 1.0  # an expected count of 5 is enough
    too_few = stats.chi_squared("x", [4, 6], [4.99, 5.01])
    assert (too_few.p_value, too_few.note) == (None, "too few results (10) for the test")
    assert stats.chi_squared("x", [0, 0], [5.0, 5.0]).note == "too few results (0) for the test"


def test_the_runs_test_on_a_sequence_worked_by_hand() -> None:
    """Twenty alternating results: 20 streaks where 11 are expected; the variance of the
    number of streaks is 2·10·10·(200 − 20) / (20²·19)."""
    from math import erfc, sqrt

    from station.integrity import stats

    alternating = ["banker", "player"] * 10
    result = stats.runs_test("streaks", alternating, "banker")
    z = (20 - 11) / sqrt(2 * 10 * 10 * (200 - 20) / (20 * 20 * 19))
    assert isclose(result.statistic, z, rel_tol=1e-12)
    assert isclose(result.p_value or 0, erfc(z / sqrt(2)), rel_tol=1e-12)
    assert result.note == "20 streaks, 11.0 expected"
    nine = stats.runs_test("streaks", ["banker"] * 9 + ["player"] * 12, "banker")
    assert (nine.p_value, nine.note) == (None, "too few results of each side (9, 12) for the test")
    blocks = stats.runs_test("streaks", ["banker"] * 10 + ["player"] * 10, "banker")
    assert blocks.statistic < 0 and blocks.note == "2 streaks, 11.0 expected"


def test_the_longest_streak_is_the_longest_of_either_side() -> None:
    from station.integrity import stats

    results = ["player", "player", "banker", "banker", "banker", "player"]
    assert stats.streaks(results) == [("player", 2), ("banker", 3), ("player", 1)]
    found = stats.longest_streak_test("longest streak", results, 0.5)
    assert found.statistic == 3.0 and found.note == "longest streak 3 (banker) in 6 results"
    assert found.p_value == stats.longest_streak_tail(6, 0.5, 3)
    assert stats.longest_streak_test("x", [], 0.5).p_value is None
    # Worked by hand: of the 8 sequences of three fair results, 2 are one streak of three.
    assert isclose(stats.longest_streak_tail(3, 0.5, 3), 2 / 8)
    assert isclose(stats.longest_streak_tail(3, 0.5, 2), 6 / 8)
    assert stats.longest_streak_tail(2, 0.5, 3) == 0.0
    assert stats.longest_streak_tail(1, 0.3, 1) == 1.0 and stats.longest_streak_tail(0, 0.3, 1) == 0.0


def test_a_test_result_is_reported_rounded() -> None:
    from station.integrity import stats

    result = stats.TestResult("t", 1.23456789, 0.000123456789, "n")
    assert result.to_json() == {"test": "t", "statistic": 1.234568, "p_value": 0.000123457, "note": "n"}
    assert stats.TestResult("t", 0.0, None).to_json()["p_value"] is None


def test_a_count_with_codes_that_are_no_card_is_over_by_those() -> None:
    from station.cards import FULL_DECK
    from station.games.deck_check import judge_counts

    full = [(c.code, 8) for c in FULL_DECK]
    verdict = judge_counts([*full, ("ZZ", 2), ("ZZ", 1), ("QQ", -4)], 8)
    assert verdict.over == (("QQ", 0), ("ZZ", 3)) and verdict.counted == 8 * 52 + 3 and not verdict.short


def test_casino_war_and_too_small_a_shoe_have_their_own_probabilities_and_edges() -> None:
    from station.cards import ShoeComposition, parse_card
    from station.integrity.edges import house_edges, offered_wagers, outcome_probabilities

    war = outcome_probabilities("war", ShoeComposition(6))
    assert war is not None and set(war) == {"win", "lose", "tie"} and isclose(sum(war.values()), 1.0)
    assert isclose(war["win"], war["lose"]) and 0.07 < war["tie"] < 0.08  # a full shoe: no side favoured
    tiny = ShoeComposition(6, {parse_card("2S"): 1})
    assert outcome_probabilities("war", tiny) is None and outcome_probabilities("baccarat", tiny) is None
    assert house_edges("war", tiny, offered_wagers("war", ("war", "tie"), None), None) == {}
    assert house_edges("baccarat", tiny, offered_wagers("baccarat", ("banker", "player", "tie"), None), None) == {}
    assert house_edges("baccarat", ShoeComposition(8), [], None) == {}


def test_the_fast_count_refuses_what_is_no_composition() -> None:
    import pytest

    from station.integrity.edges import fast_count_rounds

    for counts in ([32] * 9, [32] * 9 + [-1], [32] * 11):
        with pytest.raises(ValueError, match="need 10 non-negative value counts"):
            fast_count_rounds(counts)


def test_a_count_short_of_every_copy_of_a_card_and_foreign_codes_by_rank() -> None:
    from station.cards import FULL_DECK
    from station.games.deck_check import judge_counts

    without_7h = [(c.code, 8) for c in FULL_DECK if c.code != "7H"]
    verdict = judge_counts(without_7h, 8)
    assert verdict.short == (("7H", 8),) and verdict.by_rank() == {"7": (24, 32)}
    foreign = judge_counts([(c.code, 8) for c in FULL_DECK] + [("ZZ", 1), ("7HX", 2)], 8)
    assert foreign.over == (("7HX", 2), ("ZZ", 1)) and foreign.by_rank() == {}  # no rank of a card


def test_the_order_statistics_of_new_deck_order_worked_by_hand() -> None:
    """A♠ to K♠, then A♦ 2♦ 3♦: 15 steps; 14 suited steps and 14 steps one rank up (all but
    K♠ to A♦), none down; a card's suit is that of the card k before it 14, 12, 10 and 9 times
    for k = 1 to 4 (pairs of spades, and of diamonds)."""
    from station.cards import Card, Rank, Suit

    one = [Card(rank, suit) for suit in (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS) for rank in Rank]
    result = order.order_statistics(one * 8)
    assert (result.cards, result.suited_steps, result.rank_steps_up, result.rank_steps_down) == (16, 14, 14, 0)
    assert result.suit_cycles == {1: 14, 2: 12, 3: 10, 4: 9}
    assert result.found == ("14 of 15 cards follow the card before in the same suit, one rank up or down",
                            "14 of 15 cards are of the same rank as the card before or one rank up")
    reverse = order.order_statistics(list(reversed(one * 8)))
    assert (reverse.rank_steps_up, reverse.rank_steps_down) == (0, 14)


def test_a_card_counted_beyond_the_decks_shows_in_its_rank() -> None:
    from station.cards import FULL_DECK
    from station.games.deck_check import judge_counts

    verdict = judge_counts([(c.code, 8) for c in FULL_DECK] + [("AS", 1), ("AH", 2)], 8)
    assert verdict.over == (("AH", 2), ("AS", 1)) and verdict.by_rank() == {"A": (35, 32)}


def test_a_common_run_ends_where_the_earlier_shoe_was_read_to() -> None:
    import random

    from station.cards import FULL_DECK

    cards = [c for _ in range(8) for c in FULL_DECK]
    random.Random(9).shuffle(cards)
    earlier = repeat.ShoeSequence.of(1, cards[:12])  # only twelve cards of it were read
    run = repeat.longest_common_run(cards[:16], earlier)
    assert run is not None and (run.shoe, run.length, run.at, run.earlier_at) == (1, 12, 0, 0)
    assert repeat.longest_common_run(cards[:16], repeat.ShoeSequence.of(2, cards[:7])) is None  # shorter than 8


def test_a_common_run_at_the_last_place_it_can_start_is_found() -> None:
    """Of the first 16 cards, a run of 8 can start at cards 1 to 9; the last of those too."""
    import random

    from station.cards import FULL_DECK

    cards = [c for _ in range(8) for c in FULL_DECK]
    random.Random(10).shuffle(cards)
    earlier = repeat.ShoeSequence.of(1, cards[:200])
    first = cards[300:308] + cards[50:58]
    run = repeat.longest_common_run(first, earlier)
    assert run is not None and (run.length, run.at, run.earlier_at) == (8, 8, 50)


def test_eight_suited_steps_are_enough_for_the_alarm() -> None:
    """docs/integrity.md: 8 or more of the 15 steps one rank up or down in the same suit."""
    from station.cards import parse_card

    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S"  # eight suited steps
    rest = "KH 5D JC 2H 9D 4C QH"  # none
    result = order.order_statistics([parse_card(c) for c in f"{run} {rest}".split()])
    assert result.cards == 16 and result.suited_steps == order.SUITED_STEPS_ALARM == 8
    assert result.found == ("8 of 15 cards follow the card before in the same suit, one rank up or down",)


def test_a_common_run_that_ends_the_earlier_shoe_is_found() -> None:
    """The earlier shoe's last eight cards, read again as the first cards of a new shoe."""
    import random

    from station.cards import FULL_DECK

    cards = [c for _ in range(8) for c in FULL_DECK]
    random.Random(11).shuffle(cards)
    earlier = repeat.ShoeSequence.of(1, cards[:100])
    run = repeat.longest_common_run(cards[92:100] + cards[200:208], earlier)
    assert run is not None and (run.length, run.at, run.earlier_at) == (8, 0, 92)


def test_a_common_run_is_as_long_as_the_cards_it_shares() -> None:
    """Nine cards in the same order, then the two shoes part: a run of nine, not more."""
    import random

    from station.cards import FULL_DECK

    cards = [c for _ in range(8) for c in FULL_DECK]
    random.Random(12).shuffle(cards)
    earlier = repeat.ShoeSequence.of(1, cards[:200])
    first = cards[50:59] + cards[300:307]
    assert first[9] != cards[59]
    run = repeat.longest_common_run(first, earlier)
    assert run is not None and (run.length, run.at, run.earlier_at) == (9, 0, 50)


def test_cards_of_the_same_rank_in_a_row_are_steps_both_up_and_down() -> None:
    """docs/integrity.md: a rank step is to the same rank or one up (or one down): four aces,
    four fives, four nines and four kings in a row make 12 steps of the same rank."""
    from station.cards import parse_card

    codes = [f"{rank}{suit}" for rank in "A59K" for suit in "SHDC"]
    result = order.order_statistics([parse_card(c) for c in codes])
    assert (result.rank_steps_up, result.rank_steps_down, result.suited_steps) == (12, 12, 0)


def test_thirteen_rank_steps_are_enough_for_the_alarm() -> None:
    """docs/integrity.md: 13 or more of the 15 steps to the same rank or one up."""
    from station.cards import parse_card

    ranks = ["A", "A", "2", "2", "3", "3", "4", "4", "5", "5", "6", "6", "7", "7", "K", "5"]
    suits = "SHSDCSHCDHSCDSHD"  # no suit follows a pattern
    result = order.order_statistics([parse_card(r + s) for r, s in zip(ranks, suits, strict=True)])
    assert (result.rank_steps_up, result.suited_steps) == (order.RANK_STEPS_ALARM, 0) == (13, 0)
    assert result.found == ("13 of 15 cards are of the same rank as the card before or one rank up",)


def test_fewer_first_cards_than_the_test_needs_raise_no_finding_yet() -> None:
    """Ten cards in new-deck order: the statistics are counted, but an arrangement is judged on
    the first 16 cards only, once they are all read."""
    from station.cards import Card, Rank, Suit

    ten = [Card(rank, Suit.SPADES) for rank in Rank][:10]
    result = order.order_statistics(ten)
    assert (result.cards, result.suited_steps) == (10, 9) and result.found == ()


def test_of_two_runs_as_long_the_first_is_named() -> None:
    """The first cards share two runs of eight with the earlier shoe: the alarm names the first
    of them (card 1 here, card 11 there)."""
    import random

    from station.cards import FULL_DECK

    cards = [c for _ in range(8) for c in FULL_DECK]
    random.Random(13).shuffle(cards)
    earlier = repeat.ShoeSequence.of(1, cards[:200])
    first = cards[10:18] + cards[100:108]
    assert first[8] != cards[18]
    run = repeat.longest_common_run(first, earlier)
    assert run is not None and (run.length, run.at, run.earlier_at) == (8, 0, 10)
