"""Side bets in the core, as the state machine holds any bet: refused with the game's words,
settled with their round, never left on after a Tie, voided with their round, corrected like
any bet, and replayed the same after a restart (docs/side-bets.md)."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.core.recall import describe, recall_round
from station.events import Actor, BetCorrected, ShoeEmpty
from station.games.baccarat.side_bets import OfferedSideBet, SideBet
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips
from station.money import Money

SUP = Actor("supervisor", "sam")
SIDE_BETS = (OfferedSideBet(SideBet.DRAGON_7, "dragon_7_40", 500, 10_000),
             OfferedSideBet(SideBet.PLAYER_PAIR, "player_pair_11", 500, 10_000))


@pytest.fixture
def table(make_table: Any) -> Any:
    return make_table(table=BaccaratTable(Variant.MINI, 7, 1000, 500_000, Chips((100, 500, 1000)),
                                          side_bets=SIDE_BETS))


def settled(table: Any) -> list[tuple[str, str, int, str, int]]:
    return [(b.box, b.region, b.stake, b.outcome, b.net) for b in table.last(out.RoundSettled).bets]


def test_a_side_bet_is_refused_in_the_games_words(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "dragon_7", 200).bet("1", "ann", "panda_8", 500)
    reasons = [r.reason for r in table.of(out.Refused)]
    assert reasons == ["Dragon 7 bet of 2.00 on box 1 is below the Dragon 7 minimum of 5.00",
                       "this table offers no Panda 8 bet"]


def test_a_tie_settles_the_side_bets_and_leaves_only_banker_and_player_on(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).bet("1", "ann", "dragon_7", 500)
    # 8 a piece, the Player a pair of 4s
    table.bet("2", "bob", "player_pair", 1000).act("no_more_bets").cards("4H 8D 4S KC")
    assert settled(table) == [("1", "player", 1000, "push", 0), ("1", "dragon_7", 500, "lose", -500),
                              ("2", "player_pair", 1000, "win", 11_000)]
    assert table.last(out.RoundSettled).house_net == 500 - 11_000
    assert table.last(out.RoundSettled).carried == ((("1", "ann", "player"), 1000),)
    table.act("next_round").act("no_more_bets").cards("KH 2D 6S 2C 3H")  # a Dragon 7; only the Player bet
    assert settled(table) == [("1", "player", 1000, "lose", -1000)]


def test_a_side_bet_is_voided_and_corrected_with_its_round(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).bet("1", "ann", "dragon_7", 500)
    table.act("no_more_bets").cards("KH 2D 6S 2C 3H")  # a Dragon 7
    assert settled(table)[1] == ("1", "dragon_7", 500, "win", 20_000)
    round_id = table.last(out.RoundSettled).round_id
    table.post(BetCorrected(round_id, "1", "ann", "dragon_7", "1", "ann", "dragon_7", 1000, "misread", SUP))
    corrected = table.last(out.RoundCorrected)
    assert [(b.region, b.stake, b.net) for b in corrected.after] == [("player", 1000, -1000),
                                                                     ("dragon_7", 1000, 40_000)]
    assert corrected.house_after == 1000 - 40_000
    table.post(BetCorrected(round_id, "1", "ann", "dragon_7", "1", "ann", "dragon_7", 20_000, "misread", SUP))
    assert table.of(out.Refused)[-1].reason.startswith(
        "the corrected bet would not have been accepted: Dragon 7 bet of 200.00 takes player ann's Dragon 7")
    table.act("next_round").bet("3", "cat", "dragon_7", 500).bet("3", "cat", "player", 1000)
    table.act("no_more_bets").cards("4H 5H")
    table.post(ShoeEmpty("shoe"))
    table.decide("void")
    assert [(b.region, b.stake, b.void, b.net) for b in table.last(out.RoundVoided).returned] == [
        ("dragon_7", 500, 500, 0), ("player", 1000, 1000, 0)]
    before = (table.machine.house_net, table.machine.rounds_settled, table.machine.rounds_voided)
    table.restart()
    assert (table.machine.house_net, table.machine.rounds_settled, table.machine.rounds_voided) == before


def test_recall_names_each_side_bet_in_words_and_keeps_its_region_in_the_record(table: Any) -> None:
    """``station recall``'s words (:func:`describe`) say "Dragon 7" where the journal, the
    record and ``--json`` keep ``dragon_7``: the bets, their settlement and a correction."""
    table.start_shoe().bet("1", "ann", "player", 1000).bet("1", "ann", "dragon_7", 500)
    table.bet("2", "bob", "player_pair", 500)
    table.act("no_more_bets").cards("KH 2D 6S 2C 3H")  # a Dragon 7
    round_id = table.last(out.RoundSettled).round_id
    table.post(BetCorrected(round_id, "2", "bob", "player_pair", "2", "bob", "dragon_7", 500, "misread", SUP))
    table.act("next_round")
    table.loop.close()
    recalled = recall_round(table.path, table.options, round_id)
    assert recalled is not None
    # As the round left the table: corrected.
    assert [b["region"] for b in recalled["bets"]] == ["player", "dragon_7", "dragon_7"]
    text = describe(recalled, Money(2))
    assert "bet          box 1 ann Player 10.00 -> lose -10.00" in text
    assert "bet          box 1 ann Dragon 7 5.00 -> win +200.00" in text
    assert "bet          box 2 bob Dragon 7 5.00 -> win +200.00" in text
    assert ("(misread): box 2 bob Player Pair 5.00 -> box 2 bob Dragon 7 5.00; differences box 2 bob "
            "Player Pair +5.00, box 2 bob Dragon 7 +200.00; house -185.00 -> -390.00") in text, text
    assert "dragon_7" not in text and "player_pair" not in text
