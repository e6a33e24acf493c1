"""``station events --since`` as a person types it: a gaming day, a local time, a time of day
(its last occurrence in the table's zone), a time ago; anything else is refused with the forms."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from station.cli.commands.events import since_time
from station.cli.main import CliError

NOW = datetime(2026, 12, 6, 10, 30, tzinfo=UTC)  # 11:30 in Vienna


@pytest.mark.parametrize(("text", "expected"), [
    ("09:00", "2026-12-06T08:00:00.000000Z"),  # this morning, Vienna time
    ("9:15", "2026-12-06T08:15:00.000000Z"),
    ("21:30", "2026-12-05T20:30:00.000000Z"),  # not yet today: yesterday evening
    ("2h", "2026-12-06T08:30:00.000000Z"),
    ("2026-12-01 21:30", "2026-12-01T20:30:00.000000Z"),
    ("2026-12-01", "2026-12-01T05:00:00.000000Z"),  # the gaming day from 06:00 local
])
def test_the_forms_of_since(text: str, expected: str) -> None:
    assert since_time(text, "Europe/Vienna", "06:00", NOW) == expected


@pytest.mark.parametrize("text", ["25:00", "9:75", "yesterday", "09.00"])
def test_anything_else_is_refused_with_the_forms(text: str) -> None:
    with pytest.raises(CliError, match="time of day"):
        since_time(text, "Europe/Vienna", "06:00", NOW)
