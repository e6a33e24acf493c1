"""Baccarat behind the game interface: bets accepted under the round's payout option (5.11,
5.12), the supervisor's decisions on the table differential (5.17, 5.18), what the draws tell
(5.14), the squeeze stages, the limits sign and the cut (5.6)."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_cards
from station.games.baccarat.game import BaccaratGame, BaccaratPlay, not_chip_exact, paying
from station.games.baccarat.table import BaccaratTable, BankerPayout, DifferentialMode, Variant
from station.games.interface import DecisionNeeded, NotAllowed
from station.games.table import Chips

GAME = BaccaratGame()


def mini(**changes: Any) -> BaccaratTable:
    """Chips of 1: Banker bets under commission in steps of 20 (the seeds' example)."""
    options: dict[str, Any] = {"variant": "mini", "boxes": 7, "min_bet": 10, "max_bet": 1000,
                               "chips": Chips((1, 5, 25))}
    options.update(changes)
    return BaccaratTable(**options)


def play(codes: str = "") -> BaccaratPlay:
    p = BaccaratPlay()
    for card in parse_cards(codes):
        p = p.place(card).play  # type: ignore[assignment]  # a BaccaratPlay gives a BaccaratPlay
    return p


def test_a_bet_is_accepted_under_the_payout_option_it_is_given_not_the_tables() -> None:
    key = ("1", "ann", "banker")
    commission, no_commission = mini(), mini(banker_payout="no_commission")
    assert not GAME.accept(key, 30, {}, commission, "commission", play())
    assert GAME.accept(key, 30, {}, commission, "no_commission", play())
    refused = GAME.accept(key, 30, {}, no_commission, "commission", play())
    assert refused.reason == "Banker bet of 0.30 cannot be paid exactly in chips of 0.01: largest acceptable is 0.20"
    assert GAME.accept(key, 30, {}, no_commission, "", play())  # "": the table's own


def test_paying_gives_the_table_under_a_payout_option() -> None:
    table = mini()
    assert paying(table, "") is table and paying(table, "commission") is table
    assert paying(table, "no_commission").banker_payout is BankerPayout.NO_COMMISSION


def test_betting_does_not_close_on_a_banker_bet_5_12_refuses() -> None:
    bets = {("2", "bo", "player"): 35, ("1", "ann", "banker"): 30}
    assert not_chip_exact(bets, mini(banker_payout="no_commission")) == ""
    why = "ann's Banker bet of 0.30 on box 1 cannot be paid exactly in chips of 0.01 under commission (5.12)"
    assert not_chip_exact(bets, mini()) == f"{why}: change it to 0.20 or 0.40"
    assert not_chip_exact({("1", "ann", "banker"): 15}, mini()).endswith("change it to 0.20")
    assert not_chip_exact({("1", "ann", "banker"): 30}, mini(min_bet=20)).endswith("change it to 0.20 or 0.40")
    assert not_chip_exact({("1", "ann", "banker"): 30}, mini(min_bet=25)).endswith("change it to 0.40")
    with pytest.raises(NotAllowed, match=r"change it to 0\.20 or 0\.40"):
        GAME.close_betting(play(), bets, mini(banker_payout="no_commission"), "commission")
    assert GAME.close_betting(play(), bets, mini(), "no_commission").bets == bets


# --- the table differential -----------------------------------------------------------------


IMPOSSIBLE = {("1", "ann", "banker"): 100, ("2", "bob", "player"): 30}  # window 25-35, steps of 20
POSSIBLE = {("1", "ann", "player"): 1000, ("2", "bob", "player"): 575, ("3", "cy", "banker"): 500}


def test_automatic_reduction_needs_a_supervisor_only_when_no_reduction_meets_the_differential() -> None:
    table = mini(table_differential=5)
    with pytest.raises(DecisionNeeded, match=r"it cannot be met by reducing Banker bets in chips of 0\.01") as raised:
        GAME.close_betting(play(), IMPOSSIBLE, table, "commission")
    assert list(raised.value.decisions) == ["accept"]
    assert str(raised.value).startswith(
        "table differential exceeded: Banker total 1.00 exceeds Player total 0.30 by 0.70")
    closing = GAME.close_betting(play(), IMPOSSIBLE, table, "commission", "accept")
    assert closing.bets == IMPOSSIBLE and closing.reductions == ()
    with pytest.raises(NotAllowed, match="no reduction in whole chips meets the table differential"):
        GAME.close_betting(play(), IMPOSSIBLE, table, "commission", "reduce")
    automatic = GAME.close_betting(play(), POSSIBLE, mini(table_differential=300), "commission")
    assert automatic.reductions == ((("1", "ann", "player"), 1000, 508), (("2", "bob", "player"), 575, 292))


def test_supervisor_reduction_always_asks_and_reduce_gives_the_stations_proposal() -> None:
    table = mini(table_differential=300, differential_reduction="supervisor")
    assert table.differential_reduction is DifferentialMode.SUPERVISOR
    with pytest.raises(DecisionNeeded, match=r"^table differential exceeded: Player total 15.75") as raised:
        GAME.close_betting(play(), POSSIBLE, table, "commission")
    assert raised.value.decisions == {
        "reduce": "reduce pro rata (ann's Player bet on box 1 10.00 -> 5.08; bob's Player bet on box 2 5.75 -> 2.92)",
        "accept": "accept the imbalance and deal the bets as they are",
    }
    assert str(raised.value) == ("table differential exceeded: Player total 15.75 exceeds Banker total 5.00 by 10.75; "
                                 "the table differential is 3.00")
    reduced = GAME.close_betting(play(), POSSIBLE, table, "commission", "reduce")
    assert dict(reduced.bets) == {("1", "ann", "player"): 508, ("2", "bob", "player"): 292, ("3", "cy", "banker"): 500}
    assert GAME.close_betting(play(), POSSIBLE, table, "commission", "accept").bets == POSSIBLE


def test_decisions_where_there_is_nothing_to_decide_are_refused() -> None:
    with pytest.raises(NotAllowed, match="this table has no table differential"):
        GAME.close_betting(play(), POSSIBLE, mini(), "commission", "accept")
    balanced = {("1", "ann", "player"): 500, ("3", "cy", "banker"): 500}
    with pytest.raises(NotAllowed, match="the table differential is not exceeded"):
        GAME.close_betting(play(), balanced, mini(table_differential=300), "commission", "reduce")
    assert GAME.close_betting(play(), balanced, mini(table_differential=300), "commission").bets == balanced
    with pytest.raises(NotAllowed, match="'void' is not a decision on the table differential"):
        GAME.close_betting(play(), POSSIBLE, mini(table_differential=300), "commission", "void")
    assert GAME.close_betting(play(), {}, mini(table_differential=300), "commission").bets == {}


# --- what the draws tell, the squeeze stages ----------------------------------------------


@pytest.mark.parametrize(("codes", "told"), [
    ("", ""), ("2H 3H 2D", ""),
    ("2H 3H 2D KS", "the rules call for a Player third card: that tells about the totals"),
    ("3H 2H 3D KS", "the rules call for a Banker third card: that tells about the totals"),  # Player 6 stands
    ("2H 3H 2D KS KC", "a third card is out: that a hand draws tells about its total"),
    ("9H 3H KD 2D", "every card of the round is out: that no more is drawn tells about the totals, "
                    "and the round is decided"),
    ("2H 3H 2D 4D KC", "every card of the round is out: that no more is drawn tells about the totals, "
                       "and the round is decided"),
])
def test_what_the_cards_dealt_tell_before_any_is_turned(codes: str, told: str) -> None:
    assert play(codes).disclosed() == told


def test_squeeze_stages_are_the_opening_four_then_each_third_card() -> None:
    six = play("2H 3H 3D KD 4C 5C")  # Player 5 draws a 4, Banker 3 draws
    assert [six.stage_end(r, squeeze=True) for r in (0, 3, 4, 5, 6)] == [4, 4, 5, 6, 6]
    assert [six.stage_end(r, squeeze=False) for r in (0, 4)] == [6, 6]
    assert play("2H 3H").stage_end(0, squeeze=True) == 2
    assert not play("2H 3H 3D").reveal_due(squeeze=True) and play("2H 3H 3D KD").reveal_due(squeeze=True)


def test_card_holders_are_named_in_the_dealers_instruction_only_under_squeeze() -> None:
    bets = {("3", "ann", "banker"): 2000}
    held = GAME.with_card_holders(play(), bets, mini())
    assert held.instruction() == "deal Player first card to the dealer"
    assert held.place(parse_cards("2H")[0]).play.instruction() == "deal Banker first card to box 3 (ann)"
    assert held.to_json() == {"pucks": {"banker": ["3", "ann"]}}
    assert play().instruction() == "deal Player first card" and play().to_json() == {}
    assert play("9H 3H KD 2D").instruction() == "round complete"


# --- the limits sign and the cut ---------------------------------------------------------


def test_the_limits_sign_gives_the_smallest_banker_bet_5_12_accepts() -> None:
    table = mini(min_bet=10, max_bet=1010)
    assert table.smallest_banker_bet == 20 and table.largest_banker_bet == 1000
    assert GAME.limit_lines(table, "commission") == (("Banker", 20, 1000),)
    assert GAME.limit_lines(table, "no_commission") == ()
    assert GAME.limit_lines(mini(min_bet=40), "commission") == ()  # 40 pays 38: the minimum will do
    cents = BaccaratTable(variant=Variant.MINI, boxes=7, min_bet=1000, max_bet=500_000, chips=Chips((100, 500)))
    assert GAME.limit_lines(cents, "commission") == (("Banker", 2000, 500_000),)
    no_commission = mini(banker_payout="no_commission")
    assert (no_commission.smallest_banker_bet, no_commission.largest_banker_bet) == (10, 1000)


def test_standing_players_never_cut() -> None:
    full = BaccaratTable(variant=Variant.FULL, boxes=14, standing_regions=2, min_bet=100, max_bet=10_000,
                         chips=Chips((100,)))
    assert GAME.cut_problem("S2", "sue", full) == "standing players never take part in the cut of the cards (5.6)"
    assert GAME.cut_problem("14", "ann", full) == ""
    assert GAME.cut_problem("15", "ann", full) == "there is no box 15: this table has boxes 1 to 14"
    assert GAME.cut_problem("0", "ann", full) == "there is no box 0: this table has boxes 1 to 14"
    assert GAME.cut_problem("", "ann", full) == "name the box ann sits at"
    assert GAME.cut_problem("x1", "ann", full) == "'x1' is not a box number or a standing region such as S1"


def test_without_a_squeeze_the_cards_are_turned_once_the_round_needs_no_more() -> None:
    assert not play("2H 3H 2D").reveal_due(squeeze=False)
    assert not play("2H 3H 2D KS").reveal_due(squeeze=False)  # a third card is still to come
    assert play("2H 3H 2D KS KC 5C").reveal_due(squeeze=False)
    assert play("9H 3H KD 2D").reveal_due(squeeze=False)


def test_a_tie_leaves_the_banker_and_player_bets_on_the_layout() -> None:
    assert play("9H 9D KD KS").result().bets_stay  # 9 against 9
    assert not play("9H 2H KD 3D").result().bets_stay
    assert play("9H 9D KD KS").result().outcome == "tie"


def test_the_layouts_the_configuration_may_not_ask_of_baccarat() -> None:
    from types import SimpleNamespace

    def section(**changes: Any) -> Any:
        settings: dict[str, Any] = {"variant": "mini", "boxes": 7, "players_per_box": 3, "standing_regions": 0}
        settings.update(changes)
        return SimpleNamespace(**settings)

    assert GAME.settings_problem(section()) is None
    assert GAME.settings_problem(section(boxes=8)) == ("boxes", "8 boxes is more than a mini table has (7)")
    assert GAME.settings_problem(section(variant="midi", boxes=9)) is None
    assert GAME.settings_problem(section(variant="full", boxes=14, players_per_box=1, standing_regions=2)) is None
    assert GAME.settings_problem(section(variant="full", boxes=14, players_per_box=2)) == (
        "players_per_box", "full baccarat seats exactly 1 player per box (rule 5.7)")
    assert GAME.settings_problem(section(players_per_box=1)) is None  # mini may seat fewer
    only_full = ("standing_regions", "standing-player regions exist only in full baccarat (rule 5.6)")
    assert GAME.settings_problem(section(standing_regions=1)) == only_full
    assert GAME.settings_problem(section(variant="midi", boxes=9, standing_regions=1)) == only_full
