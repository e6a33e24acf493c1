"""Rated play (docs/ratings.md): a rating opened by the card just read or a number a supervisor
types, refused with its reason where a role or a rule forbids it; its hands, bets and stakes;
its theoretical win equal to an independent sum of stake x house edge, with the edges worked
out here from the published formulas' inputs (the enumeration's counts), not taken from the
station; the time played from the door's stamps; buy-ins with the rated player's card."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from station.analysis.baccarat_odds import count_rounds
from station.cards import ShoeComposition
from station.core import outputs as out
from station.events import Actor, BuyIn, Event, PlayerCardRead, RatingClosed, RatingOpened

SUE = Actor("supervisor", "sue")
DEE = Actor("dealer", "dee")
T0, T1 = "2026-12-06T20:00:00.000000Z", "2026-12-06T21:30:00.000000Z"


def edges_8_decks() -> dict[str, Fraction]:
    """Banker (commission), Player and Tie 8:1 from the exact counts of 8-deck rounds."""
    c = count_rounds(ShoeComposition(8).by_baccarat_value())
    total = c.banker + c.player + c.tie
    return {"banker": -Fraction(c.banker * Fraction(95, 100) - c.player, total),
            "player": -Fraction(c.player - c.banker, total), "tie": -Fraction(8 * c.tie - c.banker - c.player, total)}


@pytest.mark.parametrize(("event", "reason"), [
    (RatingOpened("1", "ann", "C-77", Actor("technician", "tom"), T0), "only a dealer or a supervisor rates a player"),
    (RatingOpened("9", "ann", "C-77", SUE, T0), "there is no box '9' on this table: 1, 2, 3, 4, 5, 6, 7"),
    (RatingOpened("1", " ", "C-77", SUE, T0), "name the player, as their bets name them"),
    (RatingOpened("1", "ann", " ", SUE, T0), "name the player's card"),
    (RatingOpened("1", "ann", "C-77", DEE, T0), "a dealer rates a player by their card: swipe it, or a supervisor "
                                                 "types its number"),
    (RatingOpened("1", "ann", "C-77", DEE, T0, "reader"), "card C-77 is not the card last read (none read): "
                                                           "swipe it again"),
    (RatingOpened("1", "ann", "C-77", SUE, "yesterday"), "'yesterday' is not a time as the journal writes it"),
    (RatingClosed("1", "ann", SUE, T1), "ann at box 1 is not rated"),
    (BuyIn("1", "ann", 0, DEE), "a buy-in of 0: it is more than 0"),
    (BuyIn("1", "ann", 5000, Actor("technician", "tom")), "only a dealer or a supervisor records a buy-in"),
    (PlayerCardRead("cardreader", "  "), "an empty card read: swipe or scan it again"),
])
def test_refused_with_its_reason(table: Any, event: Event, reason: str) -> None:
    table.post(event)
    refused = table.last(out.Refused)
    assert (refused.what, refused.reason) == (event.kind, reason)
    assert table.machine.ratings == {}


def test_a_rating_counts_its_players_bets_and_their_theoretical_win(table: Any) -> None:
    table.post(PlayerCardRead("cardreader", "4000123456789"))
    assert table.last(out.PlayerCardPresented).card == "4000123456789"
    table.post(RatingOpened("1", "ann", "4000123456789", DEE, T0, "reader"))
    started = table.last(out.RatingStarted)
    assert (started.rating, started.card, started.door, started.who) == (1, "4000123456789", "reader", "dee")
    table.post(RatingOpened("2", "bo", "4000123456789", SUE, T0))
    assert table.last(out.Refused).reason == "card 4000123456789 is rated at another box: close that rating first"
    table.post(RatingOpened("2", "bo", "C-2", SUE, T0))
    table.post(BuyIn("1", "ann", 100_000, DEE), BuyIn("3", "cy", 20_000, DEE))
    assert [(b.card, b.amount) for b in table.of(out.CashBuyIn)] == [("4000123456789", 100_000), ("", 20_000)]

    table.start_shoe()
    played = [(("1", "ann", "banker", 2000), ("1", "ann", "tie", 1000), ("2", "bo", "player", 1000),
               ("3", "cy", "player", 5000)), (("1", "ann", "player", 3000),), (("2", "bo", "banker", 4000),)]
    for bets in played:
        for box, who, region, amount in bets:
            table.bet(box, who, region, amount)
        table.act("no_more_bets").cards("KH 3H 2D 3D 2S").act("next_round")  # Banker 6 v 4
    table.post(RatingClosed("1", "ann", DEE, T1))
    ended = table.last(out.RatingEnded)
    edge = edges_8_decks()
    theo = 2000 * edge["banker"] + 1000 * edge["tie"] + 3000 * edge["player"]
    assert (ended.hands, ended.bets, ended.stakes) == (2, 3, 6000)
    assert ended.theo_exact == f"{theo.numerator}/{theo.denominator}" and ended.theo == round(theo)
    assert ended.played_us == 90 * 60 * 1_000_000
    assert (ended.opened_at, ended.closed_at) == (T0, T1)
    assert list(table.machine.ratings) == ["2|bo"]
    table.post(RatingClosed("2", "bo", SUE, "2026-12-06T19:00:00.000000Z"))
    assert table.last(out.Refused).reason == "'2026-12-06T19:00:00.000000Z' is not a time after the rating opened"


def test_ratings_replay_the_same_from_the_start_and_from_a_checkpoint(table: Any) -> None:
    from station.core.state import machine_state, restore_machine

    table.start_shoe()
    table.post(PlayerCardRead("cardreader", "77"), RatingOpened("1", "ann", "77", DEE, T0, "reader"))
    table.bet("1", "ann", "player", 3000).act("no_more_bets").cards("KH 3H 2D 3D 2S")
    state = machine_state(table.machine)
    assert machine_state(restore_machine(table.options, state)) == state
    table.restart()
    assert machine_state(table.machine) == state
    table.act("next_round").post(RatingClosed("1", "ann", SUE, T1))
    assert table.last(out.RatingEnded).stakes == 3000


def test_a_correction_of_a_rated_round_rates_it_as_corrected(table: Any) -> None:
    from station.events import BetCorrected

    table.start_shoe()
    table.post(RatingOpened("1", "ann", "C-1", SUE, T0))
    table.bet("1", "ann", "player", 3000).act("no_more_bets").cards("KH 3H 2D 3D 2S").act("next_round")
    table.post(RatingOpened("2", "bo", "C-2", SUE, T0))  # bo's rating begins after round 1-1
    table.post(BetCorrected("1-1", "1", "ann", "player", "1", "ann", "player", 5000, "keyed 30, was 50", SUE))
    table.post(BetCorrected("1-1", "1", "ann", "player", "2", "bo", "player", 5000, "it was bo's", SUE))
    table.post(RatingClosed("1", "ann", SUE, T1), RatingClosed("2", "bo", SUE, T1))
    ann, bo = table.of(out.RatingEnded)
    assert (ann.hands, ann.bets, ann.stakes, ann.theo_exact) == (0, 0, 0, "0/1")  # the bet was never hers
    assert (bo.hands, bo.bets, bo.stakes) == (0, 0, 0)  # a round before bo's rating counts for nobody
