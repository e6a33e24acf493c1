"""The fast analysers against slow, independent enumerations.

The references are written differently from the code under test on purpose: they walk every round card by card
(or value by value) through the engine's ``next_hand_by_values`` / ``play_round``, with no
multiset table, and the war reference works in probabilities with
the three burn cards actually drawn.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from station.analysis.baccarat_odds import (
    CompositionTooSmall,
    RoundCounts,
    analyse_baccarat,
    count_pairs,
    count_rounds,
)
from station.analysis.war_odds import analyse_war, count_war
from station.cards import FULL_DECK, Card, Rank, ShoeComposition, Suit, parse_cards
from station.cli.main import main
from station.games.baccarat.rules import Hand, next_hand_by_values, play_round


def falling(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


def baccarat_by_values(value_counts: Sequence[int]) -> Counter[str]:
    """Ordered six-card sequence counts per outcome, walking each round value by value."""
    cards = sum(value_counts)
    left = list(value_counts)
    tally: Counter[str] = Counter()

    def deal(player: list[int], banker: list[int], ways: int) -> None:
        hand = next_hand_by_values(player, banker)
        if hand is None:
            used = len(player) + len(banker)
            weight = ways * falling(cards - used, 6 - used)
            p, b = sum(player) % 10, sum(banker) % 10
            if b > p:
                tally["banker"] += weight
                if b == 6:
                    tally["banker_on_six"] += weight
            elif p > b:
                tally["player"] += weight
            else:
                tally["tie"] += weight
            return
        target = player if hand is Hand.PLAYER else banker
        for value in range(10):
            if left[value]:
                available = left[value]
                left[value] -= 1
                target.append(value)
                deal(player, banker, ways * available)
                target.pop()
                left[value] += 1

    deal([], [], 1)
    return tally


def baccarat_by_cards(shoe: Sequence[Card]) -> Counter[str]:
    """Every ordered six-card sequence of a tiny shoe, each played out by ``play_round``."""
    tally: Counter[str] = Counter()
    for sequence in itertools.permutations(shoe, 6):
        result = play_round(iter(sequence).__next__)
        tally[result.outcome.value] += 1
        if result.banker_wins_on_six:
            tally["banker_on_six"] += 1
        tally["player_pair"] += result.player_pair
        tally["banker_pair"] += result.banker_pair
    return tally


def _draws(counts: dict[int, int], how_many: int) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every sequence of ``how_many`` war ranks drawn without replacement, with its probability."""
    if how_many == 0:
        yield (), Fraction(1)
        return
    cards = sum(counts.values())
    for rank, n in counts.items():
        if n:
            counts[rank] -= 1
            for rest, probability in _draws(counts, how_many - 1):
                yield (rank, *rest), probability * Fraction(n, cards)
            counts[rank] += 1


def war_expectations(counts: dict[int, int], tie_pays: int, war_tie_bonus: int) -> dict[str, Fraction]:
    """Player's expected results per unit, dealing the three burn cards of a war for real."""
    expect: defaultdict[str, Fraction] = defaultdict(Fraction)
    for (player, dealer), first in _draws(dict(counts), 2):
        if player != dealer:
            result = 1 if player > dealer else -1
            expect["go_to_war"] += first * result
            expect["surrender"] += first * result
            expect["tie_wager"] -= first
            continue
        expect["tie"] += first
        expect["surrender"] -= first / 2
        expect["tie_wager"] += first * tie_pays
        after = dict(counts)
        after[player] -= 2
        for (_b1, _b2, _b3, war_player, war_dealer), then in _draws(after, 5):
            if war_player > war_dealer:
                result = 1
            elif war_player == war_dealer:
                result = 1 + war_tie_bonus
            else:
                result = -2
            expect["go_to_war"] += first * then * result
    return dict(expect)


# ------------------------------------------------------------ the tests


def _as_counter(counts: RoundCounts, pair: int | None = None) -> Counter[str]:
    tally = Counter(
        banker=counts.banker, banker_on_six=counts.banker_on_six, player=counts.player, tie=counts.tie
    )
    if pair is not None:
        tally["player_pair"] = tally["banker_pair"] = pair
    return +tally


def _composition_of(cards: Sequence[Card], decks: int = 8) -> ShoeComposition:
    return ShoeComposition(decks, Counter(cards))


# Shoes of up to 8 decks minus a few cards: the reference walks ~10^6 rounds per shoe, so
# only a handful of examples (about 1 s each), and no shrinking (a failure is reported as
# found rather than minimised over minutes).
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


@settings(max_examples=3, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow])
@given(
    decks=st.integers(4, 8),
    removed=st.lists(st.sampled_from(FULL_DECK), max_size=12),
)
def test_small_removals_match_value_by_value_enumeration(decks: int, removed: list[Card]) -> None:
    shoe = ShoeComposition(decks)
    shoe.remove_all(removed)
    values = shoe.by_baccarat_value()
    assert _as_counter(count_rounds(values)) == +baccarat_by_values(values)


# Heavily depleted shoes (the end of a shoe): a few dozen cards of a few values, where the
# reference is quick, so many shapes can be tried, including values that run out mid-round.
@settings(max_examples=25, deadline=None, phases=NO_SHRINK)
@given(st.lists(st.integers(0, 3), min_size=10, max_size=10).filter(lambda c: 6 <= sum(c) <= 20))
def test_depleted_shoes_match_value_by_value_enumeration(values: list[int]) -> None:
    counts = count_rounds(values)
    assert _as_counter(counts) == +baccarat_by_values(values)
    assert counts.total == falling(sum(values), 6)


# Card by card: every ordered six-card sequence of a tiny shoe played through play_round.
# This checks the normalisation itself (rounds of 4 and 5 cards weighted by the unused
# positions) and the pair counts, which go by rank rather than value.
@settings(max_examples=6, deadline=None, phases=NO_SHRINK)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7))
def test_tiny_shoes_match_card_by_card_enumeration(cards: list[Card]) -> None:
    shoe = _composition_of(cards)
    analysis = analyse_baccarat(shoe)
    assert _as_counter(analysis.counts, analysis.pair) == +baccarat_by_cards(cards)


def test_card_by_card_on_a_shoe_with_every_round_length() -> None:
    # Naturals (4 cards), a standing Player with a drawing Banker (5) and both drawing (6)
    # all occur among these eight cards; ranks repeat so pairs occur too.
    cards = parse_cards("9S 9H 4D 4C 5S TD KH 2C")
    expected = baccarat_by_cards(cards)
    analysis = analyse_baccarat(_composition_of(cards))
    assert _as_counter(analysis.counts, analysis.pair) == +expected
    assert expected["player_pair"] > 0 and expected["banker_on_six"] > 0


def test_pairs_count_by_rank_not_value() -> None:
    # Ten and King both count 0 but never pair.
    tens_and_kings = dict.fromkeys(Rank, 0)
    tens_and_kings[Rank.TEN] = tens_and_kings[Rank.KING] = 1
    tens_and_kings[Rank.TWO] = 4
    assert count_pairs(tens_and_kings) == 4 * 3 * falling(4, 4)


def test_fewer_cards_than_a_round_is_refused() -> None:
    with pytest.raises(CompositionTooSmall, match="5 cards left"):
        count_rounds([5, 0, 0, 0, 0, 0, 0, 0, 0, 0])


# War: the analyser leaves the burn cards out (exchangeability); the reference burns them.
@settings(max_examples=15, deadline=None, phases=NO_SHRINK)
@given(
    st.dictionaries(st.sampled_from(list(Rank)), st.integers(0, 4), min_size=2, max_size=4).filter(
        lambda counts: sum(counts.values()) >= 7
    ),
    st.integers(0, 12),
    st.integers(0, 2),
)
def test_war_matches_enumeration_with_burn_cards(counts: dict[Rank, int], tie_pays: int, bonus: int) -> None:
    shoe = ShoeComposition(8, Counter({Card(rank, suit): 1 for rank, n in counts.items() for suit in list(Suit)[:n]}))
    analysis = analyse_war(shoe, tie_pays=tie_pays, war_tie_bonus=bonus)
    expected = war_expectations({rank.war_rank: n for rank, n in counts.items()}, tie_pays, bonus)
    assert analysis.tie_probability == expected.get("tie", 0)
    assert analysis.edge("casino_war_go_to_war").house_edge == -expected["go_to_war"]
    assert analysis.edge("casino_war_surrender").house_edge == -expected["surrender"]
    assert analysis.edge(f"tie_wager_{tie_pays}_to_1").house_edge == -expected["tie_wager"]


def test_war_counts_share_one_denominator() -> None:
    shoe = ShoeComposition(6)
    shoe.remove_all(parse_cards("AS AH 7D 2C 2S"))
    c = count_war(shoe.by_rank())
    cards = len(shoe)
    assert c.total == falling(cards, 4)
    assert c.war_player_higher + c.war_dealer_higher + c.war_tie == c.tie


def test_six_deck_cli_counts_match_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--decks", "6", "--json"]) == 0
    outcomes = json.loads(capsys.readouterr().out)["outcomes"]
    printed = Counter({key: outcomes[key]["count"] for key in ("banker", "banker_on_six", "player", "tie")})
    assert printed == +baccarat_by_values([4 * 6 * 4] + [4 * 6] * 9)


@pytest.mark.soak
@settings(max_examples=40, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow])
@given(
    decks=st.integers(4, 8),
    removed=st.lists(st.sampled_from(FULL_DECK), max_size=300),
)
def test_soak_many_removals_match_value_by_value_enumeration(decks: int, removed: list[Card]) -> None:
    shoe = ShoeComposition(decks)
    for card in removed:  # up to 300 cards: skip any the smaller shoes have run out of
        if shoe.can_remove(card) and len(shoe) > 6:
            shoe.remove(card)
    values = shoe.by_baccarat_value()
    assert _as_counter(count_rounds(values)) == +baccarat_by_values(values)
