"""``station ctl status`` for a person: state, expectation, shoe and round, devices, what is
open, and times in the table's zone (read from the journal the station writes)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from station.cli.status_summary import summary, table_zone
from station.config.options import CONFIGURATION_RECORD, new_journal_record
from station.journal import Journal
from station.service.config import StationConfig

VIENNA = ZoneInfo("Europe/Vienna")
NOW = datetime(2026, 12, 1, 20, 45, 12, tzinfo=UTC)

STATUS = {
    "table": "Mini Baccarat 1", "state": "irregularity", "expecting": "waiting for supervisor: a card out of turn",
    "shoe": 3, "round": "3-12", "dealer": "dana", "devices": {"shoe": "connected", "display": "not connected"},
    "faulted": {"display": "link lost"},
    "irregularity": {"reason": "unexpected_card", "detail": "KH read while betting", "decisions": ["void", "burn"]},
    "integrity": {"alerts_open": 1, "alerts": [{"ident": 7, "code": "repeat_shoe", "severity": "alarm",
                                                "detail": "shoe 3 repeats shoe 1", "shoe": 3, "round": None}]},
    "journal": "/var/lib/dealing-station/journal.sqlite3", "journal_writable": False,
    "journal_error": "database or disk is full", "disk": {"free_mb": 0, "low": True},
    "inputs": {"failed_to_apply": 0, "not_journalable": 0},
    "anchor": {"seq": 120, "time": "2026-12-01T20:40:00.000000Z", "head": "ab", "journal_id": "cd",
               "reason": "interval"},
    "floor": None,
}


def test_the_summary_says_where_the_table_is_and_everything_open_in_local_time() -> None:
    text = summary(STATUS, VIENNA, NOW)
    lines = text.splitlines()
    assert lines[0] == "Mini Baccarat 1: irregularity (as of 2026-12-01 21:45:12 CET)"
    assert lines[1] == "  expects:  waiting for supervisor: a card out of turn"
    assert lines[2] == "  shoe 3, round 3-12"
    assert lines[3] == "  dealer:   dana"
    assert lines[4] == "  devices:  display NOT CONNECTED (fault: link lost), shoe connected"
    assert "IRREGULARITY: unexpected_card: KH read while betting; decide: void, burn" in text
    assert "ALARMS:   1 open (#7 alarm repeat_shoe: shoe 3 repeats shoe 1)" in text
    assert "JOURNAL NOT WRITABLE: database or disk is full" in text and "DISK LOW: 0 MB free" in text
    assert lines[-1].endswith("(anchored at seq 120, 2026-12-01 21:40:00 CET)")
    assert len(lines) <= 11


def test_a_pause_says_who_and_why_and_no_dealer_says_so() -> None:
    paused = {**STATUS, "state": "paused", "dealer": None, "irregularity": None,
              "paused_by": {"role": "supervisor", "who": "sam", "reason": "fill the float"}}
    text = summary(paused, VIENNA, NOW)
    assert "  dealer:   nobody signed in" in text.splitlines()
    assert "  PAUSED by supervisor sam: fill the float" in text.splitlines()


def test_a_quiet_table_is_four_lines_and_a_journal() -> None:
    quiet = {**STATUS, "irregularity": None, "integrity": {"alerts_open": 0, "alerts": []}, "faulted": {},
             "devices": {"shoe": "connected"}, "journal_writable": True, "disk": {"free_mb": 9000, "low": False},
             "state": "betting", "expecting": "place your bets"}
    assert len(summary(quiet, VIENNA, NOW).splitlines()) == 6


def test_the_zone_is_the_one_the_journal_was_written_under(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    config = StationConfig.model_validate({"table": {"timezone": "America/Los_Angeles"}})
    with Journal(journal) as writer:
        writer.append(CONFIGURATION_RECORD, new_journal_record(config))
    assert table_zone(str(journal)) == ZoneInfo("America/Los_Angeles")
    text = summary({**STATUS, "journal": str(journal)}, now=NOW)
    assert "(as of 2026-12-01 12:45:12 PST)" in text


def test_a_journal_that_cannot_be_read_gives_utc_said_as_utc(tmp_path: Path) -> None:
    assert table_zone(str(tmp_path / "absent.sqlite3")) == ZoneInfo("UTC")
    assert "(as of 2026-12-01 20:45:12 UTC)" in summary({**STATUS, "journal": str(tmp_path / "x")}, now=NOW)


def test_a_chip_table_says_its_chips_each_payment_and_a_wrong_one_holding_it() -> None:
    paying = {**STATUS, "irregularity": None, "state": "paying", "limits": {"min_bet": 1000, "max_bet": 50000},
              "chips": {"places": {
                  "spot:1:banker": {"words": "Box 1 \u00b7 Banker", "amount": 2000, "chips": [{"uid": "E0"}]},
                  "spot:1:player": {"words": "Box 1 \u00b7 Player", "amount": 0, "chips": []},
                  "payout:1": {"words": "Box 1 payout zone", "amount": 1000, "chips": [{"uid": "E1"}]}},
                  "locked": True, "payment": [{"text": "Box 1 paid 10.00, owed 19.00: under by 9.00"}],
                  "hold": "3-12"}}
    lines = summary(paying, VIENNA, NOW).splitlines()
    assert "  chips:    Box 1 \u00b7 Banker 20.00, Box 1 payout zone 10.00 (locked at no more bets)" in lines
    assert "  payment:  Box 1 paid 10.00, owed 19.00: under by 9.00" in lines
    assert ("  WRONG PAYMENT of round 3-12 holds the table: put it right in the payout zone, or a supervisor "
            "accepts it (ctl send accept-payment)") in lines
    empty = {**paying, "chips": {"places": {}, "locked": False, "payment": [], "hold": ""}}
    assert "  chips:    none on the layout" in summary(empty, VIENNA, NOW).splitlines()


def test_the_tray_says_which_of_its_counts_the_tray_antenna_made() -> None:
    """docs/tray.md: an opener or a closer the tray antenna counted is said so beside the totals."""
    entries: list[dict[str, Any]] = [{"entry": 4, "kind": "opener", "counted_by": "reader"},
                                     {"entry": 5, "kind": "closer", "counted_by": "hand"}]
    tray = {"ledger": 2, "open": False, "opener": 2500, "fill": 0, "credit": 0, "closer": 3000, "drop": 0,
            "drop_counted": False, "entries": entries}
    lines = summary({**STATUS, "limits": {"min_bet": 1000, "max_bet": 50000}, "tray": tray}, VIENNA, NOW).splitlines()
    assert ("  tray:     opening 2 closed: opener 25.00, fills 0.00, credits 0.00, closer 30.00, drop not counted; "
            "opener counted by the tray antenna") in lines
    entries[1]["counted_by"] = "reader"
    lines = summary({**STATUS, "limits": {"min_bet": 1000, "max_bet": 50000}, "tray": tray}, VIENNA, NOW).splitlines()
    assert any(line.endswith("; opener and closer counted by the tray antenna") for line in lines)
