"""Baccarat rounds through the real core loop and a real journal: the ordinary path."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out


def test_manual_shoe_from_shuffle_to_first_round(table: Any) -> None:
    assert table.state == "shuffling"
    assert table.expectation == "shuffle the cards, then press shuffle done"
    table.act("shuffle_done")
    assert table.state == "cutting"
    table.act("confirm_cut")
    assert (table.state, table.expectation) == ("burning", "expose the first card")
    table.cards("7H")
    assert table.expectation == "burn 7 cards"
    table.cards("2C 3C 4C 5C 6C 7C")
    assert table.expectation == "burn 1 card"
    table.cards("8C")
    assert table.state == "betting"
    assert table.expectation == "place your bets"
    started = table.last(out.ShoeStarted)
    assert started.shoe == 1 and started.exposed.code == "7H"
    assert [c.code for c in started.burned] == ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    assert table.machine.shoe.composition is not None
    assert len(table.machine.shoe.composition) == 8 * 52 - 8


def test_ten_exposed_burns_ten(table: Any) -> None:
    table.act("shuffle_done", "confirm_cut").cards("KD")
    assert table.expectation == "burn 10 cards"


def test_a_round_is_dealt_by_the_third_card_rules_and_settled(table: Any) -> None:
    table.start_shoe()
    table.bet("1", "ann", "banker", 2000).bet("2", "bob", "player", 1000).bet("2", "bob", "tie", 1000)
    table.act("no_more_bets")
    assert table.expectation == "deal Player first card"
    # Player 2+4 = 6 stands; Banker 3+K = 3 draws (player stood): 7 -> Banker 0.
    table.cards("2H 3H 4D KD")
    assert table.expectation == "deal Banker third card"
    table.cards("7C")
    assert table.state == "paying"
    result = table.last(out.RoundResult)
    assert (result.outcome, dict(result.totals)) == ("player", {"player": 6, "banker": 0})
    settled = table.last(out.RoundSettled)
    nets = {(b.box, b.region): b.net for b in settled.bets}
    assert nets == {("1", "banker"): -2000, ("2", "player"): 1000, ("2", "tie"): -1000}
    assert settled.house_net == 2000
    revealed = [(o.position, o.index, o.card.code) for o in table.of(out.CardRevealed)]
    assert revealed == [("player", 1, "2H"), ("banker", 1, "3H"), ("player", 2, "4D"),
                        ("banker", 2, "KD"), ("banker", 3, "7C")]
    assert table.machine.shoe_results[-1]["outcome"] == "player"
    table.act("next_round")
    assert (table.state, table.machine.round.round_id) == ("betting", "1-2")


def test_banker_win_pays_less_commission(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "banker", 2000).act("no_more_bets")
    table.cards("2H 9H 3D KD")  # Player 5, Banker 9: a natural, both stand
    settled = table.last(out.RoundSettled)
    assert settled.outcome == "banker" and settled.natural
    assert settled.bets[0].net == 1900


def test_restart_mid_round_resumes_in_the_same_state(table: Any) -> None:
    table.start_shoe().bet("3", "cy", "player", 5000).act("no_more_bets").cards("2H 3H 4D")
    before = table.loop.snapshot()
    table.restart()
    assert table.loop.replayed > 0
    assert table.loop.snapshot() == before
    assert table.expectation == "deal Banker second card"
    table.clear()
    table.cards("KD 7C")
    assert table.state == "paying"
    assert len(table.of(out.RoundSettled)) == 1  # published once, after the restart, live
