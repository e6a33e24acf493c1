"""Every side bet of every pay table settled against the oracle written from the rules' text
(tests/side_bet_oracle.py), over random rounds dealt from a shuffled shoe and random stakes:
a win pays the stake times the table's odds, a push returns it, a loss takes it, all in
integers; and each hand a pay table names can happen."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import Card, ShoeComposition, parse_cards
from station.games.baccarat.rules import play_round
from station.games.baccarat.side_bets import DEFAULT_PAY_TABLES, PAY_TABLES, SideBet, SideResult, settle_side

from ...side_bet_oracle import ORACLE


def _shoe(seed: int) -> list[Card]:
    cards = [card for card, count in ShoeComposition(8) for _ in range(count)]
    random.Random(seed).shuffle(cards)
    return cards


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 10**9))
def test_every_pay_table_pays_what_the_rules_say(seed: int, stake: int) -> None:
    result = play_round(iter(_shoe(seed)).__next__)
    for name, table in PAY_TABLES.items():
        hand, outcome, winnings = settle_side(table, stake, result)
        expected = ORACLE[name](result)
        assert isinstance(winnings, int)
        if hand in table.meter:  # the stake kept; the meter's share paid on a supervisor's sign-off
            assert (expected, outcome, winnings) == (0, SideResult.WIN, 0), (name, hand)
        elif expected > 0:
            assert (outcome, winnings) == (SideResult.WIN, stake * expected), (name, hand)
        elif expected == 0:
            assert (outcome, winnings) == (SideResult.PUSH, 0), (name, hand)
        else:
            assert (outcome, winnings) == (SideResult.LOSE, 0), (name, hand)


def test_each_hand_a_pay_table_names_happens_in_a_shoe() -> None:
    seen: dict[str, set[str]] = {name: set() for name in PAY_TABLES}
    cards = _shoe(1) * 3
    rounds = [cards[start:start + 6] for start in range(0, len(cards) - 6, 5)]
    rounds.append(parse_cards("7S,7H,7S,7H,2C,2D"))  # both hands a suited pair: about once in 3,500 rounds
    rounds.append(parse_cards("TS,2C,TD,AC,TC,6C"))  # Banker 9 to 0 on three cards: rare for a shoe
    rounds.append(parse_cards("4S,9H,4S,9D,2C,2D"))  # both naturals by pairs, one suited: 1 in 8,400
    rounds.append(parse_cards("4S,9H,4S,9H,2C,2D"))  # both suited: the progressive's meter, 1 in 156,000
    for dealt in rounds:
        result = play_round(iter(dealt).__next__)
        for name, table in PAY_TABLES.items():
            seen[name].add(settle_side(table, 1, result)[0])
    for name, table in PAY_TABLES.items():
        assert set(table.awards) | set(table.pushes) | set(table.meter) <= seen[name], name
    assert set(DEFAULT_PAY_TABLES) == set(SideBet)
    assert all(PAY_TABLES[name].bet is bet for bet, name in DEFAULT_PAY_TABLES.items())
