"""Baccarat settlement against the seeds' worked examples (5.1, 5.10-5.13)."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_cards
from station.games.baccarat.rules import BaccaratResult, Outcome, result_of
from station.games.baccarat.settlement import BetResult, banker_win_payout, settle_bet, settle_round
from station.games.baccarat.table import BaccaratTable
from station.games.baccarat.wagers import Bet, box
from station.games.table import Chips

B, P, T = Outcome.BANKER, Outcome.PLAYER, Outcome.TIE


def cents(**changes: Any) -> BaccaratTable:
    """A mini table in cents with chips of 0.25, 1, 5 and 25."""
    options: dict[str, Any] = {
        "variant": "mini", "boxes": 7, "min_bet": 500, "max_bet": 100_000, "chips": Chips((25, 100, 500, 2500))
    }
    options.update(changes)
    return BaccaratTable(**options)


def units(**changes: Any) -> BaccaratTable:
    """A mini table counted in whole units with chips of 1."""
    options: dict[str, Any] = {"variant": "mini", "boxes": 7, "min_bet": 10, "max_bet": 1000,
                               "chips": Chips((1, 5, 25))}
    options.update(changes)
    return BaccaratTable(**options)


def round_of(player: str, banker: str) -> BaccaratResult:
    return result_of(parse_cards(player), parse_cards(banker))


BANKER_WINS_7 = round_of("2S 4H", "KS 7H")  # Player stands on 6, Banker 7
BANKER_WINS_6 = round_of("AS 2H AD", "KS 6H")  # Player 3 draws an Ace (4); Banker stands on 6
PLAYER_WINS = round_of("KS 9H", "KD 7H")  # natural 9 against 7
TIE_6 = round_of("2S 4H", "3S 3H")  # 6 against 6


def test_rounds_used_here_are_what_they_say() -> None:
    assert (BANKER_WINS_7.outcome, BANKER_WINS_7.banker_total) == (B, 7)
    assert BANKER_WINS_6.banker_wins_on_six and not BANKER_WINS_7.banker_wins_on_six
    player_over_a_banker_six = round_of("KS 9H", "3D 3H")  # natural 9 against 6
    assert player_over_a_banker_six.banker_total == 6 and not player_over_a_banker_six.banker_wins_on_six
    assert not TIE_6.banker_wins_on_six  # 6 against 6 is a Tie, not a Banker win
    assert PLAYER_WINS.outcome is P
    assert (TIE_6.outcome, TIE_6.player_total) == (T, 6)


def test_five_dollar_banker_win_pays_four_seventy_five() -> None:
    s = settle_bet(Bet(box(1), "ann", B, 500), BANKER_WINS_7, cents())
    assert (s.result, s.net, s.payout, s.commission, s.winnings) == (BetResult.WIN, 475, 475, 25, 500)
    assert (s.returned, s.collected, s.valid, s.void) == (500, 0, 500, 0)


def test_banker_win_on_six_under_commission_still_pays_95_percent() -> None:
    assert settle_bet(Bet(box(1), "ann", B, 10_000), BANKER_WINS_6, cents()).net == 9500


def test_no_commission_banker_win_on_six_pays_half() -> None:
    table = cents(banker_payout="no_commission")
    s = settle_bet(Bet(box(1), "ann", B, 10_000), BANKER_WINS_6, table)
    assert (s.result, s.net, s.payout, s.commission) == (BetResult.WIN, 5000, 5000, 0)


def test_no_commission_banker_win_on_seven_pays_even_money() -> None:
    table = cents(banker_payout="no_commission")
    assert settle_bet(Bet(box(1), "ann", B, 10_000), BANKER_WINS_7, table).net == 10_000


def test_no_commission_half_that_is_not_a_whole_chip_is_rounded_down() -> None:
    table = units(banker_payout="no_commission", chips=Chips((5, 25)))
    # 25 on Banker winning with 6 would pay 12.5; with chips of 5 it pays 10.
    assert settle_bet(Bet(box(1), "ann", B, 25), BANKER_WINS_6, table).net == 10
    assert settle_bet(Bet(box(1), "ann", B, 30), BANKER_WINS_6, table).net == 15


@pytest.mark.parametrize(("tie_pays", "net"), [(8, 800), (9, 900)])
def test_tie_pays_eight_or_nine_to_one(tie_pays: int, net: int) -> None:
    s = settle_bet(Bet(box(1), "ann", T, 100), TIE_6, units(tie_pays=tie_pays))
    assert (s.result, s.net, s.payout, s.returned) == (BetResult.WIN, net, net, 100)


@pytest.mark.parametrize("on", [B, P])
def test_banker_and_player_bets_stand_off_on_a_tie(on: Outcome) -> None:
    s = settle_bet(Bet(box(1), "ann", on, 100), TIE_6, units())
    assert (s.result, s.net, s.payout, s.collected, s.returned) == (BetResult.PUSH, 0, 0, 0, 100)


def test_player_bet_pays_even_money_and_losing_bets_are_collected() -> None:
    table = units()
    win = settle_bet(Bet(box(1), "ann", P, 100), PLAYER_WINS, table)
    assert (win.result, win.net) == (BetResult.WIN, 100)
    for bet in (Bet(box(1), "ann", B, 100), Bet(box(1), "ann", T, 100)):
        lose = settle_bet(bet, PLAYER_WINS, table)
        assert (lose.result, lose.net, lose.collected, lose.returned, lose.payout) == (BetResult.LOSE, -100, 100, 0, 0)
    assert settle_bet(Bet(box(1), "ann", P, 100), BANKER_WINS_7, table).net == -100


def test_banker_30_accepted_by_mistake_settles_20_valid_and_10_void() -> None:
    bet = Bet(box(1), "ann", B, 30)
    table = units()
    win = settle_bet(bet, BANKER_WINS_7, table)
    assert (win.valid, win.void, win.net, win.commission, win.returned) == (20, 10, 19, 1, 30)
    lose = settle_bet(bet, PLAYER_WINS, table)
    assert (lose.net, lose.collected, lose.returned) == (-20, 20, 10)
    push = settle_bet(bet, TIE_6, table)
    assert (push.result, push.net, push.returned) == (BetResult.PUSH, 0, 30)


def test_banker_bet_with_no_valid_part_is_void() -> None:
    s = settle_bet(Bet(box(1), "ann", B, 15), BANKER_WINS_7, units())
    assert (s.result, s.valid, s.void, s.net, s.returned) == (BetResult.VOID, 0, 15, 0, 15)


def test_round_totals_give_the_house_result() -> None:
    bets = [
        Bet(box(1), "ann", B, 500),
        Bet(box(1), "bob", P, 1000),
        Bet(box(2), "cy", T, 500),
        Bet(box(3), "dee", B, 2000),
    ]
    settled = settle_round(bets, BANKER_WINS_7, cents())
    assert [s.net for s in settled.bets] == [475, -1000, -500, 1900]
    assert (settled.paid_out, settled.collected, settled.commission) == (2375, 1500, 125)
    assert settled.house_result == -875 == -sum(s.net for s in settled.bets)
    assert settle_round(bets, BANKER_WINS_7, cents()) == settled  # deterministic


def test_a_banker_stake_that_cannot_be_paid_exactly_is_refused_not_paid_in_fractions() -> None:
    # valid_part never gives these; the settlement still refuses rather than pay 23.75 or 19.
    with pytest.raises(ValueError, match=r"^Banker stake 25 is not payable exactly under commission$"):
        banker_win_payout(25, BANKER_WINS_7, units())
    with pytest.raises(ValueError, match=r"^Banker stake 20 is not payable exactly under commission$"):
        banker_win_payout(20, BANKER_WINS_7, units(chips=Chips((5,)), min_bet=100, max_bet=1000))
    assert banker_win_payout(20, BANKER_WINS_7, units()) == (20, 1)
