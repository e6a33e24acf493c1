"""The baccarat table differential (5.17, 5.18)."""

from __future__ import annotations

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
    options: dict[str, Any] = dict(variant="mini", boxes=7, min_bet=10, max_bet=1000, chips=Chips((1, 5, 25, 100)))
    options.update(changes)
    return BaccaratTable(**options)


def full(**changes: Any) -> BaccaratTable:
    options: dict[str, Any] = dict(
        variant="full", boxes=14, standing_regions=2, min_bet=100, max_bet=50_000, chips=Chips((100, 500))
    )
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
    assert differential_excess(bets[:1] + [Bet(box(2), "bob", P, 300)], table) == 0


def test_player_side_reduced_pro_rata_and_rounded_down() -> None:
    table = mini(min_bet=100, max_bet=100_000, chips=Chips((25, 100)), table_differential=300)
    bets = [Bet(box(1), "ann", P, 1000), Bet(box(2), "bob", P, 575), Bet(box(3), "cy", B, 500)]
    result = reduce_for_differential(bets, table)
    assert result.possible
    assert [(r.index, r.bet.player, r.new_amount, r.returned) for r in result.reductions] == [
        (0, "ann", 500, 500),
        (1, "bob", 300, 275),
    ]
    summary = "Player total 1575 exceeds Banker total 500 by 1075; the table differential is 300"
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
