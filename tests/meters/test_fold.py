"""The meters' fold on outputs written out by hand: where each figure goes, open table time,
gaming days across a daylight-saving change, and that parts add up whatever the order."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from station.core import outputs as out
from station.core.rounds import RoundId
from station.games.layout import SettledBet
from station.journal import JournalRecord
from station.meters.figures import Figures, RegionFigures
from station.meters.fold import GamingDays, MetersFold, Part
from station.meters.report import Table, build_report

VIENNA = "Europe/Vienna"
TABLE = Table("baccarat", "EUR", 2, VIENNA, "06:00")


class Feeder:
    """Records with chosen times and outputs, fed to a fold as the projection would."""

    def __init__(self, fold: MetersFold | None = None) -> None:
        self.fold = fold or MetersFold(VIENNA, "06:00")
        self.seq = 0

    def at(self, time: str, *outputs: out.Output, kind: str = "DealerAction", payload: Any = None) -> None:
        self.seq += 1
        record = JournalRecord(self.seq, time, kind, payload or {}, "0" * 64, "0" * 64)
        self.fold.take(record, None, outputs)


def bet(region: str, stake: int, net: int, commission: int = 0, void: int = 0) -> SettledBet:
    return SettledBet("1", "a", region, stake, stake - void, void, "win" if net > 0 else "lose", net, commission)


def settled(round_id: RoundId, *bets: SettledBet) -> out.RoundSettled:
    house = -sum(b.net for b in bets)
    return out.RoundSettled(round_id, "baccarat", (), (), "banker", False, False, False, bets, house)


def shoe_started(shoe: int) -> out.ShoeStarted:
    return out.ShoeStarted(shoe, None, ())


def test_a_round_is_counted_in_its_part_with_its_bets_commission_and_void_parts() -> None:
    feed = Feeder()
    feed.at("2026-03-25T20:00:00.000000Z", shoe_started(1))
    feed.at("2026-03-25T20:01:30.000000Z", settled(RoundId(1, 1), bet("banker", 4000, 3800, commission=200),
                                                   bet("player", 1000, -1000), bet("banker", 3000, 1900, 100, 1000)))
    [part] = feed.fold.every_part()
    assert part.key == ("2026-03-25", 0, 1)
    f = part.figures
    assert (f.rounds, f.open_us, f.first_round) == (1, 90_000_000, "2026-03-25T20:01:30.000000Z")
    assert f.regions == {"banker": RegionFigures(2, 7000, -5700), "player": RegionFigures(1, 1000, 1000)}
    assert (f.house, f.stakes, f.bets, f.commission, f.void_parts_returned) == (-4700, 8000, 3, 300, 1000)
    assert f.rounds_per_hour == 40.0


def test_open_time_leaves_out_pauses_and_the_time_after_a_shoe_s_last_round() -> None:
    feed = Feeder()
    feed.at("2026-03-25T20:00:00.000000Z", shoe_started(1))
    feed.at("2026-03-25T20:01:00.000000Z", settled(RoundId(1, 1), bet("player", 1000, 1000)))
    feed.at("2026-03-25T20:01:30.000000Z", out.StateChanged("paused", "paying"))  # 30 s banked
    feed.at("2026-03-25T21:01:30.000000Z", out.StateChanged("paying", "paused"))  # an hour paused
    feed.at("2026-03-25T21:02:00.000000Z", settled(RoundId(1, 2), bet("player", 1000, -1000)))  # 30 s + 30 s
    feed.at("2026-03-25T21:03:00.000000Z", out.ShoeEnded(1, 2))
    feed.at("2026-03-25T22:00:00.000000Z", out.StateChanged("paused", "shuffling"))
    feed.at("2026-03-25T22:30:00.000000Z", out.StateChanged("shuffling", "paused"))
    feed.at("2026-03-25T22:40:00.000000Z", shoe_started(2))
    feed.at("2026-03-25T22:41:00.000000Z", settled(RoundId(2, 1), bet("tie", 1000, -1000)))
    parts = {p.shoe: p.figures for p in feed.fold.every_part()}
    assert parts[1].open_us == 120_000_000
    assert parts[2].open_us == 60_000_000


def test_a_correction_re_settles_its_round_where_the_round_was_counted() -> None:
    feed = Feeder()
    feed.at("2026-03-26T03:58:00.000000Z", shoe_started(1))  # 04:58 CET: gaming day 03-25
    feed.at("2026-03-26T04:59:00.000000Z", settled(RoundId(1, 1), bet("player", 1000, 1000)))
    feed.at("2026-03-26T05:01:00.000000Z", out.Refused("BetPlaced", "over the maximum"))  # 06:01: day 03-26
    before, after = (bet("player", 1000, 1000),), (bet("player", 2000, 2000),)
    feed.at("2026-03-26T05:02:00.000000Z", out.RoundCorrected(RoundId(1, 1), "baccarat", ("1", "a", "player", 1000),
                                                               ("1", "a", "player", 2000), before, after, -1000,
                                                               -2000, (("1", "a", "player", 1000),), "keyed wrong",
                                                               "supervisor", "sam"))
    parts = {p.day: p.figures for p in feed.fold.every_part()}
    assert parts["2026-03-25"].regions["player"] == RegionFigures(1, 2000, -2000)
    assert (parts["2026-03-25"].corrections, parts["2026-03-25"].corrected_house) == (1, -1000)
    assert (parts["2026-03-26"].refusals, parts["2026-03-26"].rounds) == (1, 0)


def test_voided_rounds_irregularities_and_alarms() -> None:
    feed = Feeder()
    feed.at("2026-03-25T20:00:00.000000Z", shoe_started(3))
    feed.at("2026-03-25T20:00:10.000000Z", out.IrregularityRaised(1, "device_fault", "shoe: no reply", "3-1",
                                                                   ("resume", "void")))
    returned = (SettledBet("1", "a", "banker", 2000, 0, 2000, "void", 0),)
    feed.at("2026-03-25T20:00:20.000000Z", out.RoundVoided(RoundId(3, 1), "device fault", returned))
    feed.at("2026-03-25T20:00:30.000000Z", out.AlertRaised(1, "composition", "alarm", "", 3, "3-1", False, "monitor"))
    feed.at("2026-03-25T20:00:40.000000Z", out.AlertRaised(2, "edge", "alert", "", 3, "3-1", False, "monitor"))
    [part] = feed.fold.every_part()
    f = part.figures
    assert (f.rounds, f.voided_rounds, f.voided_returned, f.bets, f.stakes) == (1, 1, 2000, 0, 0)
    assert f.irregularities == {"device_fault": 1}
    assert (f.integrity_alarms, f.integrity_alerts) == ({"composition": 1}, {"edge": 1})


def test_gaming_days_on_the_spring_change_are_23_hours_and_begin_at_six_local() -> None:
    days = GamingDays(VIENNA, "06:00")
    assert days.bounds("2026-03-28") == ("2026-03-28T05:00:00.000000Z", "2026-03-29T04:00:00.000000Z")
    assert days.day_of("2026-03-29T03:59:59.999999Z") == "2026-03-28"  # 05:59:59 CEST
    assert days.day_of("2026-03-29T04:00:00.000000Z") == "2026-03-29"  # 06:00 CEST
    assert days.day_of("2026-03-28T04:59:59.000000Z") == "2026-03-27"  # 05:59:59 CET, the day before
    assert days.bounds("2026-10-24") == ("2026-10-24T04:00:00.000000Z", "2026-10-25T05:00:00.000000Z")


def test_a_configuration_record_that_names_another_zone_counts_days_in_it_from_there() -> None:
    feed = Feeder(MetersFold("UTC", "06:00"))
    feed.at("2026-03-25T05:30:00.000000Z", out.Refused("BetPlaced", "x"))  # 05:30 UTC: day 03-24
    feed.at("2026-03-25T05:31:00.000000Z", kind="Configuration",
            payload={"table": {"timezone": VIENNA, "gaming_day_start": "06:00"}})
    feed.at("2026-03-25T05:32:00.000000Z", out.Refused("BetPlaced", "x"))  # 06:32 CET: day 03-25
    assert sorted(p.day for p in feed.fold.every_part()) == ["2026-03-24", "2026-03-25"]


def test_the_fold_restored_from_its_state_goes_on_as_the_fold_that_never_stopped() -> None:
    whole, first = Feeder(), Feeder()
    script = [("2026-03-25T20:00:00.000000Z", shoe_started(1)),
              ("2026-03-25T20:01:00.000000Z", settled(RoundId(1, 1), bet("banker", 2000, 1900, 100))),
              ("2026-03-25T20:01:30.000000Z", out.StateChanged("paused", "paying")),
              ("2026-03-25T20:31:30.000000Z", out.StateChanged("paying", "paused")),
              ("2026-03-25T20:32:00.000000Z", settled(RoundId(1, 2), bet("player", 1000, 1000))),
              ("2026-03-25T20:33:00.000000Z", out.RoundCorrected(RoundId(1, 1), "baccarat", ("1", "a", "banker", 2000),
                                                                 ("1", "a", "banker", 4000),
                                                                 (bet("banker", 2000, 1900, 100),),
                                                                 (bet("banker", 4000, 3800, 200),), -1900, -3800,
                                                                 (), "r", "supervisor", "sam"))]
    for time, output in script:
        whole.at(time, output)
    for time, output in script[:3]:
        first.at(time, output)
    first.fold.seal()
    sealed = list(first.fold.sealed)
    resumed = Feeder(MetersFold.restore(first.fold.state(), VIENNA, "06:00"))
    resumed.seq = first.seq
    for time, output in script[3:]:
        resumed.at(time, output)
    assert build_report([*sealed, *resumed.fold.every_part()], TABLE, day="all") == build_report(
        whole.fold.every_part(), TABLE, day="all")


figures = st.builds(
    Figures, rounds=st.integers(0, 50), voided_rounds=st.integers(0, 5), open_us=st.integers(0, 10**10),
    regions=st.dictionaries(st.sampled_from(["banker", "player", "tie"]),
                            st.builds(RegionFigures, st.integers(0, 9), st.integers(0, 10**6),
                                      st.integers(-10**6, 10**6)),
                            max_size=3),
    commission=st.integers(0, 1000), refusals=st.integers(0, 9),
    irregularities=st.dictionaries(st.sampled_from(["device_fault", "card_when_stand"]), st.integers(1, 3)),
)


@given(st.lists(st.tuples(st.sampled_from(["2026-03-25", "2026-03-26"]), st.integers(0, 2), st.integers(1, 3),
                          figures), max_size=12), st.randoms())
def test_parts_add_up_to_the_same_report_in_any_order_and_however_they_are_split(items, rng) -> None:
    parts = [Part(day, _session(number), shoe, f) for day, number, shoe, f in items]
    shuffled = list(parts)
    rng.shuffle(shuffled)
    assert build_report(shuffled, TABLE, day="all") == build_report(parts, TABLE, day="all")
    for part in parts:  # the state form is the figures, nothing lost
        assert Figures.from_json(part.figures.to_json()) == part.figures


def _session(number: int) -> Any:
    from station.meters.fold import NOBODY, DealerSession

    return NOBODY if number == 0 else DealerSession(number, f"dealer{number}", f"2026-03-25T1{number}:00:00.000000Z")
