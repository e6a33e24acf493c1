"""Bet timing (5.4, 5.14, 5.16), payout option changes (5.11), timers and dealer buttons."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.events import (
    Actor,
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    ButtonPressed,
    LateBetOverride,
    PayoutOptionChanged,
    Timer,
)
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SUP = Actor("supervisor", "sam")


def test_refused_bets_say_why(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "banker", 2500)
    assert "cannot be paid exactly" in table.last(out.Refused).reason
    table.bet("9", "ann", "player", 1000)
    assert "there is no box 9" in table.last(out.Refused).reason
    table.bet("1", "ann", "side", 1000)
    assert "not a baccarat betting region" in table.last(out.Refused).reason
    assert table.machine.round.bets == {}


def test_bets_close_at_no_more_bets(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.bet("2", "bo", "player", 1000)
    assert "supervisor may allow late bets" in table.last(out.Refused).reason
    table.post(BetWithdrawn("1", "ann", "player"))
    assert table.machine.round.bets == {("1", "ann", "player"): 1000}


def test_late_bets_only_by_supervisor_and_before_any_reveal(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.post(LateBetOverride(Actor("dealer", "dee")))
    assert table.last(out.Refused).reason == "only a supervisor may allow late bets"
    table.post(LateBetOverride(SUP, "player arrived"))
    assert table.state == "betting"
    table.post(BetChanged("1", "ann", "player", 3000, SUP))
    table.act("no_more_bets").cards("9H 2H KD 3D")
    assert table.last(out.RoundSettled).bets[0].net == 3000
    assert table.machine.round.decisions[0]["late_bets_allowed"] == "player arrived"


def test_no_late_bets_once_a_card_is_shown(table: Any) -> None:
    table.start_shoe().act("no_more_bets").cards("2H")
    table.post(LateBetOverride(SUP))
    assert "has been revealed" in table.last(out.Refused).reason


def test_late_bets_with_face_down_cards_then_dealing_goes_on(make_table: Any) -> None:
    table = make_table(dealing_style="C")
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("2H 3H")
    table.post(LateBetOverride(SUP), BetPlaced("2", "bo", "banker", 2000, SUP))
    assert table.expectation == "late bets allowed by the supervisor: call no more bets again"
    table.act("no_more_bets")
    assert table.expectation == "deal Player second card"
    table.cards("4D KD 7C").act("reveal")
    late = table.machine.round.decisions[-1]
    assert late == {"late_bet": "placed", "bet": ["2", "bo", "banker", 2000], "role": "supervisor", "who": "sam"}
    assert {b.box for b in table.last(out.RoundSettled).bets} == {"1", "2"}


def test_after_a_tie_banker_and_player_bets_stay_and_may_change(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "banker", 2000).bet("1", "ann", "tie", 1000)
    table.act("no_more_bets").cards("9H 9D KD KS")  # 9 v 9: tie
    assert table.last(out.RoundSettled).outcome == "tie"
    table.post(BetChanged("1", "ann", "banker", 4000))
    assert table.last(out.BetAccepted).round_id == "1-2"
    table.bet("1", "ann", "tie", 1000)
    assert "bets are closed" in table.last(out.Refused).reason
    table.act("next_round")
    assert table.machine.round.bets == {("1", "ann", "banker"): 4000}


def test_after_a_win_the_layout_is_cleared(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets").cards("9H 2H KD 3D")
    table.post(BetChanged("1", "ann", "player", 2000))
    assert "bets are closed" in table.last(out.Refused).reason
    table.act("next_round")
    assert table.machine.round.bets == {}


def test_payout_option_change_applies_from_the_next_round(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "banker", 2000)
    table.post(PayoutOptionChanged("no_commission", Actor("dealer", "dee")))
    assert "only a supervisor" in table.last(out.Refused).reason
    table.post(PayoutOptionChanged("no_commission", SUP))
    assert table.last(out.PayoutOptionScheduled).option == "no_commission"
    # Banker wins with 6 in this round: still under commission.
    table.act("no_more_bets").cards("KH 3H 2D 3D 2S")  # Player 2 draws 2; Banker 6 stands: 6 v 4
    assert table.last(out.RoundSettled).bets[0].net == 1900
    table.act("next_round")
    applied = table.last(out.PayoutOptionApplied)
    assert (applied.option, applied.from_round) == ("no_commission", "1-2")
    assert table.machine.payout_history == [
        {"option": "no_commission", "role": "supervisor", "who": "sam", "from_round": "1-2"}
    ]
    table.bet("1", "ann", "banker", 2000).act("no_more_bets").cards("KH 3H 2D 3D 2C")
    assert table.last(out.RoundSettled).bets[0].net == 1000  # 1:2 on a Banker six


def test_differential_reduces_the_larger_side_at_no_more_bets(make_table: Any) -> None:
    table_opts = BaccaratTable(
        variant=Variant.MINI, boxes=7, min_bet=1000, max_bet=500_000,
        chips=Chips((100, 500, 1000)), table_differential=5000,
    )
    table = make_table(table=table_opts)
    table.start_shoe().bet("1", "ann", "player", 10000).bet("2", "bo", "banker", 2000)
    table.act("no_more_bets")
    reduced = table.last(out.BetsReduced)
    assert reduced.reductions == (("1", "ann", "player", 10000, 7000),)
    assert table.machine.round.bets[("1", "ann", "player")] == 7000


def test_betting_closes_on_a_journaled_timer(make_table: Any, tmp_path: Any) -> None:
    from station.core.loop import CoreLoop
    from station.core.options import CoreOptions

    now = [0.0]
    loop = CoreLoop(tmp_path / "t.sqlite3", CoreOptions(betting_seconds=30), clock=lambda: now[0])
    from station.cards import parse_card
    from station.events import CardDrawn, DealerAction

    burn = [CardDrawn("shoe", parse_card(c)) for c in ["2S", "2C", "2D"]]
    for e in [DealerAction("shuffle_done"), DealerAction("confirm_cut"), *burn]:
        loop.post(e)
    loop.run_pending()
    assert loop.state == "betting"
    now[0] = 29.0
    loop.run_pending()
    assert loop.state == "betting"
    now[0] = 30.0
    loop.run_pending()
    assert loop.state == "dealing"
    timers = [r.payload for r in loop.journal.records() if r.kind == "Timer"]
    assert timers == [{"type": "Timer", "name": "close-betting:1-1:1"}]
    loop.post(Timer("close-betting:1-1:1"))  # a stale timer changes nothing
    loop.run_pending()
    assert loop.state == "dealing"
    loop.close()


def test_buttons_map_to_dealer_actions(make_table: Any) -> None:
    table = make_table(buttons={"left": "no_more_bets"})
    table.start_shoe().post(ButtonPressed("pedals", "left"))
    assert table.state == "dealing"
    table.post(ButtonPressed("pedals", "left", long_press=True))
    assert table.last(out.IrregularityRaised).reason == "supervisor_called"
