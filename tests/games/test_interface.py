"""The game interface's contract, run on every game the registry knows.

The state machine relies on these answers and nothing else (it never asks which game it
plays), so each game must give them the same way: a bet on each region accepted on the
default table, a malformed one refused rather than raised, a round dealt from any shoe to
completion through :meth:`Play.step`/:meth:`Play.place`/:meth:`Play.decide`, a result, and a
settlement in which the house's figure is minus the players' nets.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from station.cards import FULL_DECK, Card, parse_cards
from station.games.interface import Game, NotAllowed, Play, Stage, TableOptions
from station.games.layout import Acceptance, BetKey, SettledBet
from station.games.registry import GAMES, UnknownGame, game_named

GAME_NAMES = sorted(GAMES)
STAKE = 2000


def shoe(seed: int) -> list[Card]:
    cards = [card for card in FULL_DECK for _ in range(8)]
    random.Random(seed).shuffle(cards)
    return cards


def layout(game: Game[Any, Any]) -> dict[BetKey, int]:
    """One player's bet on every region of box 1, each accepted in turn on the default table."""
    table = game.default_table()
    bets: dict[BetKey, int] = {}
    for region in game.regions:
        key = ("1", "ann", region)
        verdict = game.accept(key, STAKE, bets, table, game.payout_option(table), game.open_round())
        assert verdict, verdict.reason
        bets[key] = STAKE
    return bets


def deal(game: Game[Any, Any], play: Play, cards: list[Card]) -> tuple[Play, list[tuple[str | None, Card]]]:
    """Deal ``play`` to completion from ``cards`` (consumed), taking every choice offered."""
    placed: list[tuple[str | None, Card]] = []
    while not (step := play.step()).complete:
        assert play.instruction(), "every step is worded for the dealer"
        if step.stage is Stage.DECIDE:
            assert step.deciding and game.choices
            play = play.decide(str(step.deciding[0]), "", game.choices[0]).play
            continue
        assert step.wants_card
        card = cards.pop()
        placement = play.place(card)
        placed.append((placement.position, card))
        play = placement.play
    return play, placed


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> Game[Any, Any]:
    return game_named(request.param)


def test_every_game_satisfies_the_interface(game: Game[Any, Any]) -> None:
    assert isinstance(game, Game)
    assert isinstance(game.open_round(), Play)
    table = game.default_table()
    assert isinstance(table, game.table_type) and isinstance(table, TableOptions)
    assert game.regions and set(game.carry_regions) <= set(game.regions)
    assert game.payout_option(table) in (*game.payout_options, "")
    assert isinstance(game.variant_of(table), str)
    assert not set(game.betting_choices) & set(game.choices)
    assert game.cut_problem("", "", table) == "" and game.cut_problem("1", "ann", table) == ""
    assert "there is no box 99" in game.cut_problem("99", "ann", table)
    for name, smallest, largest in game.limit_lines(table, game.payout_option(table)):
        assert name and table.min_bet <= smallest <= largest <= table.max_bet


def test_what_each_game_allows() -> None:
    baccarat, war = game_named("baccarat"), game_named("war")
    assert (baccarat.late_bets, baccarat.hides_cards, baccarat.choices, baccarat.betting_choices) == (
        True, True, (), ())
    assert (war.late_bets, war.hides_cards, war.choices, war.betting_choices) == (
        False, False, ("war", "surrender"), ("decline_tie",))
    assert baccarat.payout_options == ("commission", "no_commission", "ez") and war.payout_options == ()
    assert baccarat.carry_regions == ("banker", "player") and war.carry_regions == ()
    assert (baccarat.title, war.title) == ("baccarat", "casino war")


def test_a_casino_war_result_has_no_baccarat_flags() -> None:
    war = game_named("war")
    play = war.close_betting(war.open_round(), {("1", "ann", "war"): 2000}, war.default_table(), "").play
    for card in parse_cards("5H 5D"):  # a tie: ann goes to war
        play = play.place(card).play
    play = play.decide("1", "ann", "surrender").play
    result = play.result()
    assert (result.natural, result.player_pair, result.banker_pair, result.bets_stay) == (False, False, False, False)


def test_the_registry_knows_each_game_by_its_configured_name() -> None:
    assert GAME_NAMES == ["baccarat", "war"]
    assert all(GAMES[name].name == name for name in GAME_NAMES)
    with pytest.raises(UnknownGame, match="game must be one of baccarat, war, got 'poker'"):
        game_named("poker")


def test_malformed_bets_are_refused_not_raised(game: Game[Any, Any]) -> None:
    table = game.default_table()
    for key in (("1", "ann", "nowhere"), ("box one", "ann", game.regions[0])):
        verdict = game.accept(key, STAKE, {}, table, game.payout_option(table), game.open_round())
        assert isinstance(verdict, Acceptance) and not verdict and verdict.reason


@pytest.mark.parametrize("seed", range(40))
def test_a_round_deals_to_completion_and_settles_every_bet(game: Game[Any, Any], seed: int) -> None:
    table = game.default_table()
    bets = layout(game)
    opened = game.open_round()
    closing = game.close_betting(opened, bets, table, game.payout_option(table))
    assert dict(closing.bets) == bets and closing.reductions == ()
    play, placed = deal(game, closing.play, shoe(seed))
    with pytest.raises(NotAllowed, match=r"when the rules say stand|after the round was complete"):
        play.place(FULL_DECK[0])  # no card once the round is complete
    result = play.result()
    by_position: dict[str, list[Card]] = {}
    for position, card in placed:
        if position is not None:  # None: burned
            by_position.setdefault(position, []).append(card)
    assert {p: list(cards) for p, cards in result.hands} == by_position
    assert [p for p, _ in result.totals] == [p for p, _ in result.hands]
    assert result.record["outcome"] == result.outcome
    settlement = game.settle(play, bets, table, game.payout_option(table))
    assert all(isinstance(s, SettledBet) for s in settlement.bets)
    assert settlement.house_net == -sum(s.net for s in settlement.bets)
    assert {(s.box, s.player, s.region) for s in settlement.bets} >= set(bets)


def test_a_play_is_a_value_the_same_cards_give_the_same_round(game: Game[Any, Any]) -> None:
    table = game.default_table()
    bets = layout(game)
    rounds = []
    for _ in range(2):
        closing = game.close_betting(game.open_round(), bets, table, game.payout_option(table))
        rounds.append(deal(game, closing.play, shoe(7))[0])
    assert rounds[0] == rounds[1]
    assert rounds[0].to_json() == rounds[1].to_json()
    first = game.close_betting(game.open_round(), bets, table, game.payout_option(table)).play
    first.place(shoe(7)[-1])
    assert first.step().stage is Stage.DEAL and not first.to_json().get("choices")  # unchanged by place()


def test_a_round_is_not_decided_before_it_is_complete(game: Game[Any, Any]) -> None:
    table = game.default_table()
    play = game.close_betting(game.open_round(), layout(game), table, game.payout_option(table)).play
    with pytest.raises(NotAllowed, match=r"^the round is not complete: "):
        play.result()


def test_choices_only_where_the_game_offers_them(game: Game[Any, Any]) -> None:
    table = game.default_table()
    play = game.close_betting(game.open_round(), layout(game), table, game.payout_option(table)).play
    with pytest.raises(NotAllowed, match=r"has no 'war' decision|nobody on box 1 has a war-or-surrender decision"):
        play.decide("1", "", game.choices[0] if game.choices else "war")


def test_a_war_round_needs_a_wager_and_a_baccarat_round_does_not() -> None:
    war, baccarat = game_named("war"), game_named("baccarat")
    with pytest.raises(NotAllowed, match="a Casino War round needs at least one"):
        war.close_betting(war.open_round(), {}, war.default_table(), "")
    assert baccarat.close_betting(baccarat.open_round(), {}, baccarat.default_table(), "commission").bets == {}
