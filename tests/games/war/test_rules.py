"""Casino War's order of play: first cards, war or surrender, burn three, war cards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from station.cards import parse_card
from station.games.table import Chips
from station.games.war.rules import Choice, StepKind, WarRound, WarStateError
from station.games.war.settlement import settle_war
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


# --- Order of play --------------------------------------------------------------------------


def test_one_card_to_each_box_in_order_then_the_dealer() -> None:
    round_ = WarRound.start([WarWager(5, "bob", WAR, 20), WarWager(2, "ann", WAR, 20), WarWager(5, "cy", TIE, 10)])
    prompts = []
    for code in ("9S", "3H", "7D"):
        prompts.append(round_.next_step().instruction())
        round_ = round_.with_card(parse_card(code))
    assert prompts == ["deal box 2", "deal box 5", "deal Dealer"]
    assert round_.complete
    assert round_.first_card(2) == parse_card("9S")
    with pytest.raises(WarStateError, match="after the round was complete"):
        round_.with_card(parse_card("2C"))


def test_tie_asks_each_war_wager_holder_and_holds_cards_until_answered() -> None:
    wagers = [
        WarWager(1, "ann", WAR, 20), WarWager(1, "bob", WAR, 20),
        WarWager(1, "cy", TIE, 10), WarWager(3, "dee", WAR, 20),
    ]
    round_ = WarRound.start(wagers)
    for code in ("QS", "2H", "QD"):
        round_ = round_.with_card(parse_card(code))
    step = round_.next_step()
    assert (step.kind, step.box, step.player) == (StepKind.DECIDE, 1, "ann")
    assert step.instruction() == "box 1: ann goes to war or surrenders"
    assert round_.deciders() == ((1, "ann"), (1, "bob"))  # the Tie-only player does not decide
    with pytest.raises(WarStateError, match="must still choose war or surrender"):
        round_.with_card(parse_card("4C"))
    with pytest.raises(WarStateError, match="dee on box 3 has no decision"):
        round_.with_choice(3, "dee", Choice.WAR)
    round_ = round_.with_choice(1, "bob", Choice.SURRENDER)  # any order among deciders
    with pytest.raises(WarStateError, match="already chosen"):
        round_.with_choice(1, "bob", Choice.WAR)
    round_ = round_.with_choice(1, "ann", Choice.WAR)
    prompts = []
    for code in ("2C", "3C", "4C", "KH", "JH"):
        prompts.append(round_.next_step().instruction())
        round_ = round_.with_card(parse_card(code))
    assert prompts == ["burn 3 cards", "burn 2 cards", "burn 1 card", "deal box 1 war card", "deal Dealer war card"]
    assert round_.burned == 3 and round_.complete


def test_nobody_goes_to_war_means_no_burn() -> None:
    round_ = play([WarWager(1, "ann", WAR, 20)], "5S 5H", {(1, "ann"): Choice.SURRENDER})
    assert round_.burned == 0 and round_.war == ()


def test_boxes_in_play_always_follow_from_the_wagers() -> None:
    wagers = (WarWager(6, "ann", WAR, 20), WarWager(2, "bob", TIE, 10))
    assert WarRound.start(wagers).boxes == (2, 6)
    assert WarRound(wagers, boxes=(1,)).boxes == (2, 6)


def test_round_rules_on_start() -> None:
    with pytest.raises(WarStateError, match=r"^a round needs at least one wager$"):
        WarRound.start([])
    with pytest.raises(WarStateError, match=r"^Go to War Wagers arise from choices, not at the start of a round$"):
        WarRound.start([WarWager(1, "ann", GO, 20)])
    with pytest.raises(WarStateError, match="not complete"):
        settle_war(WarRound.start([WarWager(1, "ann", WAR, 20)]), table())
