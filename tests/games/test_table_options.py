"""Table options: sensible defaults, and every impossible value refused naming its field."""

from __future__ import annotations

from typing import Any

import pytest

from station.games.baccarat.table import BaccaratTable, BankerPayout, DifferentialMode, RegionCap, Variant
from station.games.table import Chips, TableOptionError
from station.games.war.table import WarTable

CHIPS = Chips((25, 100, 500))


def baccarat(**changes: Any) -> BaccaratTable:
    options: dict[str, Any] = {"variant": "mini", "boxes": 7, "min_bet": 100, "max_bet": 10_000, "chips": CHIPS}
    options.update(changes)
    return BaccaratTable(**options)


def war(**changes: Any) -> WarTable:
    options: dict[str, Any] = {"boxes": 7, "min_bet": 100, "max_bet": 10_000, "chips": CHIPS}
    options.update(changes)
    return WarTable(**options)


def test_baccarat_defaults_follow_the_variant() -> None:
    mini = baccarat()
    assert mini.variant is Variant.MINI
    assert mini.players_per_box == 3
    assert mini.tie_pays == 8
    assert mini.banker_payout is BankerPayout.COMMISSION and mini.commission
    assert mini.smallest_chip == 25
    full = baccarat(variant="full", boxes=14, standing_regions=2)
    assert full.players_per_box == 1
    assert baccarat(tie_pays=9, banker_payout="no_commission").commission is False


@pytest.mark.parametrize(("variant", "most"), [("mini", 7), ("midi", 9), ("full", 14)])
def test_box_count_limit_per_variant(variant: str, most: int) -> None:
    assert baccarat(variant=variant, boxes=most).boxes == most
    with pytest.raises(TableOptionError, match=f"^boxes: {variant} baccarat has at most {most} boxes") as caught:
        baccarat(variant=variant, boxes=most + 1)
    assert caught.value.field == "boxes"
    assert str(most) in str(caught.value)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"variant": "jumbo"}, "variant"),
        ({"boxes": 0}, "boxes"),
        ({"tie_pays": 7}, "tie_pays"),
        ({"tie_pays": 10}, "tie_pays"),
        ({"min_bet": 0}, "min_bet"),
        ({"min_bet": 20_000}, "min_bet"),
        ({"min_bet": 110}, "min_bet"),  # not made of chips of 25
        ({"max_bet": 10_010}, "max_bet"),
        ({"max_bet": 100.0}, "max_bet"),  # money is never a float
        ({"players_per_box": 4}, "players_per_box"),
        ({"variant": "full", "players_per_box": 2}, "players_per_box"),
        ({"standing_regions": 1}, "standing_regions"),
        ({"banker_payout": "half"}, "banker_payout"),
        ({"region_cap": "sometimes"}, "region_cap"),
        ({"variant": "full", "region_cap": RegionCap.ALL_PLAYERS}, "region_cap"),
        ({"table_differential": -1}, "table_differential"),
        ({"differential_reduction": "sometimes"}, "differential_reduction"),
        ({"min_bet": 100, "max_bet": 400}, "max_bet"),  # under commission Banker bets need steps of 500
        ({"chips": (100, 250)}, "chips"),
        ({"chips": "25"}, "chips"),
    ],
)
def test_impossible_baccarat_options_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(TableOptionError, match=f"^{field}: ") as caught:
        baccarat(**changes)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}:")
    assert isinstance(caught.value, ValueError)


def test_region_caps_and_differential_modes_go_by_the_configurations_words() -> None:
    assert baccarat(region_cap="table_total").region_cap is RegionCap.TABLE_TOTAL
    assert baccarat(region_cap="player_total").region_cap is RegionCap.PLAYER_TOTAL
    # The rule's words are aliases of the configuration's (one member each, two names).
    assert RegionCap("table_total") is RegionCap.ALL_PLAYERS and RegionCap("player_total") is RegionCap.EACH_PLAYER
    assert [cap.value for cap in RegionCap] == ["none", "table_total", "player_total"]
    assert baccarat().differential_reduction is DifferentialMode.AUTOMATIC
    assert baccarat(differential_reduction="supervisor").differential_reduction is DifferentialMode.SUPERVISOR
    with pytest.raises(TableOptionError, match="region_cap: must be none, table_total or player_total"):
        baccarat(region_cap="all_players")


def test_a_commission_table_must_accept_some_banker_bet() -> None:
    with pytest.raises(TableOptionError, match=r"max_bet: under commission a Banker bet must be a multiple of 500 .* "
                                               r"none lies between 100 and 400"):
        baccarat(min_bet=100, max_bet=400)
    assert baccarat(min_bet=100, max_bet=500).largest_banker_bet == 500
    assert baccarat(min_bet=100, max_bet=400, banker_payout="no_commission").max_bet == 400


def test_a_table_of_one_box_is_a_table() -> None:
    assert baccarat(boxes=1).boxes == 1 and war(boxes=1, max_boxes_per_player=1).boxes == 1


def test_tie_pays_seven_is_refused_with_a_readable_message() -> None:
    with pytest.raises(ValueError, match=r"tie_pays: a Tie bet pays 8 to 1 or 9 to 1 .*got 7 to 1"):
        baccarat(tie_pays=7)


@pytest.mark.parametrize(
    "denominations", [(), (0, 5), (25, 25), (100, 250), (5, 2.5)]
)
def test_chip_sets_that_cannot_pay_exactly_are_refused(denominations: tuple[int, ...]) -> None:
    with pytest.raises(TableOptionError, match=r"^chips: ") as caught:
        Chips(denominations)
    assert caught.value.field == "chips"


def test_chips_pay_and_round_in_whole_smallest_chips() -> None:
    chips = Chips((500, 25, 100))
    assert chips.denominations == (25, 100, 500)
    assert chips.payable(475) and not chips.payable(470) and not chips.payable(-25)
    assert chips.round_down(499) == 475
    assert chips.round_down(-3) == 0
    assert chips.payable(0) and chips.payable(25) and not chips.payable(-475)  # nothing to pay is paid exactly
    ones = Chips((1,))
    assert (ones.round_down(0), ones.round_down(-1), ones.round_down(7)) == (0, 0, 7)


def test_chips_may_be_given_as_a_plain_list() -> None:
    assert baccarat(chips=[100, 25]).chips == Chips((25, 100))


def test_war_defaults() -> None:
    table = war()
    assert table.tie_pays == 10
    assert table.tie_after_tie_bonus is None
    assert table.players_per_box == 3
    assert table.max_boxes_per_player == 1
    assert table.box_max is None and table.player_max is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"boxes": 8}, "boxes"),
        ({"players_per_box": 0}, "players_per_box"),
        ({"players_per_box": 4}, "players_per_box"),
        ({"box_max": 50}, "box_max"),
        ({"player_max": 0}, "player_max"),
        ({"tie_pays": 0}, "tie_pays"),
        ({"tie_after_tie_bonus": 0}, "tie_after_tie_bonus"),
        ({"max_boxes_per_player": 0}, "max_boxes_per_player"),
        ({"boxes": 3, "max_boxes_per_player": 4}, "max_boxes_per_player"),
        ({"min_bet": 300, "max_bet": 200}, "min_bet"),
        ({"chips": [25, 30]}, "chips"),
        ({"chips": None}, "chips"),
    ],
)
def test_impossible_war_options_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(TableOptionError, match=f"^{field}: ") as caught:
        war(**changes)
    assert caught.value.field == field


def test_war_options_are_configurable() -> None:
    table = war(
        players_per_box=2, box_max=3000, player_max=2000, tie_pays=11, tie_after_tie_bonus=1, max_boxes_per_player=3
    )
    assert (table.players_per_box, table.box_max, table.player_max) == (2, 3000, 2000)
    assert (table.tie_pays, table.tie_after_tie_bonus, table.max_boxes_per_player) == (11, 1, 3)
