"""The floor feed end to end: a real mosquitto, the real ``station demo`` / ``station run``.

What a subscriber receives is compared with what the journal gives when the feed is derived
from it offline (``expected_feed``): the same round and event messages, in journal order,
each exactly once (or, after a crash, repeated only within the window and recognisable by
its numbers), and every message valid against the JSON Schemas in the package.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from station.journal import JournalReader

from ..waiting import tail, wait_for_line, wait_until
from .helpers import (
    Broker,
    Subscriber,
    check_schemas,
    expected_feed,
    first_occurrences,
    floor_config,
    run_station,
    sequenced,
    station,
    station_env,
)

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


#: Records that change nothing of the table's picture: the run's stop and the checkpoints.
QUIET_KINDS = ("StationStopped", "Checkpoint", "IntegrityCheckpoint", "MetersCheckpoint")


def _assert_in_order_without_gaps(messages: list[dict[str, Any]]) -> None:
    seqs = [m["seq"] for m in messages]
    assert seqs == sorted(seqs), "messages arrived out of journal order"
    for kind in ("round", "event"):
        numbers = [m["n"] for m in messages if m["kind"] == kind]
        assert numbers == list(range(1, len(numbers) + 1)), f"{kind} messages have a gap: {numbers[:50]}"
        prevs = [m["prev"] for m in messages if m["kind"] == kind]
        assert prevs == [0, *[m["seq"] for m in messages if m["kind"] == kind][:-1]]


def test_a_whole_demo_shoe_reaches_the_subscriber_exactly_once_in_journal_order(tmp_path: Path,
                                                                                broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = floor_config(tmp_path / "station.toml", broker.url)
    journal = tmp_path / "journal.sqlite3"
    demo = station("demo", "--shoes", "1", "--fast", "--floor", "-c", str(config), "--journal", str(journal),
                   env=station_env(tmp_path))
    assert demo.returncode == 0, demo.stderr[-3000:]
    expected = expected_feed(journal, "BAC-01-demo")  # a demo publishes only when asked, as a demo
    subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "every round and event")
    subscriber.wait_for(lambda s: any(m["status"] == "offline" for m in s.kind("status")), 10, "offline status")
    subscriber.close()
    received = sequenced(subscriber)
    assert received == expected  # exactly once each, in journal order, nothing else
    _assert_in_order_without_gaps(received)
    rounds = [m for m in received if m["kind"] == "round"]
    assert len(rounds) > 50 and all(m["status"] == "settled" for m in rounds)
    events = {m["type"] for m in received if m["kind"] == "event"}
    assert {"configuration", "shoe_start", "shoe_end"} <= events
    first = rounds[0]
    assert first["bets"] and all(isinstance(b["stake"], int) and isinstance(b["net"], int) for b in first["bets"])
    assert first["house_net"] == -sum(b["net"] for b in first["bets"])
    check_schemas(subscriber.messages)
    statuses = [m["status"] for m in subscriber.kind("status")]
    assert statuses[0] == "online" and statuses[-1] == "offline"
    anchors = subscriber.kind("anchor")
    assert {"start", "shoe_end", "stop"} <= {a["reason"] for a in anchors}
    with JournalReader(journal) as reader:
        last = reader.last()
        assert last is not None
        assert anchors[-1]["seq"] == last.seq and anchors[-1]["head"] == last.hash
        for anchor in anchors:
            record = reader.get(anchor["seq"])
            assert record is not None and record.hash == anchor["head"]
    state = subscriber.kind("state")[-1]
    # The retained state is the table as of its last input; the records after it (the shoe's
    # checkpoints, the run's stop) change nothing of the picture, and a picture is sent again
    # only when it changes, so the state names one of them or that input. The last change
    # before the stop is sent at the stop, even within the state's interval.
    with JournalReader(journal) as reader:
        table_last = max(r.seq for r in reader.records() if r.kind not in QUIET_KINDS)
    assert last.kind == "StationStopped" and table_last <= state["seq"] <= last.seq and state["shoe"] == 1


def _journal_count(journal: Path) -> int:
    with JournalReader(journal) as reader:
        return reader.count()


def test_the_table_deals_on_through_a_broker_outage_and_the_backlog_follows_in_order(tmp_path: Path,
                                                                                    broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = floor_config(tmp_path / "station.toml", broker.url, pace_ms=5)
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    try:
        subscriber.wait_for(lambda s: len(s.kind("round")) >= 5, 60, "the first rounds")
        broker.stop()
        during = _journal_count(journal)
        # The outage lasts until the station has seen the broker go and dealt three rounds
        # since: the table deals on while the broker is away.
        wait_for_line(log, "floor_disconnected", 60)

        def dealt_on() -> int:
            assert process.poll() is None, tail(log)
            after = _journal_count(journal)
            rounds_dealt = sum(1 for m in expected_feed(journal, "BAC-01") if m["kind"] == "round"
                               and during < m["seq"] <= after)
            return after if rounds_dealt >= 3 else 0

        after = wait_until(dealt_on, 60, "three rounds dealt while the broker was away", poll=0.5,
                           detail=lambda: tail(log))
        broker.start()
        subscriber.wait_for(lambda s: s.connected.is_set(), 20, "the subscriber to reconnect")
        # The backlog of the outage arrives: the round messages reach past the outage.
        subscriber.wait_for(lambda s: max((m["seq"] for m in s.kind("round")), default=0) > after, 60,
                            "the backlog after the outage")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    expected = expected_feed(journal, "BAC-01")
    subscriber.wait_for(lambda s: len(first_occurrences(sequenced(s))[0]) >= len(expected), 30, "the drain at stop")
    subscriber.close()
    firsts, repeats = first_occurrences(sequenced(subscriber))
    assert firsts == expected, "a message is missing, or more came than the journal gives"
    _assert_in_order_without_gaps(firsts)
    assert len(repeats) <= 500  # only what was in flight when the broker went (the default window)
    assert "floor_disconnected" in log.read_text() and "floor_connected" in log.read_text()
    check_schemas(subscriber.messages)


def test_a_station_killed_mid_publish_repeats_only_what_was_in_flight(tmp_path: Path, broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    window = 40
    config = floor_config(tmp_path / "station.toml", broker.url, extra=f"window = {window}")
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)
    process = run_station(config, journal, env, log)
    try:
        subscriber.wait_for(lambda s: len(s.kind("round")) >= 40, 60, "rounds flowing")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    subscriber.wait_for(lambda s: any(m["status"] == "offline" and m["reason"] == "connection lost"
                                      for m in s.kind("status")), 20, "the last will")
    before_restart = len(sequenced(subscriber))
    process = run_station(config, journal, env, log)
    try:
        subscriber.wait_for(lambda s: len(sequenced(s)) > before_restart + 100, 60, "the feed after the restart")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, log.read_text()[-3000:]
    expected = expected_feed(journal, "BAC-01")
    subscriber.wait_for(lambda s: len(first_occurrences(sequenced(s))[0]) >= len(expected), 30, "the drain at stop")
    subscriber.close()
    received = sequenced(subscriber)
    firsts, repeats = first_occurrences(received)
    assert firsts == expected
    _assert_in_order_without_gaps(firsts)
    # Repeats: only messages the station had handed over beyond its stored cursor when it was
    # killed (at most the window), each identical to its first showing (checked above), all
    # at the restart, and every one of them recognisable by its (journal_id, kind, n).
    assert len(repeats) <= window, f"{len(repeats)} repeats, more than the window of {window}"
    seen: set[tuple[str, int]] = set()
    repeated_at = []
    for index, message in enumerate(received):
        key = (message["kind"], message["n"])
        if key in seen:
            repeated_at.append(index)
        seen.add(key)
    assert all(index >= before_restart for index in repeated_at)
    check_schemas(subscriber.messages)
