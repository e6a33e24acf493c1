"""Times as the people at the table read them, and the gaming day a moment belongs to.

The journal keeps every time in UTC (``2026-12-01T20:45:12.000123Z``): one clock for the
chain, whatever the table's zone or a daylight-saving change. People read local time:
the dealer's console, ``station recall``, ``station demo``, ``station ctl status`` and the
meters show times in the table's zone (``[table] timezone``, an IANA name such as
``Europe/Vienna``), and a casino's figures are kept by *gaming day*, which begins at a fixed
local time (``[table] gaming_day_start``, e.g. ``"06:00"``) rather than at midnight.

A gaming day is worked out on the local wall clock: a moment belongs to the day of the local
date of (its local time minus the start time). On a daylight-saving change the day is 23 or
25 hours long, as the casino's own clock says, and no moment belongs to two days.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: The zone of a table that names none: UTC, so that a time is never shown as local when the
#: table's zone is not known.
DEFAULT_TIMEZONE = "UTC"
#: When the gaming day of a table that names none begins.
DEFAULT_GAMING_DAY_START = "06:00"

_START = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def timezone_problem(name: str) -> str | None:
    """Why ``name`` is not a time zone this machine knows, or None."""
    if name.upper().startswith("FILL-IN"):
        return "not filled in yet: put the casino's IANA time zone here (e.g. 'Europe/Vienna')"
    if not name or name != name.strip():
        return f"{name!r} is not an IANA time zone name (e.g. 'Europe/Vienna')"
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return f"{name!r} is not an IANA time zone name this machine knows (e.g. 'Europe/Vienna')"
    return None


def day_start_problem(text: str) -> str | None:
    """Why ``text`` is not a local time of day written ``HH:MM``, or None."""
    if not _START.match(text):
        return f"{text!r} is not a time of day written HH:MM (e.g. '06:00')"
    return None


def zone(name: str) -> ZoneInfo:
    """The zone named ``name`` (checked at configuration time by :func:`timezone_problem`)."""
    return ZoneInfo(name)


def parse_journal_time(text: str) -> datetime:
    """A journal time (UTC, ISO 8601 with ``Z``) as an aware datetime."""
    moment = datetime.fromisoformat(text[:-1] if text.endswith("Z") else text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def local(text: str, tz: ZoneInfo) -> datetime:
    """A journal time in the table's zone."""
    return parse_journal_time(text).astimezone(tz)


def local_time(text: str, tz: ZoneInfo, *, seconds: bool = True) -> str:
    """A journal time as people read it on the table: ``2026-12-01 21:45:12 CET``; empty
    stays empty (a round still open has no closing time)."""
    if not text:
        return ""
    moment = local(text, tz)
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")


def clock_time(text: str, tz: ZoneInfo) -> str:
    """Only the local time of day, ``21:45:12``: for a screen that shows today's rounds."""
    return local(text, tz).strftime("%H:%M:%S") if text else ""


def day_start(text: str) -> time:
    """``HH:MM`` as a time of day."""
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def gaming_day(text: str, tz: ZoneInfo, start: time) -> date:
    """The gaming day a journal time belongs to: the local date of (local time - start)."""
    wall = local(text, tz).replace(tzinfo=None)
    return (wall - timedelta(hours=start.hour, minutes=start.minute)).date()


def gaming_day_bounds(day: date, tz: ZoneInfo, start: time) -> tuple[datetime, datetime]:
    """The UTC instants a gaming day begins and ends (end exclusive). The local start time
    exists on every day in practice; where a zone skips it, the instant after the gap counts."""

    def instant(d: date) -> datetime:
        wall = datetime.combine(d, start)
        aware = wall.replace(tzinfo=tz)
        # A wall time inside a spring-forward gap does not round-trip: take the one after the gap.
        if aware.astimezone(UTC).astimezone(tz).replace(tzinfo=None) != wall:
            aware = (wall + timedelta(hours=1)).replace(tzinfo=tz)
        return aware.astimezone(UTC)

    return instant(day), instant(day + timedelta(days=1))

