"""Casino War settlement: even money, the Tie Wager, surrender and war."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from station.cards import parse_card
from station.games.table import Chips
from station.games.war.rules import Choice, StepKind, WarRound
from station.games.war.settlement import WagerResult, WagerSettlement, settle_war, surrender_return
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager

WAR, TIE, GO = WagerKind.WAR, WagerKind.TIE, WagerKind.GO_TO_WAR


def table(**changes: Any) -> WarTable:
    options: dict[str, Any] = {"boxes": 7, "min_bet": 10, "max_bet": 500, "chips": Chips((5, 25, 100))}
    options.update(changes)
    return WarTable(**options)


def play(wagers: Sequence[WarWager], cards: str, choices: dict[tuple[int, str], Choice] | None = None) -> WarRound:
    """Run a round: cards in shoe order; decisions answered from ``choices`` when asked."""
    round_ = WarRound.start(wagers)
    shoe = iter(cards.split())
    while (step := round_.next_step()).kind is not StepKind.COMPLETE:
        if step.kind is StepKind.DECIDE:
            assert step.box is not None and step.player is not None
            round_ = round_.with_choice(step.box, step.player, (choices or {})[(step.box, step.player)])
        else:
            round_ = round_.with_card(parse_card(next(shoe)))
    assert next(shoe, None) is None, "cards left over"
    return round_


# --- Settlement -----------------------------------------------------------------------------


def by(settled: Sequence[WagerSettlement]) -> dict[tuple[str, str], tuple[str, int]]:
    return {(s.wager.player, s.wager.kind.value): (s.result.value, s.net) for s in settled}


def test_higher_card_wins_even_money_lower_loses_ace_high() -> None:
    wagers = [WarWager(1, "ann", WAR, 100), WarWager(2, "bob", WAR, 100), WarWager(2, "bob2", TIE, 20)]
    settled = settle_war(play(wagers, "AS KH QD"), table())
    assert by(settled) == {("ann", "war"): ("win", 100), ("bob", "war"): ("win", 100), ("bob2", "tie"): ("lose", -20)}
    settled = settle_war(play(wagers, "2S KH AD"), table())
    assert by(settled)[("ann", "war")] == ("lose", -100)


def test_tie_wager_pays_ten_to_one_by_default_and_is_configurable() -> None:
    wagers = [WarWager(1, "ann", TIE, 20)]
    assert by(settle_war(play(wagers, "7S 7H"), table()))[("ann", "tie")] == ("win", 200)
    assert by(settle_war(play(wagers, "7S 7H"), table(tie_pays=11)))[("ann", "tie")] == ("win", 220)
    # Suits do not matter: 10 of spades ties 10 of hearts, but a 10 does not tie a Jack.
    assert by(settle_war(play(wagers, "TS JH"), table()))[("ann", "tie")] == ("lose", -20)


def test_surrender_loses_half() -> None:
    wagers = [WarWager(1, "ann", WAR, 100), WarWager(1, "ann", TIE, 10)]
    settled = settle_war(play(wagers, "9S 9D", {(1, "ann"): Choice.SURRENDER}), table())
    war = next(s for s in settled if s.wager.kind is WAR)
    assert (war.result, war.net, war.collected, war.returned) == (WagerResult.SURRENDER, -50, 50, 50)
    assert by(settled)[("ann", "tie")] == ("win", 100)


def test_surrender_of_an_amount_that_cannot_be_halved_returns_half_rounded_down() -> None:
    assert surrender_return(15, table()) == 5  # 7.5 rounded down to a chip of 5
    assert surrender_return(30, table()) == 15


def test_going_to_war_and_winning_pays_the_raise_and_pushes_the_original() -> None:
    wagers = [WarWager(1, "ann", WAR, 100)]
    settled = settle_war(play(wagers, "9S 9D 2C 3C 4C KH QH", {(1, "ann"): Choice.WAR}), table())
    assert [(s.wager.kind, s.result, s.net, s.stake) for s in settled] == [
        (WAR, WagerResult.PUSH, 0, 100),
        (GO, WagerResult.WIN, 100, 100),
    ]


def test_going_to_war_and_tying_again_wins_without_bonus_by_default() -> None:
    wagers = [WarWager(1, "ann", WAR, 100)]
    round_ = play(wagers, "9S 9D 2C 3C 4C KH KD", {(1, "ann"): Choice.WAR})
    assert [s.net for s in settle_war(round_, table())] == [0, 100]
    with_bonus = settle_war(round_, table(tie_after_tie_bonus=1))
    assert [(s.net, s.bonus) for s in with_bonus] == [(0, 0), (200, 100)]


def test_going_to_war_and_losing_loses_both() -> None:
    wagers = [WarWager(1, "ann", WAR, 100)]
    settled = settle_war(play(wagers, "9S 9D 2C 3C 4C 5H KD", {(1, "ann"): Choice.WAR}), table(tie_after_tie_bonus=1))
    expected = [(WAR, WagerResult.LOSE, -100), (GO, WagerResult.LOSE, -100)]
    assert [(s.wager.kind, s.result, s.net) for s in settled] == expected


def test_players_sharing_a_box_share_its_cards_and_choose_separately() -> None:
    wagers = [WarWager(1, "ann", WAR, 100), WarWager(1, "bob", WAR, 50), WarWager(2, "cy", WAR, 20)]
    choices = {(1, "ann"): Choice.WAR, (1, "bob"): Choice.SURRENDER, (2, "cy"): Choice.WAR}
    # Box 1: 8, box 2: 8, Dealer: 8 -> all tie; war cards box 1 A, box 2 3, Dealer 5.
    settled = settle_war(play(wagers, "8S 8H 8D 2C 3C 4C AH 3S 5D", choices), table())
    assert [(s.wager.player, s.wager.kind.value, s.net) for s in settled] == [
        ("ann", "war", 0),
        ("ann", "go_to_war", 100),
        ("bob", "war", -25),
        ("cy", "war", -20),
        ("cy", "go_to_war", -20),
    ]
    for s in settled:
        assert s.returned + s.collected == s.stake
