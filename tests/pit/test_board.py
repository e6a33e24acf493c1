"""The pit board: what a tile shows, from the floor feed's messages alone.

The messages are a real station's (``station demo``'s journal, derived by the outbox's own
deriver: tests/pit/feeds.py), with their journal times set where each test needs them; the
few messages the feed does not carry yet (a dealer) or that no station sends (a foreign
version, a wrong table) are written out and say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.pit.board import PitBoard
from station.pit.hour import HourCount, hour_start

from .feeds import Step, record_feed

VIENNA = ZoneInfo("Europe/Vienna")
# 2026-03-10 14:00:00 in Vienna (CET, UTC+1) = 13:00 UTC.
HOUR = 1773147600.0
PREFIX = "dealing-station"


def iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def send(board: PitBoard, table: str, kind: str, payload: dict[str, Any], **changes: Any) -> str | None:
    body = {**payload, "table": table, **changes}
    return board.take(f"{PREFIX}/{table}/{kind}", json.dumps(body).encode())


def status(table: str, state: str = "online", reason: str = "", pit: str = "A", number: int = 1) -> dict[str, Any]:
    return {"v": 1, "kind": "status", "table": table, "journal_id": "0" * 16, "status": state, "reason": reason,
            "software": "0.2.0", "time": iso(HOUR), "pit": pit, "number": number}


def replay(board: PitBoard, steps: list[Step], table: str, times: list[float]) -> None:
    """The feed's records in order, record i at journal time ``times[i]``."""
    for step, at in zip(steps, times, strict=False):
        for kind, payload in step.messages:
            send(board, table, kind, payload, time=iso(at))
        send(board, table, "state", step.state, time=iso(at))


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_a_real_feed_gives_the_tile_its_state_last_result_and_rounds_this_hour(recorded_journal: Path) -> None:
    steps = record_feed(recorded_journal)
    rounds = [payload for step in steps for kind, payload in step.messages if kind == "round"]
    board = PitBoard(PREFIX, VIENNA, now=HOUR + 10)
    send(board, "BAC-01", "status", status("BAC-01", pit="A", number=3))
    replay(board, steps, "BAC-01", [HOUR + 1 + i for i in range(len(steps))])
    [tile] = board.snapshot(HOUR + 3000)["tables"]
    last = rounds[-1]
    assert tile["table"] == "BAC-01" and tile["pit"] == "A" and tile["number"] == 3 and tile["status"] == "online"
    assert tile["last"]["round_id"] == last["round_id"] and tile["last"]["outcome"] == last["outcome"]
    assert (tile["last"]["banker"], tile["last"]["player"]) == (last["totals"]["banker"], last["totals"]["player"])
    assert tile["state"] == steps[-1].state["state"] and tile["shoe"] == steps[-1].state["shoe"]
    # Every round of the journal was dealt this hour, from the journal's first: the count is whole.
    assert tile["hour_rounds"] == len(rounds) and tile["hour_since"] is None
    assert tile["alarms"] == [] and tile["dealer"] is None and tile["gaps"] == 0
    assert board.refused == {}


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_a_page_started_late_knows_the_last_result_from_the_retained_state(recorded_journal: Path) -> None:
    steps = record_feed(recorded_journal)
    board = PitBoard(PREFIX, VIENNA, now=HOUR + 10)
    state = next(s.state for s in reversed(steps) if s.state["last_result"] is not None)
    send(board, "BAC-02", "state", state, time=iso(HOUR + 5))
    [tile] = board.snapshot(HOUR + 10)["tables"]
    assert tile["last"]["round_id"] == state["last_result"]["round_id"]
    assert tile["last"]["banker"] == state["last_result"]["banker_total"]
    # No status heard yet: said so, in amber.
    assert tile["status"] == "unknown" and tile["alarms"][0]["code"] == "no_status"


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_rounds_this_hour_start_again_at_the_top_of_the_hour_and_count_missed_rounds(recorded_journal: Path) -> None:
    rounds = [p for step in record_feed(recorded_journal) for k, p in step.messages if k == "round"][:12]
    board = PitBoard(PREFIX, VIENNA, now=HOUR - 600)
    for i, payload in enumerate(rounds[:4]):  # the previous hour
        send(board, "BAC-01", "round", payload, time=iso(HOUR - 500 + i))
    assert board.snapshot(HOUR - 1)["tables"][0]["hour_rounds"] == 4
    assert board.tick(HOUR + 1) and not board.tick(HOUR + 2)
    assert board.snapshot(HOUR + 1)["tables"][0]["hour_rounds"] == 0
    send(board, "BAC-01", "round", rounds[4], time=iso(HOUR + 10))
    send(board, "BAC-01", "round", rounds[4], time=iso(HOUR + 10))  # a repeat: counted once
    send(board, "BAC-01", "round", rounds[7], time=iso(HOUR + 40))  # 5 and 6 missed: they were dealt
    tile = board.snapshot(HOUR + 60)["tables"][0]
    assert tile["hour_rounds"] == 4 and tile["hour_since"] is None and tile["gaps"] == 2
    assert tile["last"]["round_id"] == rounds[7]["round_id"]


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_a_table_first_heard_mid_hour_says_since_when_it_counts(recorded_journal: Path) -> None:
    rounds = [p for step in record_feed(recorded_journal) for k, p in step.messages if k == "round"]
    board = PitBoard(PREFIX, VIENNA, now=HOUR + 1000)
    send(board, "BAC-01", "round", rounds[20], time=iso(HOUR + 1380))  # 14:23:00 Vienna
    send(board, "BAC-01", "round", rounds[21], time=iso(HOUR + 1400))
    tile = board.snapshot(HOUR + 1500)["tables"][0]
    assert tile["hour_rounds"] == 2 and tile["hour_since"] == "14:23"


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 60), st.data())
def test_the_hour_count_is_exact_whatever_the_page_missed_or_heard_twice(total: int, data: st.DataObject) -> None:
    times = sorted(data.draw(st.lists(st.floats(HOUR - 3600, HOUR + 3599), min_size=total, max_size=total)))
    before = [i for i, t in enumerate(times) if t < HOUR]
    count = HourCount(hour_start(HOUR + 1, VIENNA))
    # What the page heard, in order: some rounds dropped, some twice, always the newest.
    heard = sorted({*(i for i in range(total) if data.draw(st.booleans(), label=f"heard {i}")), total - 1})
    for i in heard:
        for _ in range(data.draw(st.integers(1, 2), label=f"times {i}")):
            count.add("j1", i + 1, times[i])
    in_hour = total - len(before)
    heard_before = [i for i in heard if i in before]
    if before and heard_before and heard_before[-1] == before[-1]:
        # The table's last round before the hour was heard: the count is whole and exact.
        assert count.count == in_hour and count.since is None
    elif heard_before:
        # A gap across the top of the hour: its rounds count in the new hour (when they were
        # dealt cannot be known), never more than that.
        assert in_hour <= count.count <= in_hour + (before[-1] - heard_before[-1]) and count.since is None
    else:
        # Nothing heard before the hour: counted from the first round heard, and said so
        # unless it was the journal's first.
        first = heard[0]
        assert count.count == total - first and (count.since is None) == (first == 0)


def test_a_new_journal_mid_hour_keeps_the_old_journals_rounds() -> None:
    count = HourCount(HOUR)
    count.add("old", 40, HOUR - 5)
    for n in (41, 42, 43):
        count.add("old", n, HOUR + n)
    count.add("new", 1, HOUR + 100)
    count.add("new", 2, HOUR + 110)
    assert count.count == 5 and count.since is None


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_alarms_in_colour_worst_first_until_they_are_over(recorded_journal: Path) -> None:
    steps = record_feed(recorded_journal)
    state = dict(steps[-1].state)
    event = {"v": 1, "kind": "event", "journal_id": state["journal_id"], "seq": 900, "n": 500, "prev": 899,
             "time": iso(HOUR + 60), "hash": "0" * 64, "shoe": 1, "round_id": "1-40"}
    board = PitBoard(PREFIX, VIENNA, now=HOUR + 10)
    send(board, "BAC-01", "status", status("BAC-01"))
    send(board, "BAC-01", "state", state)
    # The event shapes are docs/floor.md's: an integrity alarm, an alert, a shoe fault, a pause.
    send(board, "BAC-01", "event", {**event, "type": "integrity_alert", "ident": 7, "code": "shoe_unshuffled",
                                    "severity": "alarm", "detail": "ordered", "alert_shoe": 1, "alert_round": "1-3",
                                    "stopped": True, "source": "monitor"})
    send(board, "BAC-01", "event", {**event, "n": 501, "type": "integrity_alert", "ident": 8,
                                    "code": "advantage_situation", "severity": "alert", "detail": "tie edge",
                                    "alert_shoe": 1, "alert_round": "1-40", "stopped": False, "source": "monitor"})
    send(board, "BAC-01", "event", {**event, "n": 502, "type": "device_fault", "device": "shoe",
                                    "reason": "link lost", "code": "link"})
    send(board, "BAC-01", "state", {**state, "state": "paused", "faulted": {"shoe": "link lost"},
                                    "paused_by": {"role": "supervisor", "who": "sam", "reason": "fill"}})
    alarms = board.snapshot(HOUR + 70)["tables"][0]["alarms"]
    assert [a["code"] for a in alarms] == ["integrity_shoe_unshuffled", "fault_shoe", "integrity_advantage_situation",
                                           "paused"]
    assert [a["level"] for a in alarms] == ["alarm", "alarm", "warning", "warning"]
    assert alarms[-1]["detail"] == "by sam"
    # Acknowledged, recovered, resumed: gone.
    send(board, "BAC-01", "event", {**event, "n": 503, "type": "alert_acknowledged", "ident": 7,
                                    "code": "shoe_unshuffled", "role": "supervisor", "who": "sam", "note": ""})
    send(board, "BAC-01", "event", {**event, "n": 504, "type": "device_recovered", "device": "shoe"})
    send(board, "BAC-01", "state", state)
    assert [a["code"] for a in board.snapshot(HOUR + 80)["tables"][0]["alarms"]] == ["integrity_advantage_situation"]


def test_offline_by_the_last_will_is_red_and_an_orderly_stop_is_grey() -> None:
    board = PitBoard(PREFIX, VIENNA, now=HOUR)
    send(board, "BAC-01", "status", status("BAC-01"))
    board.take(f"{PREFIX}/BAC-01/status", json.dumps(status("BAC-01", "offline", "connection lost")).encode(),
               received=HOUR + 30)
    [alarm] = board.snapshot(HOUR + 31)["tables"][0]["alarms"]
    assert alarm["level"] == "alarm" and alarm["label"] == "LINK LOST" and alarm["since"] == iso(HOUR + 30)
    send(board, "BAC-01", "status", status("BAC-01", "offline", "stopped"))
    [alarm] = board.snapshot(HOUR + 32)["tables"][0]["alarms"]
    assert alarm["level"] == "closed" and alarm["label"] == "SHUT DOWN"
    # A retained last will, heard when the page starts: offline, since an unknown moment.
    late = PitBoard(PREFIX, VIENNA, now=HOUR)
    late.take(f"{PREFIX}/BAC-01/status", json.dumps(status("BAC-01", "offline", "connection lost")).encode())
    assert late.snapshot(HOUR)["tables"][0]["alarms"][0]["since"] == ""


def test_messages_that_are_not_the_feeds_are_refused_and_counted() -> None:
    board = PitBoard(PREFIX, VIENNA, now=HOUR)
    assert board.take(f"{PREFIX}/BAC-01/status", b"\xff not json") is None
    assert board.take(f"{PREFIX}/BAC-01/status", b"[1, 2]") is None
    # Written out: no station sends these.
    assert send(board, "BAC-01", "status", {**status("BAC-01"), "v": 2}) is None
    assert board.take(f"{PREFIX}/BAC-01/status", json.dumps(status("BAC-99")).encode()) is None
    assert board.take("elsewhere/BAC-01/status", json.dumps(status("BAC-01")).encode()) is None
    assert board.tables == {}
    assert board.refused == {"not JSON": 1, "not a JSON object": 1, "payload version 2": 1,
                             "kind or table differs from the topic": 1}


def test_tables_are_sorted_by_pit_then_number_and_a_page_can_keep_to_its_pits() -> None:
    board = PitBoard(PREFIX, VIENNA, now=HOUR)
    for table, pit, number in (("BAC-07", "B", 2), ("WAR-01", "", 0), ("BAC-03", "A", 10), ("BAC-01", "A", 2),
                               ("BAC-09", "b", 1), ("BAC-02", "A", 0)):
        send(board, table, "status", status(table, pit=pit, number=number))
    order = [t["table"] for t in board.snapshot(HOUR)["tables"]]
    assert order == ["BAC-01", "BAC-03", "BAC-02", "BAC-07", "BAC-09", "WAR-01"]
    assert board.snapshot(HOUR)["pits"] == ["A", "B", "b"]
    # Pits are counted as people count them: Pit 2 before Pit 10.
    numbered = PitBoard(PREFIX, VIENNA, now=HOUR)
    for table, pit in (("BAC-10", "Pit 10"), ("BAC-02", "Pit 2"), ("BAC-01", "Pit 1")):
        send(numbered, table, "status", status(table, pit=pit))
    assert numbered.snapshot(HOUR)["pits"] == ["Pit 1", "Pit 2", "Pit 10"]
    assert [t["table"] for t in numbered.snapshot(HOUR)["tables"]] == ["BAC-01", "BAC-02", "BAC-10"]
    only = PitBoard(PREFIX, VIENNA, pits=["A"], now=HOUR)
    for table, pit in (("BAC-01", "A"), ("BAC-07", "B")):
        send(only, table, "status", status(table, pit=pit))
    assert [t["table"] for t in only.snapshot(HOUR)["tables"]] == ["BAC-01"]


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_the_dealer_is_shown_once_the_feed_carries_one(recorded_journal: Path) -> None:
    state = record_feed(recorded_journal)[-1].state
    board = PitBoard(PREFIX, VIENNA, now=HOUR)
    send(board, "BAC-01", "state", state)
    assert board.snapshot(HOUR)["tables"][0]["dealer"] is None
    # Not on the feed yet (dealer sessions come later): a state of the shape they are expected in.
    send(board, "BAC-01", "state", {**state, "seq": state["seq"] + 1, "dealer": {"name": "Ana", "since": iso(HOUR)}})
    assert board.snapshot(HOUR)["tables"][0]["dealer"] == "Ana"


@pytest.mark.e2e  # its journal comes from station demo (tests/conftest.py)
def test_a_round_stopped_by_an_integrity_alarm_shows_the_alarm_once(recorded_journal: Path) -> None:
    state = dict(record_feed(recorded_journal)[-1].state)
    board = PitBoard(PREFIX, VIENNA, now=HOUR)
    send(board, "BAC-04", "status", status("BAC-04"))
    send(board, "BAC-04", "event", {"v": 1, "kind": "event", "journal_id": state["journal_id"], "seq": 30, "n": 9,
                                    "prev": 29, "time": iso(HOUR + 5), "hash": "0" * 64, "shoe": 1, "round_id": "1-3",
                                    "type": "integrity_alert", "ident": 1, "code": "shoe_unshuffled",
                                    "severity": "alarm", "detail": "ordered", "alert_shoe": 1, "alert_round": "1-3",
                                    "stopped": True, "source": "monitor"})
    stopped = {"ident": 2, "reason": "integrity_alarm", "detail": "alert 1: ordered", "decisions": ["resume", "void"],
               "round_id": "1-3"}
    send(board, "BAC-04", "state", {**state, "state": "irregularity", "irregularity": stopped})
    [alarm] = board.snapshot(HOUR + 10)["tables"][0]["alarms"]
    assert alarm["code"] == "integrity_shoe_unshuffled" and alarm["label"] == "SHOE UNSHUFFLED"
    # Another irregularity is named on its own.
    send(board, "BAC-04", "state", {**state, "state": "irregularity", "irregularity": {**stopped,
                                                                                       "reason": "impossible_card"}})
    labels = [a["label"] for a in board.snapshot(HOUR + 10)["tables"][0]["alarms"]]
    assert labels == ["IMPOSSIBLE CARD", "SHOE UNSHUFFLED"]
