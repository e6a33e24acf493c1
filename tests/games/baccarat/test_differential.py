"""The baccarat table differential (5.17, 5.18)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from station.games.baccarat.differential import (
    differential_excess,
    reduce_for_differential,
    side_totals,
)
from station.games.baccarat.rules import Outcome
from station.games.baccarat.table import BaccaratTable
from station.games.baccarat.wagers import (
    Bet,
    box,
    valid_part,
)
from station.games.layout import Acceptance
from station.games.table import Chips

B, P, T = Outcome.BANKER, Outcome.PLAYER, Outcome.TIE


def mini(**changes: Any) -> BaccaratTable:
    """A mini table in whole currency units with chips of 1 (the seeds' worked example)."""
    options: dict[str, Any] = {"variant": "mini", "boxes": 7, "min_bet": 10, "max_bet": 1000,
                               "chips": Chips((1, 5, 25, 100))}
    options.update(changes)
    return BaccaratTable(**options)


def full(**changes: Any) -> BaccaratTable:
    options: dict[str, Any] = {
        "variant": "full", "boxes": 14, "standing_regions": 2, "min_bet": 100, "max_bet": 50_000,
        "chips": Chips((100, 500)),
    }
    options.update(changes)
    return BaccaratTable(**options)


def refused(result: Acceptance, rule: str, text: str) -> None:
    assert not result, "expected a refusal"
    assert result.rule == rule
    assert text in result.reason, result.reason


# --- Table differential -------------------------------------------------------------------


def test_no_differential_means_never_exceeded() -> None:
    bets = [Bet(box(1), "ann", B, 1000)]
    assert differential_excess(bets, mini()) == 0
    assert reduce_for_differential(bets, mini()).reductions == ()


def test_differential_excess_ignores_tie_bets() -> None:
    table = mini(table_differential=300)
    bets = [Bet(box(1), "ann", B, 600), Bet(box(2), "bob", P, 200), Bet(box(3), "cy", T, 900)]
    assert side_totals(bets) == (600, 200)
    assert differential_excess(bets, table) == 100
    assert differential_excess([*bets[:1], Bet(box(2), "bob", P, 300)], table) == 0


def test_player_side_reduced_pro_rata_and_rounded_down() -> None:
    table = mini(min_bet=100, max_bet=100_000, chips=Chips((25, 100)), table_differential=300)
    bets = [Bet(box(1), "ann", P, 1000), Bet(box(2), "bob", P, 575), Bet(box(3), "cy", B, 500)]
    result = reduce_for_differential(bets, table)
    assert result.possible
    assert [(r.index, r.bet.player, r.new_amount, r.returned) for r in result.reductions] == [
        (0, "ann", 500, 500),
        (1, "bob", 300, 275),
    ]
    summary = "Player total 15.75 exceeds Banker total 5.00 by 10.75; the table differential is 3.00"
    assert summary in result.reductions[0].reason
    after = result.apply(bets)
    assert side_totals(after) == (500, 800)
    assert differential_excess(after, table) == 0


def test_banker_side_reduced_to_amounts_rule_5_12_accepts() -> None:
    table = mini(table_differential=50)  # chips of 1: Banker bets in steps of 20
    bets = [Bet(box(1), "ann", B, 200), Bet(box(2), "bob", B, 100), Bet(box(3), "cy", P, 100)]
    result = reduce_for_differential(bets, table)
    assert result.possible
    after = result.apply(bets)
    assert all(b.amount % 20 == 0 for b in after if b.on is B)
    assert all(valid_part(b, table) == b.amount for b in after)
    banker, player = side_totals(after)
    assert abs(banker - player) <= 50 and banker <= 300
    assert [b.amount for b in after] == [100, 40, 100]


def test_equal_bets_jumping_past_the_window_get_rounding_losses_back() -> None:
    # Five equal Banker bets of 100 with chips of 25 and a differential of 10 against 100 on
    # Player: plain pro rata rounding down would take every bet to 0 and leave Player 100
    # over; the rounding losses are given back so the sides end level.
    table = mini(min_bet=25, max_bet=1000, chips=Chips((25,)), banker_payout="no_commission", table_differential=10)
    bets = [Bet(box(i), f"p{i}", B, 100) for i in range(1, 6)] + [Bet(box(6), "q", P, 100)]
    result = reduce_for_differential(bets, table)
    assert result.possible
    after = result.apply(bets)
    assert differential_excess(after, table) == 0
    assert side_totals(after) == (100, 100)
    assert "losses given back" in result.reductions[0].reason


def test_impossible_differential_is_reported_not_guessed() -> None:
    # Banker bets move in steps of 20 (chips of 1, commission); a differential of 5 around a
    # Player total of 30 needs a Banker total of 25 to 35: no multiple of 20 fits.
    table = mini(table_differential=5)
    bets = [Bet(box(1), "ann", B, 100), Bet(box(2), "bob", P, 30)]
    result = reduce_for_differential(bets, table)
    assert not result.possible
    assert result.reductions == ()
    assert "a supervisor must decide" in result.reason
    assert result.apply(bets) == bets


# --- Worked reductions: exactly what is cut, and no more than must be ----------------------


def table_of(chip: int, payout: str, differential: int) -> BaccaratTable:
    return mini(min_bet=chip, max_bet=chip * 100_000, chips=Chips((chip,)), banker_payout=payout,
                table_differential=differential)


def cuts(result: Any) -> list[tuple[int, int]]:
    return [(r.index, r.new_amount) for r in result.reductions]


def test_nothing_exceeded_nothing_given_back_and_no_ratio() -> None:
    bets = [Bet(box(1), "ann", B, 100), Bet(box(2), "bob", P, 80)]
    result = reduce_for_differential(bets, mini(table_differential=20))
    assert (result.possible, result.reductions, result.ratio, result.given_back) == (True, (), None, 0)
    assert result.reason == "the table differential is not exceeded"


def test_plain_pro_rata_gives_nothing_back() -> None:
    table = mini(min_bet=100, max_bet=100_000, chips=Chips((25, 100)), table_differential=300)
    bets = [Bet(box(1), "ann", P, 1000), Bet(box(2), "bob", P, 575), Bet(box(3), "cy", B, 500)]
    result = reduce_for_differential(bets, table)
    # The largest common ratio that still fits: 12/23 takes 575 to exactly 300 (1000 to 521.7, so 500).
    assert result.given_back == 0 and result.ratio == Fraction(12, 23)
    words = ("Player bets scaled by 12/23 and rounded down to a multiple of 0.25: "
             "ann's Player bet on box 1 10.00 -> 5.00")
    assert words in result.reductions[0].reason


def test_a_bet_that_may_be_kept_whole_is_kept_whole() -> None:
    # Commission, chips of 1: Banker bets move in steps of 20. bob's 45 was accepted in error
    # (5.13: 40 valid, 5 void) and can only go to 40; ann's 60 may then stay 60: Banker 100
    # against Player 97 is within the differential of 4. Cutting ann too would cut more than
    # the differential needs.
    bets = [Bet(box(1), "ann", B, 60), Bet(box(2), "bob", B, 45), Bet(box(3), "cy", P, 97)]
    result = reduce_for_differential(bets, table_of(1, "commission", 4))
    assert cuts(result) == [(1, 40)] and result.given_back == 0 and result.ratio == 1
    assert side_totals(result.apply(bets)) == (100, 97)


def test_a_reduced_bet_never_rises_above_what_was_bet() -> None:
    # Chips of 5 under commission: Banker steps of 100. 290 can go down to 200 but never up
    # to 300, even though 300 would still be within the differential.
    bets = [Bet(box(1), "ann", B, 25), Bet(box(2), "bob", B, 290), Bet(box(3), "cy", P, 115)]
    result = reduce_for_differential(bets, table_of(5, "commission", 190))
    assert cuts(result) == [(0, 0), (1, 200)] and result.ratio == Fraction(61, 63)


def test_rounding_losses_go_back_to_the_bet_that_lost_the_largest_share() -> None:
    # Player 420 against Banker 310 and no differential: 31/42 of 260 is 191.9 and of 160 is
    # 118.1; rounded down to chips of 5 that is 190 and 115, 5 short. 160 lost 3.1 of a chip
    # of 5 and 260 only 1.9: the 5 goes back to the 160.
    bets = [Bet(box(1), "t", T, 190), Bet(box(1), "ann", B, 265), Bet(box(2), "bob", P, 260),
            Bet(box(2), "t", T, 130), Bet(box(3), "cy", B, 45), Bet(box(4), "dee", P, 160)]
    result = reduce_for_differential(bets, table_of(5, "no_commission", 0))
    assert cuts(result) == [(2, 190), (5, 120)] and result.given_back == 5
    assert side_totals(result.apply(bets)) == (310, 310)


def test_giving_back_stops_as_soon_as_the_differential_is_met() -> None:
    # Twenty Banker bets of 100, chips of 10, against Player 100 and a differential of 20:
    # 3/50 of each is 6, rounded down 0; the rounding losses go back one chip at a time, in
    # table order (all lost the same share), until the Banker total reaches 80, and no further.
    bets = [Bet(box(1 + i % 7), f"p{i}", B, 100) for i in range(20)] + [Bet(box(7), "q", P, 100)]
    result = reduce_for_differential(bets, table_of(10, "no_commission", 20))
    assert cuts(result) == [(i, 10 if i < 8 else 0) for i in range(20)]
    assert result.given_back == 80 and side_totals(result.apply(bets)) == (80, 100)


def test_rounding_losses_may_give_a_bet_back_whole() -> None:
    # Three Player bets of one chip against Banker 10, differential 5: each rounds down to 0;
    # one chip back, the first bet kept whole, meets it (Player 10 against Banker 10).
    bets = [Bet(box(i), f"p{i}", P, 10) for i in (1, 2, 3)] + [Bet(box(7), "q", B, 10)]
    result = reduce_for_differential(bets, table_of(10, "no_commission", 5))
    assert cuts(result) == [(1, 0), (2, 0)] and result.given_back == 10
