"""Baccarat bet acceptance (5.2-5.13)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from station.games.baccarat.rules import Outcome
from station.games.baccarat.table import BaccaratTable, RegionCap
from station.games.baccarat.wagers import (
    Bet,
    accept_bet,
    banker_step,
    box,
    standing,
    valid_part,
)
from station.games.layout import Acceptance
from station.games.table import Chips

B, P, T = Outcome.BANKER, Outcome.PLAYER, Outcome.TIE


def mini(**changes: Any) -> BaccaratTable:
    """A mini table with chips of 1 minor unit (the seeds' worked example, written with two digits)."""
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


# --- 5.12 / 5.13: chip-exact Banker bets ---------------------------------------------------


def test_seed_example_banker_30_with_chips_of_1_is_refused_with_the_largest_acceptable() -> None:
    result = accept_bet(Bet(box(1), "ann", B, 30), [], mini())
    refused(result, "5.12", "Banker bet of 0.30 cannot be paid exactly in chips of 0.01: largest acceptable is 0.20")


def test_seed_example_banker_30_accepted_anyway_is_20_valid_10_void() -> None:
    bet = Bet(box(1), "ann", B, 30)
    assert valid_part(bet, mini()) == 20
    # The same in cents with one-unit chips of 100.
    cents = mini(min_bet=1000, max_bet=100_000, chips=Chips((100, 500)))
    assert valid_part(Bet(box(1), "ann", B, 3000), cents) == 2000


@pytest.mark.parametrize(("chips", "step"), [((1,), 20), ((5,), 100), ((25,), 500), ((100,), 2000), ((19,), 380)])
def test_banker_step_makes_95_percent_a_whole_chip_multiple(chips: tuple[int, ...], step: int) -> None:
    table = mini(min_bet=step, max_bet=step * 10, chips=Chips(chips))
    assert banker_step(table) == step
    c = chips[0]
    assert step % c == 0 and (step * 95) % (100 * c) == 0
    # ... and it is the smallest such amount.
    assert all(v % c or (v * 95) % (100 * c) for v in range(1, step))


def test_banker_bet_that_pays_exactly_is_accepted() -> None:
    assert accept_bet(Bet(box(1), "ann", B, 20), [], mini())
    assert accept_bet(Bet(box(1), "ann", B, 500), [], mini(min_bet=100, max_bet=10_000, chips=Chips((25, 100))))


def test_banker_refusal_when_no_smaller_amount_reaches_the_minimum() -> None:
    result = accept_bet(Bet(box(1), "ann", B, 15), [], mini())
    refused(result, "5.12", "acceptable amounts are multiples of 0.20")


def test_banker_total_on_a_spot_must_stay_exact_when_chips_are_added() -> None:
    table = mini()
    result = accept_bet(Bet(box(1), "ann", B, 10), [Bet(box(1), "ann", B, 20)], table)
    refused(
        result, "5.12",
        "Banker total of 0.30 on box 1 cannot be paid exactly in chips of 0.01: largest acceptable is 0.20"
    )


def test_no_commission_banker_bets_need_not_be_chip_exact() -> None:
    table = mini(banker_payout="no_commission")
    bet = Bet(box(1), "ann", B, 30)
    assert accept_bet(bet, [], table)
    assert valid_part(bet, table) == 30
    assert banker_step(table) == 1


def test_player_and_tie_bets_are_always_wholly_valid() -> None:
    table = mini()
    assert valid_part(Bet(box(1), "ann", P, 31), table) == 31
    assert valid_part(Bet(box(1), "ann", T, 13), table) == 13


# --- 5.2 combinations, 5.3 chips, 5.9 limits ----------------------------------------------


@pytest.mark.parametrize("combo", [c for n in (1, 2, 3) for c in combinations((B, P, T), n)])
def test_every_non_empty_combination_is_allowed(combo: tuple[Outcome, ...]) -> None:
    table = mini()
    placed: list[Bet] = []
    for outcome in combo:
        bet = Bet(box(2), "ann", outcome, 20)
        assert accept_bet(bet, placed, table), outcome
        placed.append(bet)


@pytest.mark.parametrize(
    ("bet", "rule", "text"),
    [
        (Bet(box(8), "ann", P, 20), "3.1", "there is no box 8: this table has boxes 1 to 7"),
        (Bet(box(0), "ann", P, 20), "3.1", "there is no box 0"),
        (Bet("box 1", "ann", P, 20), "3.1", "'box 1' is not a betting place"),  # type: ignore[arg-type]  # on purpose
        (Bet(standing(1), "ann", P, 20), "3.1", "mini baccarat has no standing-player regions"),
        (
            Bet(box(1), "ann", "dragon", 20),  # type: ignore[arg-type]  # text, not an Outcome, on purpose
            "5.1",
            "is not Banker, Player or Tie",
        ),
        (Bet(box(1), "ann", P, 0), "5.3", "a bet must be a positive whole amount"),
        (
            Bet(box(1), "ann", P, 20.0),  # type: ignore[arg-type]  # a float on purpose
            "5.3",
            "a bet must be a positive whole amount",
        ),
        (Bet(box(1), "", P, 20), "5.5", "a bet needs the player it belongs to"),
        (Bet(box(1), "ann", P, 5), "5.9", "Player bet of 0.05 on box 1 is below the table minimum of 0.10"),
    ],
)
def test_malformed_or_small_bets_are_refused(bet: Bet, rule: str, text: str) -> None:
    refused(accept_bet(bet, [], mini()), rule, text)


def test_bet_not_made_of_chips_is_refused() -> None:
    table = mini(min_bet=100, max_bet=10_000, chips=Chips((25, 100)))
    refused(accept_bet(Bet(box(1), "ann", P, 110), [], table), "5.3",
            "Player bet of 1.10 cannot be made of chips of 0.25")


def test_minimum_applies_to_each_spot_on_each_box() -> None:
    table = mini()
    placed = [Bet(box(1), "ann", P, 10)]
    refused(accept_bet(Bet(box(2), "ann", P, 5), placed, table), "5.9", "below the table minimum")
    # Adding chips to one's own bet on the same spot counts toward the minimum.
    assert accept_bet(Bet(box(1), "ann", P, 5), placed, table)


def test_maximum_applies_to_a_players_total_on_one_outcome_across_boxes() -> None:
    table = mini()
    placed = [Bet(box(1), "ann", P, 600), Bet(box(2), "bob", P, 900)]
    result = accept_bet(Bet(box(3), "ann", P, 500), placed, table)
    refused(
        result, "5.9",
        "Player bet of 5.00 takes player ann's total on Player to 11.00, over the maximum of 10.00: at most 4.00 more",
    )
    assert accept_bet(Bet(box(3), "ann", P, 400), placed, table)
    # Other outcomes have their own maximum.
    assert accept_bet(Bet(box(3), "ann", T, 1000), placed, table)


def test_personal_maximum_replaces_the_table_maximum() -> None:
    table = mini()
    assert accept_bet(Bet(box(1), "vip", P, 2000), [], table, personal_max={"vip": 5000})
    over = accept_bet(Bet(box(1), "ann", P, 200), [], table, personal_max={"ann": 100})
    refused(over, "5.9", "over the maximum of 1.00:")


# --- Seating: 5.6, 5.7, 5.8 -------------------------------------------------------------


def test_mini_allows_three_players_per_box_and_refuses_a_fourth() -> None:
    table = mini()
    placed = [Bet(box(4), name, P, 20) for name in ("ann", "bob", "cy")]
    refused(
        accept_bet(Bet(box(4), "dee", B, 20), placed, table), "5.8",
        "box 4 already has 3 players: at most 3 may bet on one box",
    )
    assert accept_bet(Bet(box(4), "ann", B, 20), placed, table)  # a player already there may add
    two = mini(players_per_box=2)
    refused(accept_bet(Bet(box(4), "cy", P, 20), placed[:2], two), "5.8", "at most 2 may bet on one box")


def test_full_baccarat_one_seated_player_per_box() -> None:
    table = full()
    placed = [Bet(box(5), "ann", B, 2000)]
    refused(
        accept_bet(Bet(box(5), "bob", P, 100), placed, table), "5.7",
        "box 5 belongs to seated player ann: one player per box",
    )
    assert accept_bet(Bet(box(5), "ann", P, 100), placed, table)


def test_full_baccarat_seated_players_bet_alongside_standing_players() -> None:
    # A standing player elsewhere does not make the numbered boxes standing-only.
    standing_bets = [Bet(standing(1), "sam", P, 100), Bet(standing(2), "tom", B, 2000)]
    assert accept_bet(Bet(box(5), "ann", P, 100), standing_bets, full())
    assert accept_bet(Bet(standing(1), "uma", P, 100), [Bet(box(5), "ann", P, 100)], full())


@pytest.mark.parametrize(("place", "text"), [
    (standing(0), "there is no standing region 0: this table has 2 standing regions"),
    (standing(3), "there is no standing region 3: this table has 2 standing regions"),
    (box(15), "there is no box 15: this table has boxes 1 to 14"),
])
def test_places_beyond_the_layout_are_refused(place: Any, text: str) -> None:
    refused(accept_bet(Bet(place, "ann", P, 100), [], full()), "3.1", text)
    assert accept_bet(Bet(standing(2), "ann", P, 100), [], full())
    assert accept_bet(Bet(box(14), "ann", P, 100), [], full())


def test_full_baccarat_standing_players_only_on_standing_regions() -> None:
    table = full()
    seated = [Bet(box(5), "ann", P, 100)]
    refused(accept_bet(Bet(standing(1), "ann", P, 100), seated, table), "5.6", "player ann is seated at box 5")
    standing_bets = [Bet(standing(1), "sam", P, 100), Bet(standing(1), "tom", P, 100)]
    assert accept_bet(Bet(standing(1), "uma", T, 100), standing_bets, table)  # many may stand
    refused(accept_bet(Bet(box(6), "sam", P, 100), standing_bets, table), "5.6", "player sam bets as a standing player")
    refused(accept_bet(Bet(standing(3), "sam", P, 100), [], table), "3.1", "there is no standing region 3")


def test_region_cap_on_all_players_bets() -> None:
    table = mini(region_cap=RegionCap.ALL_PLAYERS)
    placed = [Bet(box(1), "ann", P, 600), Bet(box(1), "bob", P, 300)]
    result = accept_bet(Bet(box(1), "cy", P, 200), placed, table)
    refused(
        result, "5.8", "takes all players' bets on the Player spot of box 1 to 11.00, over the table maximum of 10.00"
    )
    assert accept_bet(Bet(box(1), "cy", P, 100), placed, table)
    assert accept_bet(Bet(box(1), "cy", B, 200), placed, table)  # another spot
    assert accept_bet(Bet(box(1), "cy", P, 200), placed, mini())  # without the cap


def test_region_cap_on_each_players_bets_binds_a_player_with_a_higher_personal_maximum() -> None:
    table = mini(region_cap=RegionCap.EACH_PLAYER)
    limits = {"vip": 3000}
    refused(
        accept_bet(Bet(box(1), "vip", P, 1500), [], table, personal_max=limits),
        "5.8",
        "takes player vip's bets on the Player spot of box 1 to 15.00, over the table maximum of 10.00",
    )
    placed = [Bet(box(1), "vip", P, 1000)]
    assert accept_bet(Bet(box(2), "vip", P, 1000), placed, table, personal_max=limits)


def test_a_bet_of_one_smallest_chip_is_a_bet() -> None:
    assert accept_bet(Bet(box(1), "ann", P, 1), [], mini(min_bet=1))


def test_a_banker_total_one_step_above_the_minimum_names_the_largest_acceptable() -> None:
    refused(accept_bet(Bet(box(1), "ann", B, 30), [], mini(min_bet=20)), "5.12", "largest acceptable is 0.20")
    no_step_below = accept_bet(Bet(box(1), "ann", B, 30), [], mini(min_bet=25))
    refused(no_step_below, "5.12", "acceptable amounts are multiples of 0.20")


def test_a_player_at_the_maximum_may_add_nothing() -> None:
    placed = [Bet(box(1), "ann", P, 1000)]
    refused(accept_bet(Bet(box(2), "ann", P, 10), placed, mini()), "5.9",
            "over the maximum of 10.00: at most 0.00 more")
    over = accept_bet(Bet(box(2), "ann", P, 10), placed, mini(), personal_max={"ann": 500})
    refused(over, "5.9", "over the maximum of 5.00: at most 0.00 more")


def test_a_standing_player_is_not_taken_for_a_seated_one() -> None:
    seated = [Bet(box(5), "bob", P, 100), Bet(standing(2), "ann", B, 2000)]
    assert accept_bet(Bet(standing(1), "ann", P, 100), seated, full())
