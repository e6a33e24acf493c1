"""Corners of the round's steps that mutation testing (tools/mutate.py, docs/testing.md) found
unguarded: each test here fails on a mutant that survived the rest of tests/core.

Every test drives the real core loop on a real journal (inputs in, outputs and state out)."""

from __future__ import annotations

from typing import Any

from station.events import DealerAction


def test_a_war_is_burning_until_its_last_burn_card(make_table: Any) -> None:
    """Each of the three burn cards before the war cards keeps the table burning; the war cards
    are asked for only after the third."""
    t = make_table(game="war")
    t.start_shoe()
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("9H 9C")
    t.post(DealerAction("war", box="1"))
    for left in (3, 2, 1):
        assert (t.state, t.expectation) == ("war_burning", f"burn {left} card{'s' if left > 1 else ''}")
        t.cards("2S")
    assert (t.state, t.expectation) == ("war_dealing", "deal box 1 war card")


def test_a_card_burned_by_decision_during_a_war_s_burn_counts_as_one_of_its_three(make_table: Any) -> None:
    """A fifth king of spades in a 4-deck shoe, read as the war's second burn card: the
    supervisor burns it, and it is the second of the three (one more to burn, not two)."""
    from station.core import outputs as out

    t = make_table(game="war", decks=4)
    t.start_shoe()
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("KS 3H").act("next_round")
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("KS KS")
    t.post(DealerAction("war", box="1"))
    t.cards("KS")
    assert (t.state, t.expectation) == ("war_burning", "burn 2 cards")
    t.cards("KS")
    assert t.last(out.IrregularityRaised).reason == "impossible_card"
    t.decide("burn")
    assert (t.state, t.expectation) == ("war_burning", "burn 1 card")
    t.cards("2H")
    assert (t.state, t.expectation) == ("war_dealing", "deal box 1 war card")


def test_cards_held_beyond_the_war_s_last_burn_are_set_aside_not_dealt(make_table: Any) -> None:
    """The war's last burn card is a fifth king of spades; a 5♣ read while the table waits is
    held too. Burned by the supervisor, the king completes the burn and the 5♣ is set aside:
    the war cards are still to be dealt, box 1's first."""
    t = make_table(game="war", decks=4)
    t.start_shoe()
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("KS 3H").act("next_round")
    t.bet("1", "ann", "war", 2000).act("no_more_bets").cards("KS KS")
    t.post(DealerAction("war", box="1"))
    t.cards("KS 4D KS 5C")
    assert [h["card"] for h in t.loop.snapshot()["irregularity"]["held"]] == ["KS", "5C"]
    t.decide("burn")
    assert (t.state, t.expectation) == ("war_dealing", "deal box 1 war card")
    assert [c.code for c in t.machine.round.burned] == ["KS", "4D", "KS", "5C"]
    assert [c.code for _, c in t.machine.round.dealt] == ["KS", "KS"]


def test_cards_held_beyond_the_shoe_s_last_burn_card_are_not_burned_with_it(make_table: Any) -> None:
    """The same at the start of a shoe: a fifth 2♣ as the last burn card, a 9♥ held after it;
    the burn is the exposed 5♠'s five cards, the 9♥ is no burn card."""
    from station.core import outputs as out

    t = make_table(decks=4)
    t.act("shuffle_done", "confirm_cut").cards("5S 2C 2C 2C 2C 2C 9H")
    assert [h["card"] for h in t.loop.snapshot()["irregularity"]["held"]] == ["2C", "9H"]
    t.decide("burn")
    assert t.state == "betting"
    assert [c.code for c in t.last(out.ShoeStarted).burned] == ["2C"] * 5
