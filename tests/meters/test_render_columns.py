"""The meters on paper (``station meters`` without ``--json``): the columns of a day and its
sessions, each figure in its own words (money with its digits, open time as hours and minutes,
a rate to one decimal, counts of kinds added up), and columns that do not fit the width go on in
a second table, and a third, each with the rows' labels (docs/meters.md)."""

from __future__ import annotations

from station.meters.figures import Figures, RegionFigures
from station.meters.render import WIDTH, _table

DAY = Figures(rounds=82, voided_rounds=1, open_us=(7 * 60 + 5) * 60_000_000, commission=1900,
              void_parts_returned=100, voided_returned=3000, corrections=2, refusals=4,
              irregularities={"device_fault": 2}, integrity_alarms={"composition": 1})
DAY.regions = {"banker": RegionFigures(40, 100_000, 1200), "player": RegionFigures(30, 50_000, -800)}
SESSION = Figures(rounds=5, open_us=59 * 60_000_000)
ROWS = [("day", DAY.report()), ("session 1 ann", SESSION.report())]


def test_a_pit_s_page_is_a_hundred_columns() -> None:
    assert WIDTH == 100
    assert _table(ROWS, 2) == [
        "               rounds  per hour  open  voided  bets    stakes  house  commission  void parts",
        "day                82      11.6  7:05       1    70  1,500.00   4.00       19.00        1.00",
        "session 1 ann       5       5.1  0:59       0     0      0.00   0.00        0.00        0.00",
        "",
        "               voided back  corr.  refused  irreg.  alarms",
        "day                  30.00      2        4       2       1",
        "session 1 ann         0.00      0        0       0       0",
    ]


def test_narrower_the_columns_go_on_in_more_tables() -> None:
    assert _table(ROWS, 2, 60) == [
        "               rounds  per hour  open  voided  bets",
        "day                82      11.6  7:05       1    70",
        "session 1 ann       5       5.1  0:59       0     0",
        "",
        "                 stakes  house  commission  void parts",
        "day            1,500.00   4.00       19.00        1.00",
        "session 1 ann      0.00   0.00        0.00        0.00",
        "",
        "               voided back  corr.  refused  irreg.  alarms",
        "day                  30.00      2        4       2       1",
        "session 1 ann         0.00      0        0       0       0",
    ]
    # A width narrower than one column: one column a table, never an empty one.
    narrow = _table(ROWS, 0, 10)
    assert narrow[0].split() == ["rounds"] and "" not in narrow[:3]
