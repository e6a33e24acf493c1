"""The progressive in the core: its meter fed exactly by the share of every wager settled, a
jackpot that holds the table until a supervisor signs it off, paid at the meter's amount and
back to the seed, resets only a supervisor makes, and the same ledger after every restart
(docs/progressive.md)."""

from __future__ import annotations

from typing import Any

import pytest

from station.core import outputs as out
from station.core.progressive import ProgressiveSettings
from station.events import Actor, BetCorrected, ProgressiveReset, ProgressiveSignOff, ShoeEmpty
from station.games.baccarat.side_bets import OfferedSideBet, SideBet
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips

SUP = Actor("supervisor", "sam")
DEALER = Actor("dealer", "dee")
SEED = 1_000_000
JACKPOT = "4S 9H 4S 9H"  # both hands a natural 8 by a suited pair: the whole meter
BOTH_PAIRS = "4S 9H 4D 9H"  # both naturals by pairs, one suited: 500:1
NOTHING = "KH 2D 6S 2C 3H"


def _table(make_table: Any, share_bp: int = 1500) -> Any:
    offers = (OfferedSideBet(SideBet.PROGRESSIVE, "progressive_natural_pairs", 100, 1000),
              OfferedSideBet(SideBet.DRAGON_7, "dragon_7_40", 500, 10_000))
    return make_table(table=BaccaratTable(Variant.MINI, 7, 1000, 500_000, Chips((100, 500, 1000)), side_bets=offers),
                      progressive=ProgressiveSettings("lucky-pairs", SEED, share_bp))


@pytest.fixture
def table(make_table: Any) -> Any:
    return _table(make_table)


def meter(table: Any) -> int:
    ledger = table.machine.progressive
    assert ledger.balanced()
    return int(ledger.meter)


def restarted_same(table: Any) -> None:
    before = table.machine.snapshot()
    table.restart()
    assert table.machine.snapshot() == before


def test_the_meter_grows_by_its_share_of_the_running_total_of_wagers(make_table: Any) -> None:
    table = _table(make_table, share_bp=333)  # 3.33%: 500 gives 16.65
    table.start_shoe()
    shares = []
    for _ in range(3):
        table.bet("1", "ann", "progressive", 500).bet("2", "bob", "progressive", 100).bet("1", "ann", "player", 1000)
        table.act("no_more_bets").cards(NOTHING)
        shares.append(table.last(out.ProgressiveMeter).added)
        table.act("next_round")
    # 600 a round: 19.98 each, never a fraction lost: 19, 20, 20 (59 = 1800 x 3.33% rounded down)
    assert shares == [19, 20, 20]
    assert meter(table) == SEED + 59
    assert table.machine.progressive.wagered == 1800
    restarted_same(table)


def test_a_jackpot_holds_the_table_until_a_supervisor_signs_it_off(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "progressive", 1000).bet("1", "ann", "banker", 1000)
    table.act("no_more_bets").cards(JACKPOT)
    settled = {b.region: (b.outcome, b.net) for b in table.last(out.RoundSettled).bets}
    assert settled["progressive"] == ("win", 0)  # the stake kept; the meter is paid apart
    hit = table.last(out.ProgressiveHit)
    assert hit.meter == SEED + 150 and hit.awards[0]["amount"] == SEED + 150
    assert (hit.awards[0]["box"], hit.awards[0]["hand"], hit.awards[0]["percent"]) == ("1", "both_suited", 100)
    table.act("next_round")
    assert "waits for a supervisor's sign-off" in table.of(out.Refused)[-1].reason
    restarted_same(table)
    table.post(ProgressiveSignOff(str(hit.round_id), DEALER))
    assert table.of(out.Refused)[-1].reason == "only a supervisor signs a progressive jackpot off"
    table.post(ProgressiveSignOff("1-99", SUP))
    assert table.of(out.Refused)[-1].reason.startswith("no jackpot of round 1-99 waits")
    table.post(ProgressiveSignOff(str(hit.round_id), SUP, "paid by cheque 4411"))
    paid = table.last(out.ProgressivePaid)
    assert (paid.total, paid.topped, paid.meter, paid.who) == (SEED + 150, SEED, SEED, "sam")
    assert meter(table) == SEED
    ledger = table.machine.progressive
    assert (ledger.paid, ledger.seeded, ledger.jackpots) == (SEED + 150, 2 * SEED, 1)
    table.act("next_round")
    assert table.machine.state == "betting"
    restarted_same(table)


def test_two_bets_on_one_jackpot_share_it_and_the_rest_stays_in_the_meter(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "progressive", 100).bet("3", "cat", "progressive", 200)
    table.act("no_more_bets").cards(JACKPOT)  # meter SEED + 45
    hit = table.last(out.ProgressiveHit)
    assert [a["amount"] for a in hit.awards] == [(SEED + 45) // 2] * 2
    table.post(ProgressiveSignOff(str(hit.round_id), SUP))
    paid = table.last(out.ProgressivePaid)
    assert paid.total == SEED + 44 and paid.meter == SEED  # the odd unit left, topped up to the seed
    assert paid.topped == SEED - 1
    assert meter(table) == SEED


def test_fixed_awards_are_settled_with_the_round_and_feed_nothing_but_the_share(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "progressive", 100)
    table.act("no_more_bets").cards(BOTH_PAIRS)
    assert [(b.outcome, b.net) for b in table.last(out.RoundSettled).bets] == [("win", 50_000)]
    assert table.machine.jackpot_hold() == "" and meter(table) == SEED + 15


def test_only_a_supervisor_resets_the_meter_with_a_reason_and_never_over_a_jackpot(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "progressive", 1000).act("no_more_bets").cards(NOTHING).act("next_round")
    table.post(ProgressiveReset(-1, "sign showed a wrong amount", DEALER))
    table.post(ProgressiveReset(-1, " ", SUP))
    assert [r.reason for r in table.of(out.Refused)[-2:]] == [
        "only a supervisor resets the progressive's meter", "a reset of the meter needs its reason"]
    table.post(ProgressiveReset(-1, "new seed agreed", SUP))
    reset = table.last(out.ProgressiveWasReset)
    assert (reset.before, reset.meter) == (SEED + 150, SEED)
    assert table.machine.progressive.removed == 150 and meter(table) == SEED
    table.post(ProgressiveReset(2 * SEED, "casino adds to the meter", SUP))
    assert meter(table) == 2 * SEED and table.machine.progressive.seeded == 2 * SEED
    table.bet("1", "ann", "progressive", 1000).act("no_more_bets").cards(JACKPOT)
    table.post(ProgressiveReset(-1, "too late", SUP))
    assert table.of(out.Refused)[-1].reason.startswith("sign the jackpot of round")
    restarted_same(table)


def test_a_void_round_feeds_nothing_and_a_correction_its_share_as_it_was(table: Any) -> None:
    table.start_shoe().bet("1", "ann", "progressive", 1000).act("no_more_bets").cards(NOTHING)
    round_id = table.last(out.RoundSettled).round_id
    table.post(BetCorrected(round_id, "1", "ann", "progressive", "1", "ann", "progressive", 100, "misread", SUP))
    assert table.last(out.ProgressiveMeter).why == "correction"
    assert meter(table) == SEED + 15 and table.machine.progressive.wagered == 100
    table.act("next_round").bet("1", "ann", "progressive", 1000).bet("1", "ann", "player", 1000)
    table.act("no_more_bets").cards("4H 5H")
    table.post(ShoeEmpty("shoe"))
    table.decide("void")
    assert table.of(out.RoundVoided) and meter(table) == SEED + 15
    restarted_same(table)


def test_a_table_without_a_progressive_refuses_its_commands(make_table: Any) -> None:
    table = make_table()
    table.post(ProgressiveReset(-1, "x", SUP), ProgressiveSignOff("1-1", SUP))
    assert [r.reason for r in table.of(out.Refused)] == ["this table has no progressive"] * 2
    assert table.machine.progressive is None and table.machine.progressive_view() is None
