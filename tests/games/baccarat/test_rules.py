"""The baccarat engine against the seeds' worked examples and the full third-card table."""

from __future__ import annotations

import pytest

from station.cards import Card, Rank, Suit, parse_cards
from station.games.baccarat.rules import (
    Hand,
    Outcome,
    RoundStateError,
    banker_draws,
    next_hand,
    next_hand_by_values,
    point_count,
    points_of_values,
    result_of,
)


@pytest.mark.parametrize(
    ("codes", "count"),
    [("9S 7H", 6), ("5S 5H 5D", 5), ("KS AH 5D", 6), ("TS 9H", 9), ("10S 9H", 9), ("QS JH", 0)],
)
def test_point_count_worked_examples(codes: str, count: int) -> None:
    assert point_count(parse_cards(codes)) == count


# The Banker's rule after a Player third card, written out as the seeds' Table 1 does:
# banker two-card total -> the Player third-card values on which the Banker draws.
BANKER_DRAWS_ON = {
    0: set(range(10)), 1: set(range(10)), 2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def _cards_for_total(total: int) -> list[Card]:
    """Two cards whose total is ``total`` (0 -> K,K; otherwise A + (total-1) or 5 + ...)."""
    values = {0: (Rank.KING, Rank.KING), 1: (Rank.ACE, Rank.KING)}
    if total in values:
        a, b = values[total]
    else:
        a, b = Rank.ACE, list(Rank)[total - 2]  # list(Rank) is A,2..9: index i has value i+1
    return [Card(a, Suit.SPADES), Card(b, Suit.HEARTS)]


def test_helper_builds_totals() -> None:
    for total in range(10):
        assert point_count(_cards_for_total(total)) == total


@pytest.mark.parametrize("pt", range(10))
@pytest.mark.parametrize("bt", range(10))
@pytest.mark.parametrize("third", [None, *range(10)])
def test_third_card_table_every_total_pair_and_third_card(pt: int, bt: int, third: int | None) -> None:
    player, banker = _cards_for_total(pt), _cards_for_total(bt)
    first_next = next_hand(player, banker)
    if pt >= 8 or bt >= 8:
        assert first_next is None  # natural: both stand
        return
    if pt >= 6:
        # Player stands; the Banker draws on 0-5 and stands on 6-7.
        assert first_next is (Hand.BANKER if bt <= 5 else None)
        return
    assert first_next is Hand.PLAYER
    if third is None:
        return
    x_card = Card(Rank.KING if third == 0 else list(Rank)[third - 1], Suit.CLUBS)
    after = next_hand([*player, x_card], banker)
    assert after is (Hand.BANKER if third in BANKER_DRAWS_ON[bt] else None)
    assert banker_draws(bt, third) is (third in BANKER_DRAWS_ON[bt])


def test_initial_deal_order_is_player_banker_player_banker() -> None:
    assert next_hand_by_values([], []) is Hand.PLAYER
    assert next_hand_by_values([1], []) is Hand.BANKER
    assert next_hand_by_values([1], [2]) is Hand.PLAYER
    assert next_hand_by_values([1, 3], [2]) is Hand.BANKER


@pytest.mark.parametrize(("player", "banker", "why"), [
    ([], [1], "^cards out of dealing order: player has 0, banker 1$"),
    ([1, 2], [], "^cards out of dealing order: player has 2, banker 0$"),
    ([1, 2, 3, 4], [1, 2], "^impossible hands: player has 4 cards, banker 2$"),  # more than three cards
    ([1, 2], [1, 2, 3, 4], "^impossible hands: player has 2 cards, banker 4$"),
    ([1], [1, 2, 3], "^impossible hands: player has 1 cards, banker 3$"),  # one card against three
    ([1, 2, 3], [1], "^impossible hands: player has 3 cards, banker 1$"),
    ([8, 0, 1], [2, 3], "^a third card was dealt after a natural$"),
    ([1, 1], [9, 0, 1], "^a third card was dealt after a natural$"),
    ([1, 1], [1, 1, 5], "^banker drew before the player's third card$"),
    ([3, 3], [3, 4, 1], "^banker drew a third card when the rules say stand$"),  # Player 6, Banker 7
    ([3, 3, 1], [1, 1], "^player drew a third card when the rules say stand$"),  # Player 6 stands
    ([1, 1, 8], [1, 2, 5], "^banker drew a third card when the rules say stand$"),  # Banker 3 stands on an 8
    ([1, 1, 9], [2, 2, 5], "^banker drew a third card when the rules say stand$"),  # Banker 4 stands on a 9
])
def test_impossible_hands_are_refused_each_for_its_reason(player: list[int], banker: list[int], why: str) -> None:
    with pytest.raises(RoundStateError, match=why):
        next_hand_by_values(player, banker)


def test_every_possible_three_card_hand_pair_is_accepted() -> None:
    """The refusals above are not too wide: a Player who drew and a Banker who drew as the
    rules say are a complete round, and so is every two-card stand."""
    for x in range(10):
        assert next_hand_by_values([1, 1, x], [0, 0, 5]) is None  # Banker 0 always draws
        assert next_hand_by_values([3, 3], [0, 0, x]) is None  # Player 6 stands, Banker 0 drew
    assert next_hand_by_values([3, 3], [3, 4]) is None and next_hand_by_values([8, 0], [1, 1]) is None


def test_result_outcomes_and_pairs() -> None:
    r = result_of(parse_cards("AS 9D 5C"), parse_cards("KH 2C 7S"))
    assert (r.player_total, r.banker_total, r.outcome) == (5, 9, Outcome.BANKER)
    r = result_of(parse_cards("4S 4D"), parse_cards("9H 9C"))
    assert r.natural and r.player_pair and r.banker_pair and r.outcome is Outcome.TIE  # 8 v 8
    with pytest.raises(RoundStateError, match=r"^the round is not complete: the rules call for another card$"):
        result_of(parse_cards("AS 2D"), parse_cards("KH 7C"))


def test_two_card_totals_over_nine_count_their_last_digit_in_the_draw_rules() -> None:
    assert points_of_values([9, 7]) == 6 and points_of_values([5, 5, 5]) == 5 and points_of_values([0, 9]) == 9
    assert next_hand_by_values([5, 5], [9, 9]) is None  # Banker 18 counts 8: a natural
    assert next_hand_by_values([9, 9], [5, 5]) is None  # Player 18 counts 8: a natural
    assert next_hand_by_values([7, 9], [5, 5]) is Hand.BANKER  # Player 16 counts 6 and stands; Banker 0 draws
    assert next_hand_by_values([9, 7], [9, 8]) is None  # Player 6 stands, Banker 17 counts 7 and stands
    assert next_hand_by_values([5, 5, 9], [9, 4]) is Hand.BANKER  # Banker 13 counts 3, draws on a 9
