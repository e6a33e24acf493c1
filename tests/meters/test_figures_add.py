"""The meters' figures add up field by field, whatever they hold (a day is the sum of its parts:
docs/meters.md), and a player's cash is flagged at the logging and reporting levels
(docs/ratings.md). Properties over random figures: each counter of a sum is the sum of the
counters, each count of a sum the sum of the counts, the first and last round the earliest and
the latest."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from station.meters.figures import Figures, RegionFigures
from station.meters.report import Table

COUNTERS = ("rounds", "voided_rounds", "open_us", "commission", "void_parts_returned", "voided_returned",
            "corrections", "corrected_house", "refusals")
COUNTS = ("irregularities", "integrity_alarms", "integrity_alerts", "rounds_by_limits", "tray", "tray_entries",
          "tray_by_reader", "cash", "progressive", "chips")
TIMES = st.sampled_from(["", "2026-12-06T20:00:00.000000Z", "2026-12-06T21:00:00.000000Z",
                         "2026-12-07T02:00:00.000000Z"])
NUMBERS = st.integers(min_value=0, max_value=10**9)
KEYS = st.sampled_from(["a", "b", "c"])


@st.composite
def figures(draw: Any) -> Figures:
    first = draw(TIMES)
    last = draw(TIMES.filter(lambda t: t >= first)) if first else ""
    made = Figures(**{name: draw(NUMBERS) for name in COUNTERS}, first_round=first, last_round=last)
    for name in COUNTS:
        setattr(made, name, draw(st.dictionaries(KEYS, st.integers(min_value=1, max_value=1000), max_size=3)))
    made.regions = {name: RegionFigures(draw(NUMBERS), draw(NUMBERS), draw(st.integers(-10**6, 10**6)))
                    for name in draw(st.lists(st.sampled_from(["banker", "player", "tie"]), unique=True))}
    made.ratings = {str(n): {"card": f"C-{n}"} for n in draw(st.lists(st.integers(1, 9), unique=True, max_size=3))}
    return made


@given(figures(), figures())
def test_two_stretches_add_up_field_by_field(one: Figures, two: Figures) -> None:
    whole = Figures.total([one, two])
    for name in COUNTERS:
        assert getattr(whole, name) == getattr(one, name) + getattr(two, name), name
    for name in COUNTS:
        mine, theirs = getattr(one, name), getattr(two, name)
        assert getattr(whole, name) == {k: mine.get(k, 0) + theirs.get(k, 0) for k in {*mine, *theirs}}, name
    for name in {*one.regions, *two.regions}:
        a, b = one.regions.get(name, RegionFigures()), two.regions.get(name, RegionFigures())
        assert whole.regions[name].to_json() == {"bets": a.bets + b.bets, "stakes": a.stakes + b.stakes,
                                                 "house": a.house + b.house}
    firsts = [t for t in (one.first_round, two.first_round) if t]
    assert whole.first_round == (min(firsts) if firsts else "")
    assert whole.last_round == max(one.last_round, two.last_round)
    assert whole.ratings == {**one.ratings, **two.ratings}
    assert Figures.from_json(whole.to_json()).to_json() == whole.to_json()


def test_a_player_s_cash_is_flagged_at_the_levels() -> None:
    table = Table("baccarat", "USD", 2, "UTC", "06:00")  # 3,000.00 logged, over 10,000.00 reported
    assert [table.cash_flag(amount) for amount in (299_999, 300_000, 1_000_000, 1_000_001)] == [
        "", "log", "log", "report"]
    quiet = Table("baccarat", "USD", 2, "UTC", "06:00", cash_log_at=0, cash_report_over=0)
    assert quiet.cash_flag(10**9) == ""
    only_reports = Table("baccarat", "USD", 2, "UTC", "06:00", cash_log_at=0)
    assert [only_reports.cash_flag(a) for a in (300_000, 1_000_001)] == ["", "report"]
