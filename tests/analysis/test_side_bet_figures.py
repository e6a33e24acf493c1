"""Side bets priced exactly: ``station analyze`` against the published figures, and the fast
count against a slow walk through every ordered sequence of a tiny shoe, each round paid by
an oracle written from the rules' text (not by the station's settlement).

Published for a full 8-deck shoe (RULES "Baccarat side bets"): Dragon 7 at 40:1 about 7.61%,
Panda 8 at 25:1 about 10.19%, a pair at 11:1 about 10.36%, Dragon Bonus on Player about 2.65%
and on Banker about 9.37%, EZ Baccarat's Banker about 1.02%; Either Pair at 5:1 about 13.71%
and Perfect Pair at 25/200 about 8.05% are the commonly quoted figures for those tables."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from typing import Any

import pytest

from station.analysis.edges import percent
from station.analysis.side_bet_odds import analyse_side_bets, break_even_meter
from station.cards import ShoeComposition, parse_cards
from station.cli.main import main
from station.games.baccarat.rules import play_round

from ..side_bet_oracle import ORACLE, ez_banker

PUBLISHED_8_DECKS = {
    "dragon_7_40": "7.61", "panda_8_25": "10.19", "player_pair_11": "10.36", "banker_pair_11": "10.36",
    "dragon_bonus_player_a": "2.65", "dragon_bonus_banker_a": "9.37", "either_pair_5": "13.71",
    "perfect_pair_25_200": "8.05",
}


def test_eight_decks_reproduce_the_published_side_bet_edges(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--decks", "8", "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    for name, figure in PUBLISHED_8_DECKS.items():
        exact = Fraction(document["side_bets"][name]["house_edge"])
        assert percent(exact, 2) == figure, name
    assert percent(Fraction(document["house_edges"]["banker_ez"]["house_edge"]), 2) == "1.02"
    assert set(document["side_bets"]) == set(ORACLE)


@pytest.mark.parametrize("shoe_codes", [
    "7S 7S 3H 3H KD QC 4S 9C 7S",          # three-card sevens and eights, suited pairs
    "8H 8H 9D 2C 2C 5S TS JS 6D",          # naturals, ties, margins
    "4S 4S 9H 9H 4D 9C 4S KD 2C",          # naturals by pairs, suited and not (the progressive)
])
def test_the_counts_equal_a_walk_through_every_sequence_of_a_tiny_shoe(shoe_codes: str) -> None:
    cards = parse_cards(shoe_codes.replace(" ", ","))
    shoe = ShoeComposition(8, {card: cards.count(card) for card in set(cards)})
    analysis = analyse_side_bets(shoe)
    paid = dict.fromkeys(ORACLE, 0)
    ez, sequences = 0, 0
    for sequence in itertools.permutations(range(len(cards)), 6):  # positions: equal cards stay distinct
        result = play_round(iter([cards[i] for i in sequence]).__next__)
        sequences += 1
        for name, pays in ORACLE.items():
            paid[name] += pays(result)
        ez += ez_banker(result)
    assert analysis.total == sequences
    for name in ORACLE:
        assert analysis.edge(name).house_edge == -Fraction(paid[name], sequences), name
    assert analysis.ez_banker.house_edge == -Fraction(ez, sequences)


def test_the_progressive_prices_its_fixed_awards_and_the_meter_that_pays_for_the_bet() -> None:
    odds = next(o for o in analyse_side_bets(ShoeComposition(8)).odds if o.table.name == "progressive_natural_pairs")
    jackpot = Fraction(odds.hands["both_suited"], odds.total)
    # 8 decks: both hands a suited natural pair is 422 in 65,889,135 (about 1 in 156,000).
    assert jackpot == Fraction(422, 65_889_135)
    stakes = break_even_meter(odds, 1)
    assert stakes is not None and stakes == math.ceil(odds.edge.house_edge / jackpot)
    # At that meter (in stakes) the bet returns at least what is staked, a unit less not.
    assert jackpot * stakes >= odds.edge.house_edge > jackpot * (stakes - 1)
    assert break_even_meter(analyse_side_bets(ShoeComposition(8)).odds[0], 1) is None  # Dragon 7 has no meter
