"""Local time and the gaming day: what a person reads of a journal time, and which day's
figures a moment counts in, across daylight-saving changes."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.config.errors import ConfigError
from station.localtime import (
    day_start,
    day_start_problem,
    gaming_day,
    gaming_day_bounds,
    local_time,
    parse_journal_time,
    timezone_problem,
    zone,
)
from station.service.config import parse_config

VIENNA = zone("Europe/Vienna")
SIX = time(6, 0)


def test_a_journal_time_in_the_tables_zone() -> None:
    assert local_time("2026-12-01T20:45:12.000123Z", VIENNA) == "2026-12-01 21:45:12 CET"
    assert local_time("2026-07-01T20:45:12.000000Z", VIENNA) == "2026-07-01 22:45:12 CEST"
    assert local_time("", VIENNA) == ""


@pytest.mark.parametrize(("utc", "day"), [
    ("2026-12-01T04:59:59.999999Z", date(2026, 11, 30)),  # 05:59:59 local: still the day before
    ("2026-12-01T05:00:00.000000Z", date(2026, 12, 1)),  # 06:00 local: the new day
    # Spring forward (2026-03-29, 02:00 -> 03:00 local): 06:00 CEST is 04:00 UTC.
    ("2026-03-29T03:59:59.000000Z", date(2026, 3, 28)),
    ("2026-03-29T04:00:00.000000Z", date(2026, 3, 29)),
    # Fall back (2026-10-25, 03:00 -> 02:00 local): 06:00 CET is 05:00 UTC.
    ("2026-10-25T04:59:59.000000Z", date(2026, 10, 24)),
    ("2026-10-25T05:00:00.000000Z", date(2026, 10, 25)),
])
def test_the_gaming_day_begins_at_six_local_time_whatever_the_season(utc: str, day: date) -> None:
    assert gaming_day(utc, VIENNA, SIX) == day


def test_days_around_a_daylight_saving_change_are_23_and_25_hours_long() -> None:
    start, end = gaming_day_bounds(date(2026, 3, 28), VIENNA, SIX)
    assert end - start == timedelta(hours=23)
    start, end = gaming_day_bounds(date(2026, 10, 24), VIENNA, SIX)
    assert end - start == timedelta(hours=25)


@given(st.datetimes(min_value=parse_journal_time("2020-01-01T00:00:00Z").replace(tzinfo=None),
                    max_value=parse_journal_time("2035-01-01T00:00:00Z").replace(tzinfo=None)),
       st.sampled_from(["Europe/Vienna", "America/New_York", "Asia/Macau", "Australia/Lord_Howe", "UTC"]),
       st.sampled_from(["00:00", "04:00", "06:00", "10:30"]))
def test_every_moment_lies_in_the_bounds_of_its_own_gaming_day(moment: datetime, name: str, start_text: str) -> None:
    tz, start = zone(name), day_start(start_text)
    text = moment.isoformat(timespec="microseconds") + "Z"
    low, high = gaming_day_bounds(gaming_day(text, tz, start), tz, start)
    assert low <= parse_journal_time(text) < high


def test_bad_zones_and_day_starts_are_named() -> None:
    assert timezone_problem("Europe/Vienna") is None
    assert "IANA" in (timezone_problem("Mars/Olympus") or "")
    assert "not filled in yet" in (timezone_problem("FILL-IN: the casino's zone") or "")
    assert day_start_problem("06:00") is None
    assert day_start_problem("6:00") and day_start_problem("24:00") and day_start_problem("06:60")


@pytest.mark.parametrize(("key", "value"), [("timezone", "Mars/Olympus"), ("gaming_day_start", "25:00")])
def test_the_configuration_refuses_them_naming_the_key(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"table.{key}"):
        parse_config({"table": {key: value}}, tmp_path / "station.toml")
