"""The meters on paper and in the report at the corners mutation testing found unguarded
(tools/mutate.py, ``--guard meters``; docs/testing.md): what a day's block says when there is
nothing of a kind (no irregularity, no limits, no rate, nobody signed in), when the dealers' own
rows are added, the chip tray's lines, where the columns break at a width, and the report's
rated play and ``read`` for parts not read from a journal. The blocks are rendered as
``station meters`` renders them, from parts the fold counted."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from station.core import outputs as out
from station.core.day_outputs import TrayRecorded
from station.core.rounds import RoundId
from station.meters.figures import Figures
from station.meters.fold import MetersFold
from station.meters.render import _table, render
from station.meters.report import build_report, rated_play

from .test_fold import TABLE, Feeder, bet, shoe_started
from .test_meters_guard_fold import at, settled, signed_in, tray
from .test_render_columns import ROWS


def block(fold: MetersFold) -> list[str]:
    """The lines of the gaming day's block (the fold's only day)."""
    return render(build_report(fold.every_part(), TABLE)).splitlines()


def lines_starting(lines: list[str], start: str) -> list[str]:
    return [line for line in lines if line.startswith(start)]


def test_a_day_of_rounds_alone_is_a_day_of_play_with_none_of_the_rest() -> None:
    """Rounds without a refusal or an irregularity are play: the day has its table, and the
    lines of what did not happen say "none" (or "-" for the limits of rounds whose limits the
    journal did not say)."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1), signed_in("ann"))
    feed.at(at(2), settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann"))
    lines = block(feed.fold)
    assert "no play on this gaming day" not in lines
    assert lines_starting(lines, "day ") and lines_starting(lines, "session 1 ann ")
    assert "limits played: -" in lines
    assert "irregularities: none" in lines
    assert "integrity alarms: none; alerts: none" in lines


def test_what_happened_is_named_with_its_count() -> None:
    feed = Feeder()
    feed.at(at(0), shoe_started(1))
    feed.at(at(1), out.IrregularityRaised(1, "device_fault", "shoe: no reply", "1-1", ("resume", "void")))
    feed.at(at(2), out.IrregularityRaised(2, "device_fault", "shoe: no reply", "1-1", ("resume", "void")))
    feed.at(at(3), out.AlertRaised(1, "composition", "alarm", "", 1, "1-1", False, "monitor"))
    feed.at(at(4), settled(RoundId(1, 1), limits=(1000, 500_000)))
    feed.at(at(5), settled(RoundId(1, 2), limits=(1000, 500_000)))
    feed.at(at(6), settled(RoundId(1, 3), limits=(2500, 500_000)))
    lines = block(feed.fold)
    assert "irregularities: device_fault 2" in lines
    assert "integrity alarms: composition 1; alerts: none" in lines
    assert "limits played: 10.00 - 5,000.00 (2 rounds), 25.00 - 5,000.00 (1 rounds)" in lines


def test_the_time_before_anybody_signed_in_and_the_dealers_rows() -> None:
    """The table's time before a dealer signed in is the session of nobody; a dealer's own row
    (their sessions added up) is shown on a day when some dealer had more than one session."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1))
    feed.at(at(2), settled(RoundId(1, 1)))
    feed.at(at(3), signed_in("ann"))
    feed.at(at(4), settled(RoundId(1, 2), dealer="ann"))
    feed.at(at(5), signed_in("bob", "ann"))
    feed.at(at(6), settled(RoundId(1, 3), dealer="bob"))
    lines = block(feed.fold)
    assert lines_starting(lines, "session 0 (nobody signed in)")
    assert lines_starting(lines, "session 1 ann ") and lines_starting(lines, "session 2 bob ")
    assert not lines_starting(lines, "dealer ")  # one session each
    feed.at(at(7), signed_in("ann", "bob"))
    feed.at(at(8), settled(RoundId(1, 4), dealer="ann"))
    lines = block(feed.fold)
    tables = len(lines_starting(lines, "day "))  # a row in each table of columns
    for dealer in ("ann", "bob", "(nobody)"):
        assert len(lines_starting(lines, f"dealer {dealer} ")) == tables > 0, dealer


def test_a_rate_under_a_minute_of_open_time_is_a_dash() -> None:
    rows = [("short", Figures(rounds=1, open_us=59_999_999).report()),
            ("minute", Figures(rounds=1, open_us=60_000_000).report())]
    short, minute = _table(rows, 2)[1:3]
    assert short.split()[:3] == ["short", "1", "-"]
    assert minute.split()[:3] == ["minute", "1", "60.0"]


def test_columns_go_on_in_a_second_table_only_when_they_do_not_fit() -> None:
    """Columns are two spaces apart: a table exactly as wide as the width asked is one table; a
    character less, and the last columns go on in a second."""
    two = _table(ROWS, 2)
    first, second = two[:3], two[4:]
    label = len("session 1 ann")
    whole = max(map(len, first)) + max(map(len, second)) - label
    one = _table(ROWS, 2, whole)
    assert len(one) == 3 and max(map(len, one)) == whole
    assert "" in _table(ROWS, 2, whole - 1)


def _tray_lines(*entries: TrayRecorded, rounds: int = 0) -> list[str]:
    feed = Feeder()
    feed.at(at(0), shoe_started(1))
    for n in range(rounds):
        feed.at(at(1 + n), settled(RoundId(1, n + 1), bet("player", 1000, -1000)))  # the house wins 10.00
    for n, entry in enumerate(entries):
        feed.at(at(10 + n), entry)
    lines = block(feed.fold)
    start = next(i for i, line in enumerate(lines) if line.startswith("tray: "))
    return lines[start:start + 3 if lines[start + 2].startswith("  counted by") else start + 2]


def test_the_tray_s_lines() -> None:
    """Without an opener and a closer there is no win by inventory; without a drop no hold; a
    win that is not the rounds' house result is flagged (docs/tray.md)."""
    assert _tray_lines(tray(1, "opener", 20_000))[1] == "  no win by inventory without an opener and a closer"
    assert _tray_lines(tray(1, "opener", 20_000), tray(2, "closer", 20_000))[1] == (
        "  win 0.00, hold -, variance 0.00 from the rounds' house result")
    assert _tray_lines(tray(1, "opener", 20_000), tray(2, "closer", 21_000), tray(3, "drop", 5000), rounds=1) == [
        "tray: opener 200.00, fills 0.00, credits 0.00, closer 210.00, drop 50.00",
        "  win 60.00, hold 120.00%, variance 50.00 from the rounds' house result VARIANCE"]
    assert _tray_lines(tray(1, "opener", 20_000), tray(2, "closer", 20_000), tray(3, "drop", 1000),
                       rounds=1)[1] == "  win 10.00, hold 100.00%, variance 0.00 from the rounds' house result"
    assert _tray_lines(tray(1, "opener", 20_000), tray(2, "closer", 20_000), tray(3, "drop", 1001),
                       rounds=1)[1].endswith("variance 0.01 from the rounds' house result VARIANCE")


def test_the_entries_the_tray_antenna_counted_are_said_after_the_tray_s_lines() -> None:
    """An opener or a closer counted by the tray antenna is counted by kind and said in words
    (docs/tray.md); its correction, by hand, does not count again."""
    by_reader = replace(tray(1, "opener", 20_000), counted_by="reader")
    lines = _tray_lines(by_reader, tray(2, "closer", 20_000), replace(tray(3, "closer", 20_000), counted_by="reader"),
                        replace(tray(4, "opener", 20_100), corrects=1, change=100))
    assert lines == ["tray: opener 201.00, fills 0.00, credits 0.00, closer 400.00, drop 0.00",
                     "  win 199.00, hold -, variance 199.00 from the rounds' house result VARIANCE",
                     "  counted by the tray antenna: opener 1, closer 1"]


# --- the report ----------------------------------------------------------------------------


def test_a_report_of_parts_not_read_from_a_journal_says_it_read_nothing() -> None:
    report = build_report([], TABLE)
    assert report["read"] == {"last_seq": 0, "checkpoint": None, "records_read": 0}


def _rating(hands: int, stakes: int, played_us: int) -> dict[str, Any]:
    return {"card": "C-1", "box": "1", "player": "ann", "opened_at": "", "closed_at": "", "played_us": played_us,
            "hands": hands, "bets": hands, "stakes": stakes, "theo": 0, "theo_exact": "0"}


def test_rated_play_without_hands_and_hands_per_hour_to_one_decimal() -> None:
    """A rating of no hand has an average bet of 0 (not a division); hands per hour are to one
    decimal: one hand in seven minutes is 8.6 an hour."""
    nothing = rated_play(_rating(0, 0, 120_000_000))
    assert (nothing["average_bet"], nothing["hands_per_hour"]) == (0, 0.0)
    one = rated_play(_rating(1, 2500, 7 * 60_000_000))
    assert (one["average_bet"], one["hands_per_hour"]) == (2500, 8.6)
