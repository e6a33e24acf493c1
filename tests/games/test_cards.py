"""Card codes and shoe compositions: every code parses or is refused by name; impossible
compositions are refused, and a failed removal removes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.cards import (
    FULL_DECK,
    Card,
    CardError,
    ImpossibleComposition,
    Rank,
    ShoeComposition,
    Suit,
    parse_card,
    parse_cards,
)


def test_every_card_code_round_trips() -> None:
    assert len(FULL_DECK) == 52 and len(set(FULL_DECK)) == 52
    for card in FULL_DECK:
        assert parse_card(card.code) == card
        assert parse_card(card.code.lower()) == card


@pytest.mark.parametrize(
    ("code", "card"),
    [
        ("10D", Card(Rank.TEN, Suit.DIAMONDS)),
        ("TD", Card(Rank.TEN, Suit.DIAMONDS)),
        (" ks ", Card(Rank.KING, Suit.SPADES)),
        ("AS", Card(Rank.ACE, Suit.SPADES)),
    ],
)
def test_accepted_spellings(code: str, card: Card) -> None:
    assert parse_card(code) == card


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("1S", "unknown rank '1'"),
        ("KX", "unknown suit 'X'"),
        ("K", "expected rank"),
        ("10", "unknown rank"),
        ("11D", "expected rank"),
        ("", "expected rank"),
    ],
)
def test_bad_codes_are_refused_by_name(code: str, words: str) -> None:
    with pytest.raises(CardError, match=f"^bad card code '{code}'") as info:
        parse_card(code)
    assert repr(code) in str(info.value) and words in str(info.value)


def test_parse_cards_takes_commas_and_spaces() -> None:
    assert [c.code for c in parse_cards("AS,10D 9C")] == ["AS", "TD", "9C"]
    with pytest.raises(CardError, match="'ZZ'"):
        parse_cards("AS,ZZ")


def test_values() -> None:
    assert [r.baccarat_value for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]
    assert [r.pip for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert Rank.ACE.war_rank > Rank.KING.war_rank > Rank.QUEEN.war_rank > Rank.JACK.war_rank > Rank.TEN.war_rank
    assert Rank.TWO.war_rank == min(r.war_rank for r in Rank)


@pytest.mark.parametrize("decks", [4, 5, 6, 7, 8])
def test_compositions_of_four_to_eight_decks(decks: int) -> None:
    shoe = ShoeComposition(decks)
    assert len(shoe) == 52 * decks
    assert shoe.by_baccarat_value() == [16 * decks] + [4 * decks] * 9
    assert all(count == 4 * decks for count in shoe.by_rank().values())


@pytest.mark.parametrize("decks", [0, 3, 9, 10, -1])
def test_impossible_deck_counts(decks: int) -> None:
    with pytest.raises(ImpossibleComposition, match="4 to 8 decks"):
        ShoeComposition(decks)


def test_a_card_beyond_the_deck_count_is_impossible() -> None:
    shoe = ShoeComposition(4)
    ace = parse_card("AS")
    for _ in range(4):
        shoe.remove(ace)
    assert not shoe.can_remove(ace) and ace not in shoe
    with pytest.raises(ImpossibleComposition, match="AS cannot come out of this shoe"):
        shoe.remove(ace)
    with pytest.raises(ImpossibleComposition, match=r"^AS: 5 copies is impossible in 4 decks$"):
        ShoeComposition(4, {ace: 5})


def test_remove_all_is_atomic() -> None:
    shoe = ShoeComposition(4)
    before = shoe.copy()
    with pytest.raises(ImpossibleComposition, match=r"^KH cannot come out of this shoe: all 4 have already been seen"):
        shoe.remove_all(parse_cards("KH KH KH KH KH 2C"))
    assert shoe == before
    shoe.remove_all(parse_cards("KH 2C"))
    assert len(shoe) == len(before) - 2 and shoe.count(parse_card("KH")) == 3


@given(st.lists(st.sampled_from(FULL_DECK), max_size=60))
def test_removing_seen_cards_counts_down(seen: list[Card]) -> None:
    shoe = ShoeComposition(8)
    shoe.remove_all(seen)
    assert len(shoe) == 416 - len(seen)
    for card in set(seen):
        assert shoe.count(card) == 8 - seen.count(card)
