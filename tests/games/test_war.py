"""Casino War: acceptance (seed 002 section 5), order of play, war, surrender and settlement."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from station.cards import parse_card
from station.games.table import Chips, WarTable
from station.games.war import (
    Choice,
    StepKind,
    WagerKind,
    WagerResult,
    WarRound,
    WarStateError,
    WarWager,
    accept_wager,
    settle_war,
    surrender_return,
)

WAR, TIE, GO = WagerKind.WAR, WagerKind.TIE, WagerKind.GO_TO_WAR


def table(**changes: object) -> WarTable:
    options: dict[str, object] = dict(boxes=7, min_bet=10, max_bet=500, chips=Chips((5, 25, 100)))
    options.update(changes)
    return WarTable(**options)  # type: ignore[arg-type]


def refused(result: object, rule: str, text: str) -> None:
    assert not result, "expected a refusal"
    assert result.rule == rule  # type: ignore[attr-defined]
    assert text in result.reason, result.reason  # type: ignore[attr-defined]


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


# --- Acceptance -----------------------------------------------------------------------------


def test_war_and_tie_wagers_accepted_on_a_box() -> None:
    t = table()
    placed: list[WarWager] = []
    for wager in (WarWager(1, "ann", WAR, 100), WarWager(1, "ann", TIE, 10), WarWager(1, "bob", WAR, 50)):
        assert accept_wager(wager, placed, t), wager
        placed.append(wager)
    assert accept_wager(WarWager(2, "cy", TIE, 10), [], t)  # a Tie Wager alone is allowed (5.1)


@pytest.mark.parametrize(
    ("wager", "rule", "text"),
    [
        (WarWager(8, "ann", WAR, 100), "3.1", "there is no box 8: this table has boxes 1 to 7"),
        (WarWager(1, "ann", WAR, -10), "5.1", "a wager must be a positive whole amount"),
        (WarWager(1, "ann", WAR, 10.0), "5.1", "a wager must be a positive whole amount"),  # type: ignore[arg-type]
        (WarWager(1, "", WAR, 10), "5.1", "needs the player"),
        (WarWager(1, "ann", WAR, 12), "5.1", "Casino War Wager of 12 cannot be made of chips of 5"),
        (WarWager(1, "ann", WAR, 5), "5.7", "Casino War Wager of 5 on box 1 is below the table minimum of 10"),
        (WarWager(1, "ann", TIE, 5), "5.7", "Tie Wager of 5 on box 1 is below the table minimum of 10"),
        (WarWager(1, "ann", WAR, 600), "5.10", "over the table maximum of 500"),
        (WarWager(1, "ann", WAR, 15), "5.2", "could not be halved in chips of 5 on a surrender: use a multiple of 10"),
        (WarWager(1, "ann", GO, 10), "5.2", "placed only when a player chooses war"),
    ],
)
def test_bad_wagers_are_refused(wager: WarWager, rule: str, text: str) -> None:
    refused(accept_wager(wager, [], table()), rule, text)


def test_players_per_box_default_three_and_configurable_lower() -> None:
    placed = [WarWager(2, name, WAR, 20) for name in ("ann", "bob", "cy")]
    refused(accept_wager(WarWager(2, "dee", WAR, 20), placed, table()), "5.9", "box 2 already has 3 players: at most 3")
    refused(accept_wager(WarWager(2, "cy", WAR, 20), placed[:2], table(players_per_box=2)), "5.9", "at most 2 may bet")
    assert accept_wager(WarWager(2, "ann", TIE, 20), placed, table())


def test_boxes_per_player() -> None:
    placed = [WarWager(1, "ann", WAR, 20)]
    refused(accept_wager(WarWager(2, "ann", WAR, 20), placed, table()), "5.8", "player ann may bet on at most 1 box")
    assert accept_wager(WarWager(2, "ann", WAR, 20), placed, table(max_boxes_per_player=2))
    # ... and the minimum still applies on each box (5.7).
    refused(accept_wager(WarWager(2, "ann", WAR, 5), placed, table(max_boxes_per_player=2)), "5.7", "below the table minimum")


def test_box_maximum_and_player_maximum() -> None:
    placed = [WarWager(3, "ann", WAR, 300), WarWager(3, "ann", TIE, 50), WarWager(3, "bob", WAR, 200)]
    t = table(box_max=600, player_max=400)
    refused(accept_wager(WarWager(3, "cy", WAR, 100), placed, t), "5.10", "takes box 3 to 650, over the box maximum of 600")
    refused(
        accept_wager(WarWager(3, "ann", TIE, 100), placed[:2], t),
        "5.10",
        "takes player ann's wagers on box 3 to 450, over the player maximum of 400",
    )
    assert accept_wager(WarWager(3, "ann", TIE, 50), placed[:2], t)


def test_tie_wager_belongs_first_to_the_war_wager_holder() -> None:
    placed = [WarWager(4, "ann", WAR, 100)]
    refused(
        accept_wager(WarWager(4, "bob", TIE, 10), placed, table()),
        "5.11",
        "the Tie Wager on box 4 belongs first to ann, who holds the Casino War Wager there",
    )
    assert accept_wager(WarWager(4, "bob", TIE, 10), placed, table(), tie_declined={(4, "ann")})
    assert accept_wager(WarWager(4, "bob", TIE, 10), placed + [WarWager(4, "ann", TIE, 10)], table())
    assert accept_wager(WarWager(4, "ann", TIE, 10), placed, table())


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
    wagers = [WarWager(1, "ann", WAR, 20), WarWager(1, "bob", WAR, 20), WarWager(1, "cy", TIE, 10), WarWager(3, "dee", WAR, 20)]
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
    with pytest.raises(WarStateError):
        WarRound.start([])
    with pytest.raises(WarStateError):
        WarRound.start([WarWager(1, "ann", GO, 20)])
    with pytest.raises(WarStateError, match="not complete"):
        settle_war(WarRound.start([WarWager(1, "ann", WAR, 20)]), table())


# --- Settlement -----------------------------------------------------------------------------


def by(settled: Sequence[object]) -> dict[tuple[str, str], tuple[str, int]]:
    return {(s.wager.player, s.wager.kind.value): (s.result.value, s.net) for s in settled}  # type: ignore[attr-defined]


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
    assert [(s.wager.kind, s.result, s.net) for s in settled] == [(WAR, WagerResult.LOSE, -100), (GO, WagerResult.LOSE, -100)]


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
