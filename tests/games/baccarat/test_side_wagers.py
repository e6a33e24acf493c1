"""Side bets as regions of the game (RULES "Baccarat side bets"): accepted under their own
limits and the layout's rules of places and seating, out of the table differential, settled
with their round by the table's pay tables (against the oracle written from the rules' text),
corrected like any bet; and EZ Baccarat's Banker."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import Card, ShoeComposition, parse_cards
from station.games.baccarat.game import BaccaratGame, BaccaratPlay
from station.games.baccarat.rules import result_of
from station.games.baccarat.side_bets import DEFAULT_PAY_TABLES, PAY_TABLES, OfferedSideBet, SideBet
from station.games.baccarat.table import BaccaratTable
from station.games.interface import DecisionNeeded, NotAllowed
from station.games.layout import BetKey
from station.games.limits import TableLimits
from station.games.table import Chips, TableOptionError
from station.money import Money

from ...side_bet_oracle import ORACLE, ez_banker

GAME = BaccaratGame()
EUR = Money(2, "EUR")


def offers(*names: str, low: int = 500, high: int = 10_000) -> tuple[OfferedSideBet, ...]:
    return tuple(OfferedSideBet(PAY_TABLES[name].bet, name, low, high) for name in names)


ALL = offers("dragon_7_40", "panda_8_25", "player_pair_11", "banker_pair_11", "either_pair_5",
             "perfect_pair_25_200", "dragon_bonus_player_a", "dragon_bonus_banker_b")


def table(**changes: Any) -> BaccaratTable:
    options: dict[str, Any] = {"variant": "mini", "boxes": 7, "min_bet": 1000, "max_bet": 100_000,
                               "chips": Chips((100, 500, 1000)), "side_bets": ALL, "money": EUR}
    options.update(changes)
    return BaccaratTable(**options)


def accept(key: BetKey, amount: int, others: dict[BetKey, int] | None = None, t: BaccaratTable | None = None,
           option: str = "") -> tuple[bool, str, str]:
    t = t or table()
    verdict = GAME.accept(key, amount, others or {}, t, option or t.banker_payout.value, GAME.open_round())
    return verdict.accepted, verdict.reason, verdict.rule


def dealt(codes: str) -> BaccaratPlay:
    play = BaccaratPlay()
    for card in parse_cards(codes):
        placed = play.place(card).play
        assert isinstance(placed, BaccaratPlay)
        play = placed
    assert play.step().complete
    return play


# --- acceptance ------------------------------------------------------------------------------


def test_a_side_bet_is_held_to_its_own_minimum_and_maximum_per_player_per_box() -> None:
    assert accept(("3", "ann", "dragon_7"), 200) == (
        False, "Dragon 7 bet of 2.00 EUR on box 3 is below the Dragon 7 minimum of 5.00 EUR", "side bets")
    assert accept(("3", "ann", "dragon_7"), 500)[0]  # below the table minimum of 10.00: its own limits
    # Chips added to one's own on the spot count together, another player's or box's do not.
    mine = {("3", "ann", "dragon_7"): 8000, ("3", "bob", "dragon_7"): 10_000, ("4", "ann", "dragon_7"): 10_000,
            ("3", "ann", "panda_8"): 10_000, ("3", "ann", "banker"): 100_000}
    assert accept(("3", "ann", "dragon_7"), 2000, mine)[0]
    assert accept(("3", "ann", "dragon_7"), 2500, mine) == (
        False, "Dragon 7 bet of 25.00 EUR takes player ann's Dragon 7 on box 3 to 105.00 EUR, over the Dragon 7 "
               "maximum of 100.00 EUR: at most 20.00 EUR more", "side bets")
    assert accept(("3", "cat", "dragon_7"), 200, {("3", "cat", "dragon_7"): 300})[0]  # 5.00 together
    assert accept(("3", "ann", "perfect_pair"), 550) == (
        False, "Perfect Pair bet of 5.50 EUR cannot be made of chips of 1.00 EUR", "side bets")


def test_a_side_bet_the_table_does_not_offer_is_refused_by_its_name() -> None:
    plain = table(side_bets=offers("dragon_7_40"))
    assert accept(("1", "ann", "panda_8"), 500, t=plain) == (False, "this table offers no Panda 8 bet", "side bets")
    refused = accept(("1", "ann", "lucky_6"), 500, t=plain)
    assert refused == (False, "'lucky_6' is not a baccarat betting region of this table (banker, player, tie, "
                              "dragon_7)", "")
    assert GAME.regions_of(plain) == ("banker", "player", "tie", "dragon_7")
    assert GAME.regions_of(table(side_bets=())) == GAME.regions == ("banker", "player", "tie")


def test_a_side_bet_follows_the_layouts_places_and_seats() -> None:
    assert accept(("8", "ann", "dragon_7"), 500) == (False, "there is no box 8: this table has boxes 1 to 7", "3.1")
    assert accept(("1", "", "dragon_7"), 500)[2] == "5.5"
    assert accept(("1", "ann", "dragon_7"), 0)[2] == "5.3"
    # A player with nothing but a side bet on a box is one of its players (5.8).
    three = {("2", name, "panda_8"): 500 for name in ("ann", "bob", "cat")}
    assert accept(("2", "dan", "either_pair"), 500, three) == (
        False, "box 2 already has 3 players: at most 3 may bet on one box", "5.8")
    assert accept(("2", "dan", "banker"), 2000, three) == (
        False, "box 2 already has 3 players: at most 3 may bet on one box", "5.8")
    assert accept(("2", "ann", "banker"), 2000, three)[0]
    # Full baccarat: a box belongs to its seated player, whatever they bet on (5.7).
    full = table(variant="full", boxes=14, standing_regions=2, region_cap="none")
    seated = {("5", "ann", "dragon_7"): 500}
    assert accept(("5", "bob", "banker"), 1000, seated, full) == (
        False, "box 5 belongs to seated player ann: one player per box in full baccarat", "5.7")
    assert accept(("S1", "ann", "panda_8"), 500, seated, full) == (
        False, "player ann is seated at box 5: standing regions are for standing players", "5.6")
    assert accept(("S1", "bob", "panda_8"), 500, seated, full)[0]


def test_a_side_bet_has_no_place_in_the_table_differential() -> None:
    t = table(table_differential=5000, banker_payout="no_commission")
    bets: dict[BetKey, int] = {("1", "ann", "banker"): 5000, ("2", "bob", "player"): 1000,
                               ("1", "ann", "dragon_7"): 10_000, ("2", "bob", "panda_8"): 10_000}
    closing = GAME.close_betting(GAME.open_round(), bets, t, "no_commission")
    assert dict(closing.bets) == bets and closing.reductions == ()
    heavy = {**bets, ("3", "cat", "banker"): 2000}  # Banker 70.00 against Player 10.00: 60.00 over 50.00
    closing = GAME.close_betting(GAME.open_round(), heavy, t, "no_commission")
    assert closing.reductions and all(key[2] == "banker" for key, _, _ in closing.reductions)
    assert {k: a for k, a in closing.bets.items() if k[2] in ("dragon_7", "panda_8")} == {
        ("1", "ann", "dragon_7"): 10_000, ("2", "bob", "panda_8"): 10_000}
    assert list(closing.bets) == [k for k in heavy if k in closing.bets]  # the layout's order kept
    supervised = table(table_differential=5000, differential_reduction="supervisor", banker_payout="no_commission")
    with pytest.raises(DecisionNeeded):
        GAME.close_betting(GAME.open_round(), heavy, supervised, "no_commission")
    only_side = {("1", "ann", "dragon_7"): 10_000}
    assert dict(GAME.close_betting(GAME.open_round(), only_side, t, "no_commission").bets) == only_side


def test_a_side_bet_holds_no_marker_puck() -> None:
    bets = {("1", "ann", "dragon_7"): 10_000, ("2", "bob", "banker"): 1000}
    play = GAME.with_card_holders(GAME.open_round(), bets, table())
    assert play.holders is not None and [(h.hand.value, h.box) for h in play.holders] == [("banker", "2")]


# --- settlement ------------------------------------------------------------------------------


def test_a_dragon_7_a_panda_8_and_a_tie() -> None:
    t = table()
    layout = {("1", "ann", "banker"): 2000, ("1", "ann", "dragon_7"): 500, ("2", "bob", "panda_8"): 1000,
              ("2", "bob", "dragon_bonus_banker"): 1000, ("3", "cat", "banker_pair"): 500}
    # Player K 6 stands on 6; Banker 2 2 draws a 3: a three-card 7 wins.
    settlement = GAME.settle(dealt("KH 2D 6S 2C 3H"), layout, t, "commission")
    assert [(b.region, b.stake, b.valid, b.void, b.outcome, b.net, b.commission) for b in settlement.bets] == [
        ("banker", 2000, 2000, 0, "win", 1900, 100), ("dragon_7", 500, 500, 0, "win", 20_000, 0),
        ("panda_8", 1000, 1000, 0, "lose", -1000, 0), ("dragon_bonus_banker", 1000, 1000, 0, "lose", -1000, 0),
        ("banker_pair", 500, 500, 0, "win", 5500, 0)]
    assert settlement.house_net == -sum(b.net for b in settlement.bets) == -(1900 + 20_000 - 2000 + 5500)
    # Player 3 2 draws a 3: 8 on three cards beats the Banker's 7: Panda 8.
    panda = GAME.settle(dealt("3H 4D 2S 3C 3S"), layout, t, "commission")
    assert [(b.region, b.outcome, b.net) for b in panda.bets] == [
        ("banker", "lose", -2000), ("dragon_7", "lose", -500), ("panda_8", "win", 25_000),
        ("dragon_bonus_banker", "lose", -1000), ("banker_pair", "lose", -500)]
    # A tie: the Banker bet stands off, a Dragon 7 loses, a pair wins, a Dragon Bonus on a
    # natural tie pushes.
    tie = GAME.settle(dealt("8H 4D KS 4C"), layout, t, "commission")  # 8 a piece, the Banker a pair of 4s
    assert [(b.region, b.outcome, b.net) for b in tie.bets] == [
        ("banker", "push", 0), ("dragon_7", "lose", -500), ("panda_8", "lose", -1000),
        ("dragon_bonus_banker", "push", 0), ("banker_pair", "win", 5500)]


def test_a_side_bet_is_corrected_like_any_bet() -> None:
    t, play = table(), dealt("KH 2D 6S 2C 3H")
    before = GAME.settle(play, {("1", "ann", "banker"): 2000}, t, "commission")
    corrected = {("1", "ann", "banker"): 2000, ("1", "ann", "dragon_7"): 1000}
    assert accept(("1", "ann", "dragon_7"), 1000, {("1", "ann", "banker"): 2000})[0]
    after = GAME.resettle(play, corrected, t, "commission")
    assert after.bets[0] == before.bets[0] and (after.bets[1].outcome, after.bets[1].net) == ("win", 40_000)
    with pytest.raises(NotAllowed, match="this table offers no Panda 8 bet"):
        GAME.resettle(play, {("1", "ann", "panda_8"): 1000}, table(side_bets=()), "commission")


def _shoe(seed: int) -> list[Card]:
    cards = [card for card, count in ShoeComposition(8) for _ in range(count)]
    random.Random(seed).shuffle(cards)
    return cards


def _play(cards: list[Card]) -> BaccaratPlay:
    play = BaccaratPlay()
    while not play.step().complete:
        placed = play.place(cards.pop()).play
        assert isinstance(placed, BaccaratPlay)
        play = placed
    return play


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(sorted(PAY_TABLES)), min_size=1, max_size=4),
       st.sampled_from(["commission", "no_commission", "ez"]), st.integers(1, 100))
def test_every_side_bet_settles_with_its_round_as_the_rules_say(seed: int, names: list[str], option: str,
                                                                chips: int) -> None:
    """Each side bet pays what the oracle says, in integers, wholly valid and without commission;
    the main bets settle as they would without side bets; the house's figure is -Σ net."""
    by_bet = {PAY_TABLES[name].bet: name for name in names}
    t = table(side_bets=offers(*sorted(by_bet.values(), key=lambda n: list(SideBet).index(PAY_TABLES[n].bet))),
              banker_payout=option)
    play = _play(_shoe(seed))
    main = {("1", "ann", "banker"): 2000, ("2", "bob", "player"): 1000, ("2", "bob", "tie"): 1000}
    side = {("1", "ann", bet.value): 100 * chips for bet in by_bet}
    settlement = GAME.settle(play, {**main, **side}, t, option)
    assert settlement.bets[:3] == GAME.settle(play, main, t, option).bets
    result = result_of(play.player, play.banker)
    for record in settlement.bets[3:]:
        pays = ORACLE[by_bet[SideBet(record.region)]](result)
        stake = 100 * chips
        expected = ("win", stake * pays) if pays > 0 else ("push", 0) if pays == 0 else ("lose", -stake)
        assert (record.outcome, record.net) == expected, record
        assert (record.stake, record.valid, record.void, record.commission) == (stake, stake, 0, 0)
    assert settlement.house_net == -sum(b.net for b in settlement.bets)


# --- EZ Baccarat ------------------------------------------------------------------------------


def test_ez_banker_pushes_on_a_three_card_7_and_pays_even_money_on_6() -> None:
    t = table(banker_payout="ez")
    layout = {("1", "ann", "banker"): 1700}  # no commission: any multiple of the smallest chip (5.12 not)
    assert accept(("1", "ann", "banker"), 1700, t=t)[0]
    assert not accept(("1", "ann", "banker"), 1700, t=table())[0]  # under commission it is refused
    seven = GAME.settle(dealt("KH 2D 6S 2C 3H"), layout, t, "ez").bets[0]
    assert (seven.outcome, seven.net, seven.commission) == ("push", 0, 0)
    six = GAME.settle(dealt("KH 3D 4S 3C KD"), layout, t, "ez").bets[0]  # Banker 6 over Player 4
    assert (six.outcome, six.net, six.commission) == ("win", 1700, 0)
    half = GAME.settle(dealt("KH 3D 4S 3C KD"), layout, t, "no_commission").bets[0]
    assert (half.outcome, half.net) == ("win", 800)  # a switched table pays half on 6 (5.11)
    two_card_7 = GAME.settle(dealt("KH 3D 6S 4C"), layout, t, "ez").bets[0]  # 7 over 6 on two cards
    assert (two_card_7.outcome, two_card_7.net) == ("win", 1700)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_ez_banker_pays_what_the_rules_say(seed: int) -> None:
    play = _play(_shoe(seed))
    record = GAME.settle(play, {("1", "ann", "banker"): 1000}, table(banker_payout="ez"), "ez").bets[0]
    pays = ez_banker(result_of(play.player, play.banker))
    assert (record.outcome, record.net) == (("win", 1000) if pays > 0 else ("push", 0) if pays == 0
                                            else ("lose", -1000))


def test_ez_is_a_payout_option_of_the_round_and_priced_so() -> None:
    t = table()
    assert "ez" in GAME.payout_options
    assert GAME.wager_keys(t, "ez")["banker"] == "banker_ez"
    assert GAME.wager_keys(t, "no_commission")["banker"] == "banker_no_commission"
    assert GAME.wager_keys(table(side_bets=()), "commission") == {
        "banker": "banker_commission", "player": "player", "tie": "tie_8_to_1"}
    assert {GAME.wager_keys(t, "")[bet.value] for bet in SideBet if bet.value in GAME.regions_of(t)} <= set(
        PAY_TABLES)


# --- the table's options ---------------------------------------------------------------------


def test_a_change_of_chips_the_side_bets_limits_cannot_be_made_of_is_refused() -> None:
    t = table(side_bets=offers("dragon_7_40", low=500, high=10_000))
    assert GAME.table_with_limits(t, TableLimits(1000, 100_000, (500, 1000))).side_bets == t.side_bets
    with pytest.raises(TableOptionError, match=r"^side_bets\.dragon_7\.min: 500 cannot be made with a smallest "
                                               r"chip of 1000"):
        GAME.table_with_limits(t, TableLimits(1000, 100_000, (1000, 5000)))
    with pytest.raises(TableOptionError, match=r"^side_bets\.dragon_7: offered twice"):
        table(side_bets=offers("dragon_7_40", "dragon_7_40"))
    assert DEFAULT_PAY_TABLES[SideBet.DRAGON_7] == "dragon_7_40"


def test_a_rated_side_bet_is_priced_by_its_pay_table() -> None:
    """A rating's theoretical win prices each bet by its wager's edge for a full shoe
    (docs/ratings.md): a side bet by its pay table, EZ's Banker as EZ (docs/side-bets.md's figures)."""
    from station.analysis.full_shoe import full_shoe_edges

    t = table(banker_payout="ez")
    edges = full_shoe_edges("baccarat", 8, t)
    keys = GAME.wager_keys(t, "ez")
    assert round(float(edges[keys["dragon_7"]]) * 100, 4) == 7.6113
    assert round(float(edges[keys["panda_8"]]) * 100, 4) == 10.1876
    assert round(float(edges[keys["dragon_bonus_player"]]) * 100, 4) == 2.6517
    assert round(float(edges[keys["banker"]]) * 100, 4) == 1.0183
    assert keys["banker"] in full_shoe_edges("baccarat", 8, table(side_bets=()))  # a round switched to EZ
