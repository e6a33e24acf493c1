"""Ratings and cash in the meters' fold (docs/ratings.md): a rating counts in the part of the
gaming day it ended in, with its average bet and the hands per hour it played (none under a
minute); cash adds up by the player's card, or by box and name for a player not rated."""

from __future__ import annotations

from station.core import outputs as out
from station.journal.records import JournalRecord
from station.meters.fold import MetersFold
from station.meters.report import Table, build_report

TIME = "2026-12-06T20:00:00.000000Z"


def record(seq: int, time: str = TIME) -> JournalRecord:
    return JournalRecord(seq, time, "RatingClosed", {}, "0" * 64, "0" * 64)


def ended(rating: int, hands: int, stakes: int, played_us: int) -> out.RatingEnded:
    return out.RatingEnded(rating, "1", "ann", "C-1", TIME, TIME, played_us, hands, hands, stakes, 17, "17/1")


def test_ratings_and_cash_in_the_day_s_report() -> None:
    fold = MetersFold("UTC", "06:00")
    fold.take(record(1), None, [ended(1, 30, 60_000, 30 * 60_000_000), ended(2, 3, 3000, 59_000_000)])
    fold.take(record(2), None, [out.CashBuyIn("1", "ann", "C-1", 200_000), out.CashBuyIn("1", "ann", "C-1", 150_000),
                                out.CashBuyIn("2", "bo", "", 1_200_000)])
    report = build_report(fold.every_part(), Table("baccarat", "EUR", 2, "UTC", "06:00"))
    [day] = report["days"]
    half_hour, short = day["rated_play"]
    assert (half_hour["average_bet"], half_hour["hands_per_hour"]) == (2000, 60.0)
    assert (short["average_bet"], short["hands_per_hour"]) == (1000, None)  # under a minute: no rate
    assert day["cash_by_player"] == [{"player": "C-1", "cash": 350_000, "flag": "log"},
                                     {"player": "box 2 bo", "cash": 1_200_000, "flag": "report"}]
    exactly = ended(3, 1, 500, 60_000_000)  # a minute exactly: a rate
    fold.take(record(3), None, [exactly])
    rated = build_report(fold.every_part(), Table("baccarat", "EUR", 2, "UTC", "06:00"))["days"][0]["rated_play"]
    assert rated[-1]["hands_per_hour"] == 60.0
