"""Properties of the game engines on random shoes, bets and tables (hypothesis).

Expected money figures are worked out here from the rules with exact fractions, not with
the settlement code, so a wrong payout shows up as a disagreement.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from station.cards import FULL_DECK, Card
from station.games.baccarat.differential import (
    differential_excess,
    reduce_for_differential,
    side_totals,
)
from station.games.baccarat.rules import (
    BaccaratResult,
    Hand,
    Outcome,
    RoundStateError,
    next_hand,
    play_round,
    result_of,
)
from station.games.baccarat.settlement import BetResult, settle_round
from station.games.baccarat.table import BaccaratTable, BankerPayout, Variant
from station.games.baccarat.wagers import Bet, banker_step, box, valid_part
from station.games.table import Chips
from station.games.war.rules import Choice, StepKind, WarRound
from station.games.war.settlement import WagerResult, settle_war
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager

EIGHT_DECKS = FULL_DECK * 8


def shuffled_shoe(seed: int) -> list[Card]:
    cards = list(EIGHT_DECKS)
    random.Random(seed).shuffle(cards)
    return cards


# --- The baccarat engine on random 8-deck shoes ----------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**64))
def test_every_round_of_a_random_shoe_has_four_to_six_cards_and_engine_functions_agree(seed: int) -> None:
    shoe = shuffled_shoe(seed)
    position = 0
    while len(shoe) - position >= 6:
        start = position

        def draw() -> Card:
            nonlocal position
            position += 1
            return shoe[position - 1]

        result = play_round(draw)
        used = shoe[start:position]
        assert 4 <= len(used) <= 6
        assert len(result.player) + len(result.banker) == len(used)
        # Re-deal the same cards by asking next_hand card by card: result_of must refuse
        # exactly while next_hand still wants a card, and agree with play_round at the end.
        player: list[Card] = []
        banker: list[Card] = []
        for card in used:
            hand = next_hand(player, banker)
            assert hand is not None
            try:
                result_of(player, banker)
            except RoundStateError:
                pass
            else:
                raise AssertionError("result_of accepted a round the rules had not finished")
            (player if hand is Hand.PLAYER else banker).append(card)
        assert next_hand(player, banker) is None
        assert result_of(player, banker) == result


# --- Baccarat settlement ----------------------------------------------------------------------

CHIP_SETS = [(1, 5, 25), (5, 25, 100), (25, 100, 500), (100, 500, 2500)]


@st.composite
def tables(draw: st.DrawFn) -> BaccaratTable:
    chips = draw(st.sampled_from(CHIP_SETS))
    return BaccaratTable(
        variant=Variant.MINI,
        boxes=7,
        min_bet=chips[0],
        max_bet=chips[0] * 10_000,
        chips=Chips(chips),
        tie_pays=draw(st.sampled_from([8, 9])),
        banker_payout=draw(st.sampled_from([BankerPayout.COMMISSION, BankerPayout.NO_COMMISSION])),
    )


@st.composite
def bets_for(draw: st.DrawFn, table: BaccaratTable, max_size: int = 12) -> list[Bet]:
    c = table.smallest_chip
    return draw(
        st.lists(
            st.builds(
                Bet,
                st.integers(1, table.boxes).map(box),
                st.sampled_from(["ann", "bob", "cy"]),
                st.sampled_from(list(Outcome)),
                st.integers(1, 400).map(lambda n: n * c),
            ),
            max_size=max_size,
        )
    )


@st.composite
def table_bets_and_result(draw: st.DrawFn) -> tuple[BaccaratTable, list[Bet], BaccaratResult]:
    table = draw(tables())
    bets = draw(bets_for(table))
    shoe = iter(shuffled_shoe(draw(st.integers(0, 2**32))))
    return table, bets, play_round(lambda: next(shoe))


def expected_net(bet: Bet, table: BaccaratTable, result: BaccaratResult) -> Fraction:
    """The player's gain on ``bet`` from the rules, in exact fractions (5.1, 5.10-5.13)."""
    c = table.smallest_chip
    if bet.on is Outcome.TIE:
        return Fraction(bet.amount * table.tie_pays) if result.outcome is Outcome.TIE else Fraction(-bet.amount)
    valid = bet.amount
    if bet.on is Outcome.BANKER and table.commission:
        # The largest part whose 95% winnings are a whole number of smallest chips.
        valid = bet.amount // c * c
        while (Fraction(95, 100) * valid / c).denominator != 1:
            valid -= c
    if result.outcome is Outcome.TIE:
        return Fraction(0)
    if result.outcome is not bet.on:
        return Fraction(-valid)
    if bet.on is Outcome.PLAYER:
        return Fraction(valid)
    if table.commission:
        return Fraction(95, 100) * valid
    if result.banker_total == 6:
        return Fraction(Fraction(valid, 2) // c * c)  # half, rounded down to a whole chip
    return Fraction(valid)


@settings(max_examples=100, deadline=None)
@given(table_bets_and_result())
def test_settlement_conserves_money_and_matches_the_rules(
    case: tuple[BaccaratTable, list[Bet], BaccaratResult],
) -> None:
    table, bets, result = case
    settled = settle_round(bets, result, table)
    assert len(settled.bets) == len(bets)
    for bet, s in zip(bets, settled.bets, strict=True):
        assert isinstance(s.net, int) and isinstance(s.payout, int) and isinstance(s.collected, int)
        assert s.stake == bet.amount == s.valid + s.void == s.returned + s.collected
        assert s.net == expected_net(bet, table, result)
        assert s.payout >= 0 and s.collected >= 0 and not (s.payout and s.collected)
        assert s.payout % table.smallest_chip == 0  # always payable in chips
    # What the table pays minus what it collects, computed from the chips that moved.
    chips_back_to_players = sum(s.returned + s.payout for s in settled.bets)
    staked = sum(bet.amount for bet in bets)
    assert chips_back_to_players - staked == sum(s.net for s in settled.bets) == -settled.house_result


@settings(max_examples=100, deadline=None)
@given(table_bets_and_result())
def test_no_bet_is_ever_paid_more_than_its_odds(case: tuple[BaccaratTable, list[Bet], BaccaratResult]) -> None:
    table, bets, result = case
    for s in settle_round(bets, result, table).bets:
        odds = table.tie_pays if s.bet.on is Outcome.TIE else 1
        assert 0 <= s.payout <= s.valid * odds
        assert s.valid == valid_part(s.bet, table) <= s.stake
        if s.result is not BetResult.WIN:
            assert s.payout == 0
        if s.bet.on is Outcome.BANKER and table.commission and s.result is BetResult.WIN:
            assert s.payout * 100 == s.valid * 95


# --- Table differential -----------------------------------------------------------------------


def small_limit_target(banker: int, player: int, table: BaccaratTable) -> int:
    """The most the larger side may total: the smaller side plus the differential."""
    assert table.table_differential is not None
    return min(banker, player) + table.table_differential


def achievable_totals(amounts: list[int], step: int) -> set[int]:
    """Every total the larger side could reach with each bet cut to a multiple of ``step``."""
    totals = {0}
    for amount in amounts:
        totals = {t + k for t in totals for k in range(0, amount + 1, step)}
    return totals


@st.composite
def differential_cases(draw: st.DrawFn) -> tuple[BaccaratTable, list[Bet]]:
    chips = draw(st.sampled_from([(1,), (5,), (25,)]))
    c = chips[0]
    table = BaccaratTable(
        variant=Variant.MINI,
        boxes=7,
        min_bet=c,
        max_bet=c * 1000,
        chips=Chips(chips),
        banker_payout=draw(st.sampled_from([BankerPayout.COMMISSION, BankerPayout.NO_COMMISSION])),
        table_differential=draw(st.integers(0, 40)) * c // draw(st.sampled_from([1, 2, 4])),
    )
    bets = draw(
        st.lists(
            st.builds(
                Bet,
                st.integers(1, 7).map(box),
                st.sampled_from(["ann", "bob", "cy"]),
                st.sampled_from([Outcome.BANKER, Outcome.PLAYER, Outcome.TIE]),
                st.integers(1, 60).map(lambda n: n * c),
            ),
            max_size=6,
        )
    )
    return table, bets


@settings(max_examples=200, deadline=None)
@given(differential_cases())
@example((
    BaccaratTable(variant=Variant.MINI, boxes=7, min_bet=1, max_bet=1000, chips=Chips((1,)), table_differential=1),
    [Bet(box(1), "ann", Outcome.BANKER, 1), Bet(box(1), "ann", Outcome.BANKER, 40),
     Bet(box(1), "ann", Outcome.PLAYER, 16), Bet(box(1), "ann", Outcome.PLAYER, 23)],
))
def test_differential_reduction_never_leaves_it_exceeded_and_never_increases_a_bet(
    case: tuple[BaccaratTable, list[Bet]],
) -> None:
    table, bets = case
    outcome = reduce_for_differential(bets, table)
    banker, player = side_totals(bets)
    if outcome.possible:
        after = outcome.apply(bets)
        assert differential_excess(after, table) == 0
        for r in outcome.reductions:
            assert 0 <= r.new_amount < r.bet.amount
            assert r.new_amount % table.smallest_chip == 0
            assert valid_part(Bet(r.bet.place, r.bet.player, r.bet.on, r.new_amount), table) == r.new_amount
            assert r.bet.on is (Outcome.BANKER if banker > player else Outcome.PLAYER)
            assert bets[r.index] is r.bet
        if differential_excess(bets, table) == 0:
            assert outcome.reductions == ()
        elif outcome.given_back == 0:
            # Pro rata: every bet on the larger side scaled by one ratio, then rounded down.
            ratio = outcome.ratio
            # A ratio of 1 happens when rounding to whole chips (or to the Banker's chip-exact
            # step) alone brings the side within the differential.
            assert ratio is not None
            assert Fraction(small_limit_target(banker, player, table), max(banker, player)) <= ratio <= 1
            cut = {r.index: r.new_amount for r in outcome.reductions}
            larger = Outcome.BANKER if banker > player else Outcome.PLAYER
            step = banker_step(table) if larger is Outcome.BANKER else table.smallest_chip
            victims = [(i, bet) for i, bet in enumerate(bets) if bet.on is larger]
            for i, bet in victims:
                # unchanged bets are not listed
                assert cut.get(i, bet.amount) == int(bet.amount * ratio) // step * step
            # No more than it must: at the next ratio where any bet would keep one more step,
            # the larger side would exceed the differential.
            points = [Fraction(cut.get(i, b.amount) + step, b.amount) for i, b in victims
                      if cut.get(i, b.amount) + step <= b.amount]
            if points:
                assert table.table_differential is not None
                higher = sum(int(b.amount * min(points)) // step * step for _, b in victims)
                assert higher > min(banker, player) + table.table_differential
    else:
        # Honest refusal: no way of cutting the larger side in whole steps meets the limit.
        larger = Outcome.BANKER if banker > player else Outcome.PLAYER
        step = 20 * table.smallest_chip if larger is Outcome.BANKER and table.commission else table.smallest_chip
        amounts = [b.amount for b in bets if b.on is larger]
        small, limit = min(banker, player), table.table_differential
        assert limit is not None
        assert not any(small - limit <= t <= small + limit for t in achievable_totals(amounts, step))


# --- Casino War -------------------------------------------------------------------------------


@st.composite
def war_cases(draw: st.DrawFn) -> tuple[WarTable, list[WarWager], int, dict[tuple[int, str], Choice]]:
    table = WarTable(
        boxes=7,
        min_bet=10,
        max_bet=10_000,
        chips=Chips((5, 25)),
        tie_pays=draw(st.sampled_from([10, 11])),
        tie_after_tie_bonus=draw(st.sampled_from([None, 1, 3])),
    )
    wagers = draw(
        st.lists(
            st.builds(
                WarWager,
                st.integers(1, 7),
                st.sampled_from(["ann", "bob", "cy"]),
                st.sampled_from([WagerKind.WAR, WagerKind.TIE]),
                st.integers(1, 200).map(lambda n: n * 10),
            ),
            min_size=1,
            max_size=10,
        )
    )
    choices = {
        (w.box, w.player): draw(st.sampled_from(list(Choice))) for w in wagers if w.kind is WagerKind.WAR
    }
    return table, wagers, draw(st.integers(0, 2**32)), choices


def play_war(wagers: list[WarWager], seed: int, choices: dict[tuple[int, str], Choice]) -> WarRound:
    shoe = iter(shuffled_shoe(seed))
    round_ = WarRound.start(wagers)
    while (step := round_.next_step()).kind is not StepKind.COMPLETE:
        if step.kind is StepKind.DECIDE:
            assert step.box is not None and step.player is not None
            round_ = round_.with_choice(step.box, step.player, choices[(step.box, step.player)])
        else:
            round_ = round_.with_card(next(shoe))
    return round_


def war_expected_net(w: WarWager, round_: WarRound, table: WarTable) -> int:
    """The player's gain on a Casino War or Tie Wager plus its Go to War Wager (seed 002 5.3-5.6)."""
    assert round_.dealer_first is not None
    first = round_.first_card(w.box)
    assert first is not None
    mine, dealer = first.rank.war_rank, round_.dealer_first.rank.war_rank
    if w.kind is WagerKind.TIE:
        return w.amount * table.tie_pays if mine == dealer else -w.amount
    if mine != dealer:
        return w.amount if mine > dealer else -w.amount
    if round_.choice_of(w.box, w.player) is Choice.SURRENDER:
        return -(w.amount // 2)
    assert round_.dealer_war is not None
    war_card = round_.war_card(w.box)
    assert war_card is not None
    second, dealer_second = war_card.rank.war_rank, round_.dealer_war.rank.war_rank
    if second < dealer_second:
        return -2 * w.amount
    bonus = w.amount * (table.tie_after_tie_bonus or 0) if second == dealer_second else 0
    return w.amount + bonus  # the raise wins, the original stands off


@settings(max_examples=150, deadline=None)
@given(war_cases())
def test_war_settlement_conserves_money(
        case: tuple[WarTable, list[WarWager], int, dict[tuple[int, str], Choice]]) -> None:
    table, wagers, seed, choices = case
    round_ = play_war(wagers, seed, choices)
    settled = settle_war(round_, table)
    assert round_.burned in (0, 3)
    assert (round_.burned == 3) == bool(round_.war_boxes())
    per_original: dict[int, int] = {}
    originals = iter(range(len(wagers)))
    index = -1
    for s in settled:
        if s.wager.kind is not WagerKind.GO_TO_WAR:
            index = next(originals)
            assert s.wager == wagers[index]
        else:
            assert s.wager.amount == wagers[index].amount  # the raise equals the war wager
        per_original[index] = per_original.get(index, 0) + s.net
        assert s.stake == s.returned + s.collected
        assert s.payout >= 0 and s.collected >= 0
        if s.result is WagerResult.SURRENDER:
            assert s.collected == s.stake // 2
    for i, wager in enumerate(wagers):
        assert per_original[i] == war_expected_net(wager, round_, table)
    staked = sum(s.stake for s in settled)
    back = sum(s.returned + s.payout for s in settled)
    net = sum(s.net for s in settled)
    assert back - staked == net == sum(s.payout for s in settled) - sum(s.collected for s in settled)
