"""The shoe procedure: burn from the exposed card, cut card, last round, continuous shuffler."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.cards import Card, Rank, Suit, parse_card
from station.games.shoe_procedure import ShoeMode, ShoePhase, ShoeProcedureError, ShoeProgress, burn_count


def burned_in(first: str) -> ShoeProgress:
    shoe = ShoeProgress.new_shoe().first_card_exposed(parse_card(first))
    while shoe.phase is ShoePhase.BURN:
        shoe = shoe.card_burned()
    return shoe


def play_round(shoe: ShoeProgress) -> ShoeProgress:
    return shoe.after_round_started().round_completed()


@pytest.mark.parametrize(
    ("first", "burns"), [("AS", 1), ("2H", 2), ("7D", 7), ("9C", 9), ("TS", 10), ("JH", 10), ("QD", 10), ("KC", 10)]
)
def test_exposed_card_sets_the_burn_count_and_is_discarded_too(first: str, burns: int) -> None:
    shoe = ShoeProgress.new_shoe()
    assert shoe.instruction() == "expose the first card"
    shoe = shoe.first_card_exposed(parse_card(first))
    assert (shoe.phase, shoe.burns_due) == (ShoePhase.BURN, burns)
    assert shoe.instruction() == f"burn {burns} card{'s' if burns > 1 else ''}"
    shoe = burned_in(first)
    assert shoe.phase is ShoePhase.READY and shoe.burned == burns
    assert shoe.discarded_before_play == burns + 1


def test_a_new_shoe_has_burned_nothing_and_seen_no_cut_card() -> None:
    for shoe in (ShoeProgress.new_shoe(), ShoeProgress.new_shoe(ShoeMode.CONTINUOUS), ShoeProgress(ShoeMode.CUT_CARD)):
        assert (shoe.burns_due, shoe.burned, shoe.rounds_started, shoe.rounds_completed) == (0, 0, 0, 0)
        assert (shoe.cut_card_out, shoe.cut_mid_round, shoe.out_of_cards) == (False, False, False)
        assert shoe.cut_card_round is None
        assert shoe.cut_cards == 1 and shoe.rounds_after_cut == 1


def test_burn_count_uses_burn_values_not_baccarat_values() -> None:
    assert [burn_count(Card(rank, Suit.HEARTS)) for rank in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]


def test_no_round_before_the_burn_is_complete() -> None:
    shoe = ShoeProgress.new_shoe()
    with pytest.raises(ShoeProcedureError, match=r"cannot start a round now: .*expose the first card"):
        shoe.after_round_started()
    shoe = shoe.first_card_exposed(parse_card("3S")).card_burned()
    with pytest.raises(ShoeProcedureError, match="burn 2 cards"):
        shoe.after_round_started()
    ready = burned_in("3S")
    with pytest.raises(ShoeProcedureError, match=r"^cannot burn a card now: the shoe is in phase ready \(deal\)$"):
        ready.card_burned()
    with pytest.raises(ShoeProcedureError, match=r"^cannot expose the first card now: the shoe is in phase ready"):
        ready.first_card_exposed(parse_card("4S"))


def test_cut_card_during_a_round_means_one_more_round() -> None:
    shoe = play_round(play_round(burned_in("5H")))
    shoe = shoe.after_round_started().cut_card_seen(mid_round=True)
    assert shoe.instruction() == "cut card out: 1 more round after this one"
    assert not shoe.last_round
    shoe = shoe.round_completed()
    assert not shoe.is_shoe_end
    assert shoe.last_round and shoe.instruction() == "cut card out: last round"
    shoe = shoe.after_round_started()
    assert shoe.last_round
    shoe = shoe.round_completed()
    assert shoe.is_shoe_end and shoe.instruction() == "shoe finished: shuffle"
    assert (shoe.rounds_started, shoe.rounds_completed, shoe.cut_card_round) == (4, 4, 2)
    with pytest.raises(ShoeProcedureError, match=r"^cannot start a round now: the shoe is in phase ended"):
        shoe.after_round_started()


def test_cut_card_where_a_first_card_would_be_makes_that_round_the_last() -> None:
    shoe = play_round(burned_in("5H")).cut_card_seen(mid_round=False)
    assert shoe.last_round and shoe.instruction() == "cut card out: last round"
    shoe = shoe.after_round_started()
    assert shoe.last_round
    shoe = shoe.round_completed()
    assert shoe.is_shoe_end and shoe.rounds_completed == 2


@pytest.mark.parametrize(("rounds_after_cut", "mid_round", "rounds_after"), [
    (0, True, 0), (0, False, 0), (2, True, 2), (2, False, 2), (3, True, 3),
])
def test_rounds_after_the_cut_card_are_configurable(rounds_after_cut: int, mid_round: bool, rounds_after: int) -> None:
    shoe = ShoeProgress.new_shoe(rounds_after_cut=rounds_after_cut).first_card_exposed(parse_card("AS")).card_burned()
    if mid_round:
        shoe = shoe.after_round_started().cut_card_seen(mid_round=True).round_completed()
    else:
        shoe = play_round(shoe).cut_card_seen(mid_round=False)
    played = 0
    while not shoe.is_shoe_end:
        shoe = play_round(shoe)
        played += 1
    assert played == rounds_after


def test_with_two_rounds_after_the_cut_the_last_round_is_called_only_for_the_last() -> None:
    shoe = ShoeProgress.new_shoe(rounds_after_cut=2).first_card_exposed(parse_card("AS")).card_burned()
    assert not shoe.cut_card_out
    shoe = shoe.after_round_started().cut_card_seen(mid_round=True)
    assert shoe.cut_card_out and shoe.instruction() == "cut card out: 2 more rounds after this one"
    shoe = shoe.round_completed()  # two rounds to go
    assert (shoe.phase, shoe.rounds_left, shoe.last_round) == (ShoePhase.READY, 2, False)
    assert shoe.instruction() == "deal"
    shoe = shoe.after_round_started()
    assert not shoe.last_round and shoe.instruction() == "cut card out: 1 more round after this one"
    shoe = shoe.round_completed()
    assert shoe.last_round and shoe.instruction() == "cut card out: last round"
    shoe = shoe.after_round_started()
    assert shoe.last_round and shoe.round_completed().is_shoe_end


def test_cut_card_reports_out_of_place_are_refused() -> None:
    ready = burned_in("2S")
    with pytest.raises(ShoeProcedureError, match="during a round"):
        ready.cut_card_seen(mid_round=True)
    with pytest.raises(ShoeProcedureError, match="between rounds"):
        ready.after_round_started().cut_card_seen(mid_round=False)
    with pytest.raises(ShoeProcedureError, match="already come out"):
        ready.cut_card_seen(mid_round=False).cut_card_seen(mid_round=False)
    with pytest.raises(ShoeProcedureError, match="between rounds while the shoe is in phase expose"):
        ShoeProgress.new_shoe().cut_card_seen(mid_round=False)  # still exposing
    with pytest.raises(ShoeProcedureError, match=r"^rounds_after_cut must be a whole number 0 or more, got -1$"):
        ShoeProgress.new_shoe(rounds_after_cut=-1)


def test_a_second_cutting_card_behind_the_last_card_means_no_card_is_left() -> None:
    shoe = ShoeProgress.new_shoe(rounds_after_cut=2, cut_cards=2).first_card_exposed(parse_card("AS")).card_burned()
    shoe = shoe.after_round_started().cut_card_seen(mid_round=True).round_completed()
    assert (shoe.rounds_left, shoe.out_of_cards) == (2, False)
    shoe = shoe.after_round_started().cut_card_seen(mid_round=True)  # the second: the cards ran out
    assert shoe.out_of_cards and shoe.rounds_left == 0 and shoe.last_round
    assert shoe.instruction() == "second cutting card out: no cards left"
    assert shoe.round_completed().is_shoe_end
    with pytest.raises(ShoeProcedureError, match="the cut card has already come out of this shoe"):
        shoe.cut_card_seen(mid_round=True)


def test_a_second_cutting_card_between_rounds_ends_the_shoe_at_once() -> None:
    shoe = ShoeProgress.new_shoe(cut_cards=2).first_card_exposed(parse_card("AS")).card_burned()
    shoe = shoe.cut_card_seen(mid_round=False)
    assert shoe.last_round and not shoe.is_shoe_end
    with pytest.raises(ShoeProcedureError, match="cut card reported during a round while the shoe is in phase ready"):
        shoe.cut_card_seen(mid_round=True)
    ended = shoe.cut_card_seen(mid_round=False)
    assert ended.is_shoe_end and ended.out_of_cards
    with pytest.raises(ShoeProcedureError, match="the cut card has already come out of this shoe"):
        ended.cut_card_seen(mid_round=False)
    one = ShoeProgress.new_shoe().first_card_exposed(parse_card("AS")).card_burned().cut_card_seen(mid_round=False)
    with pytest.raises(ShoeProcedureError, match="the cut card has already come out of this shoe"):
        one.cut_card_seen(mid_round=False)
    for bad in (0, 3, True):
        with pytest.raises(ShoeProcedureError, match="a shoe holds 1 or 2 cutting cards"):
            ShoeProgress.new_shoe(cut_cards=bad)


def test_continuous_shuffler_has_no_burn_no_cut_card_and_no_end() -> None:
    shoe = ShoeProgress.new_shoe(ShoeMode.CONTINUOUS)
    assert shoe.phase is ShoePhase.READY and shoe.instruction() == "deal"
    with pytest.raises(ShoeProcedureError, match=r"^cannot expose the first card now: the shoe is in phase ready"):
        shoe.first_card_exposed(parse_card("9S"))
    for _ in range(500):
        shoe = play_round(shoe)
        assert not shoe.is_shoe_end and not shoe.last_round
    with pytest.raises(ShoeProcedureError, match="no cut card"):
        shoe.after_round_started().cut_card_seen(mid_round=True)
    assert shoe.discarded_before_play == 0


EVENTS = st.sampled_from(["expose", "burn", "start", "complete", "cut_mid", "cut_between"])


@given(st.lists(st.tuples(EVENTS, st.sampled_from(list(Rank))), max_size=60), st.integers(0, 3))
def test_any_sequence_of_events_keeps_the_shoe_consistent(events: list[tuple[str, Rank]], after_cut: int) -> None:
    """Whatever events arrive, in whatever order: a refused event never changes the state
    (the procedure is a value, so the machine can keep it while refusing), rounds are
    started before they are completed, no more cards are burned than the exposed card calls
    for, and a shoe ends exactly ``rounds_after_cut`` rounds after the round in which the cut
    card appeared."""

    steps: dict[str, Callable[[ShoeProgress, Rank], ShoeProgress]] = {
        "expose": lambda s, rank: s.first_card_exposed(Card(rank, Suit.SPADES)),
        "burn": lambda s, _: s.card_burned(),
        "start": lambda s, _: s.after_round_started(),
        "complete": lambda s, _: s.round_completed(),
        "cut_mid": lambda s, _: s.cut_card_seen(mid_round=True),
        "cut_between": lambda s, _: s.cut_card_seen(mid_round=False),
    }

    shoe = ShoeProgress.new_shoe(rounds_after_cut=after_cut)
    for name, rank in events:
        before = shoe
        try:
            shoe = steps[name](shoe, rank)
        except ShoeProcedureError:
            assert shoe is before
        assert shoe.rounds_completed <= shoe.rounds_started <= shoe.rounds_completed + 1
        assert shoe.burned <= shoe.burns_due
        assert shoe.cut_card_out is (shoe.cut_card_round is not None)
        if shoe.is_shoe_end:
            assert shoe.cut_card_round is not None
            dealt_after = shoe.rounds_completed - shoe.cut_card_round
            assert dealt_after == after_cut + (1 if shoe.cut_mid_round else 0)
