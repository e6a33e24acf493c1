"""From parts of play to the meters a pit reads: per gaming day, its dealer sessions, its
dealers and its shoes (``station meters --json``, whose layout ``meters.schema.json`` gives).

Every figure of the report is a sum of parts (:mod:`station.meters.fold`): a day's are the
parts of that day, a session's the parts of that session within the day, a shoe's likewise.
A session or a shoe that runs across the start of a gaming day is shown in each day with the
part of it played that day; ``--dealer`` keeps the parts dealt by one dealer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from station.meters.figures import HOUR_US, RATE_FROM_US, Figures
from station.meters.fold import DealerSession, GamingDays, Part

#: The version of the report's layout (``format`` in ``--json``; meters.schema.json).
REPORT_FORMAT = 1


class NoSuchDealer(LookupError):
    """``--dealer NAME`` names nobody who dealt at this table; the message lists who did."""


@dataclass(frozen=True)
class Table:
    """How the report writes what it reports: the table, its money and its clock."""

    game: str
    currency: str
    minor_digits: int
    timezone: str
    gaming_day_start: str
    #: A player's cash in a gaming day from which it is logged, and above which it is reported
    #: (``[table] cash_log_at``, ``cash_report_over``; 0: not flagged). docs/ratings.md.
    cash_log_at: int = 300_000
    cash_report_over: int = 1_000_000

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "currency": self.currency, "minor_digits": self.minor_digits,
                "timezone": self.timezone, "gaming_day_start": self.gaming_day_start,
                "cash_log_at": self.cash_log_at, "cash_report_over": self.cash_report_over}

    def cash_flag(self, amount: int) -> str:
        """``report`` above the reporting level, ``log`` from the logging level, else empty."""
        if self.cash_report_over and amount > self.cash_report_over:
            return "report"
        if self.cash_log_at and amount >= self.cash_log_at:
            return "log"
        return ""


def merged(parts: Iterable[Part]) -> list[Part]:
    """The parts with those of the same key added into one (a part sealed and met again)."""
    found: dict[tuple[str, int, int], Part] = {}
    for part in parts:
        known = found.get(part.key)
        if known is None:
            found[part.key] = Part(part.day, part.session, part.shoe, Figures.total([part.figures]))
        else:
            known.figures.add(part.figures)
    return sorted(found.values(), key=lambda p: p.key)


def sessions_of(parts: Iterable[Part]) -> list[DealerSession]:
    """Every dealer session the parts name, in order."""
    return sorted({part.session.number: part.session for part in parts}.values(), key=lambda s: s.number)


def build_report(parts: Iterable[Part], table: Table, *, journal: str = "", day: str | None = None,
                 dealer: str | None = None, read: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report of ``parts`` for gaming ``day`` (``YYYY-MM-DD``; ``"all"``: every day of
    the journal; None: the last day with play, of ``dealer`` when given), and of ``dealer``'s
    parts only when given."""
    every = merged(parts)
    sessions = sessions_of(every)
    relieved = {s.number: after.began for s, after in pairwise(sessions)}
    if dealer is not None and not any(s.dealer == dealer for s in sessions if s.number):
        names = sorted({s.dealer for s in sessions if s.number})
        who = ", ".join(names) if names else "nobody has signed in"
        raise NoSuchDealer(f"no session of dealer {dealer!r} in the journal (dealers: {who})")
    chosen = [p for p in every if dealer is None or p.session.dealer == dealer]
    played = sorted({p.day for p in every})
    if day == "all":
        days = sorted({p.day for p in chosen})
    elif day is None:  # the last day with play (with --dealer: the last that dealer dealt)
        days = sorted({p.day for p in chosen})[-1:] or played[-1:]
    else:
        days = [day]
    calendar = GamingDays(table.timezone, table.gaming_day_start)
    return {
        "format": REPORT_FORMAT,
        "journal": journal,
        "table": table.to_json(),
        "dealer": dealer,
        "gaming_days": played,
        "days": [_day(d, [p for p in chosen if p.day == d], calendar, relieved, table) for d in days],
        "read": read if read is not None else {"last_seq": 0, "checkpoint": None, "records_read": 0},
    }


def _day(day: str, parts: list[Part], calendar: GamingDays, relieved: dict[int, str], table: Table) -> dict[str, Any]:
    begins, ends = calendar.bounds(day)
    by_session: dict[int, list[Part]] = {}
    by_dealer: dict[str, list[Part]] = {}
    by_shoe: dict[int, list[Part]] = {}
    for part in parts:
        by_session.setdefault(part.session.number, []).append(part)
        by_dealer.setdefault(part.session.dealer, []).append(part)
        by_shoe.setdefault(part.shoe, []).append(part)
    totals = Figures.total([p.figures for p in parts])
    return {
        "gaming_day": day, "begins": begins, "ends": ends,
        "totals": totals.report(),
        "rated_play": [rated_play(rating) for rating in totals.ratings.values()],
        "cash_by_player": [{"player": who, "cash": amount, "flag": table.cash_flag(amount)}
                           for who, amount in sorted(totals.cash.items())],
        "sessions": [
            {"session": number, "dealer": group[0].session.dealer, "signed_in": group[0].session.began,
             "relieved": relieved.get(number, ""), "figures": _total(group)}
            for number, group in sorted(by_session.items())
        ],
        "dealers": [
            {"dealer": name, "sessions": len({p.session.number for p in group}), "figures": _total(group)}
            for name, group in sorted(by_dealer.items())
        ],
        "shoes": [{"shoe": shoe, "figures": _total(group)} for shoe, group in sorted(by_shoe.items())],
    }


def rated_play(rating: dict[str, Any]) -> dict[str, Any]:
    """A rating as a pit reads it: its figures, the average bet (stakes per hand, in whole minor
    units rounded down) and the hands per hour it actually played (one decimal; None under a
    minute)."""
    hands, played = rating["hands"], rating["played_us"]
    return {**rating, "average_bet": rating["stakes"] // hands if hands else 0,
            "hands_per_hour": round(hands * HOUR_US / played, 1) if played >= RATE_FROM_US else None}


def _total(parts: list[Part]) -> dict[str, Any]:
    return Figures.total([p.figures for p in parts]).report()
