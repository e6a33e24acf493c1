"""The outbox against a real mosquitto (issue 40, the floor guard): every round reaches the
floor exactly once across a restart of the outbox, a cursor never ahead of what the broker
acknowledged, a journal restored from an older copy published again from its first record
(with the same numbers), and a broker that goes away and comes back missing nothing, with
more handed over than paho keeps in flight at once."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from station.core.options import CoreOptions
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.floor.cursor import cursor_path, load_cursor
from station.floor.outbox import FloorPublisher
from station.floor.settings import FloorSection
from station.journal import Journal

from ..waiting import wait_until
from .helpers import Broker, Subscriber, expected_feed, first_occurrences, sequenced

pytestmark = pytest.mark.e2e

OPTIONS = CoreOptions(decks=8)


def _append(journal: Path, events: list[Any]) -> int:
    with Journal(journal) as writer:
        last = 0
        for event in events:
            last = writer.append(event.kind, event_to_dict(event)).seq
    return last


def _publisher(journal: Path, broker: Broker, **settings: Any) -> FloorPublisher:
    section = FloorSection(enabled=True, broker=broker.url, table="BAC-01", **settings)
    return FloorPublisher(section, table="BAC-01", journal=journal, options=OPTIONS,
                          devices=("shoe", "display", "pedals")).start()


def _until_published(publisher: FloorPublisher, last: int) -> None:
    wait_until(lambda: publisher.cursor == last, 60, f"the broker to acknowledge up to record {last}")


def test_every_round_once_across_a_restart_and_the_cursor_never_ahead(tmp_path: Path, broker: Broker) -> None:
    events = list(generate(seed=7, rounds=60))
    journal = tmp_path / "journal.sqlite3"
    subscriber = Subscriber(broker.port, "dealing-station/#")
    try:
        first_end = _append(journal, events[:len(events) // 2])
        first = _publisher(journal, broker)
        _until_published(first, first_end)
        first.stop()
        received = len(sequenced(subscriber))
        # The cursor names a record whose every message the broker has: never one further.
        stored = load_cursor(cursor_path(journal), first.journal_id or "")
        assert stored.seq == first_end
        ident = first.journal_id or ""
        subscriber.wait_for(lambda s: len(sequenced(s)) == received and
                            all(m["seq"] <= stored.seq for m in sequenced(s)), 30, "what the first outbox sent")

        last = _append(journal, events[len(events) // 2:])
        second = _publisher(journal, broker)  # a new outbox on the same journal: from the cursor
        _until_published(second, last)
        second.stop()
        expected = expected_feed(journal, "BAC-01")
        subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "the whole feed")
    finally:
        subscriber.close()
    got = sequenced(subscriber)
    firsts, repeats = first_occurrences(got)
    assert firsts == expected and not repeats, "a message lost, invented or sent twice across the restart"
    assert [m["n"] for m in got if m["kind"] == "round"] == list(range(1, 61))
    assert load_cursor(cursor_path(journal), ident).seq == last


def test_a_journal_restored_from_an_older_copy_is_published_again_from_its_first_record(
        tmp_path: Path, broker: Broker) -> None:
    """Its cursor is ahead of it (the same journal, by its first record, but shorter): the
    feed starts over, every message with the numbers it had; consumers drop what they hold."""
    events = list(generate(seed=7, rounds=30))
    journal = tmp_path / "journal.sqlite3"
    _append(journal, events[:len(events) // 2])
    older = tmp_path / "older.sqlite3"
    shutil.copyfile(journal, older)
    last = _append(journal, events[len(events) // 2:])
    first = _publisher(journal, broker)
    _until_published(first, last)
    first.stop()
    journal.unlink()
    shutil.copyfile(older, journal)  # the cursor file stays: it is ahead of the journal now
    expected = expected_feed(journal, "BAC-01")
    subscriber = Subscriber(broker.port, "dealing-station/#")
    try:
        second = _publisher(journal, broker)
        subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 60, "the restored journal's feed")
        second.stop()
    finally:
        subscriber.close()
    firsts, _ = first_occurrences(sequenced(subscriber))
    assert firsts == expected


def test_a_broker_that_comes_back_misses_nothing_with_more_handed_over_than_in_flight(
        tmp_path: Path, broker: Broker) -> None:
    """A window (300) larger than what paho keeps in flight (100): the rest wait in paho's
    queue, which must take them all; the broker goes away with messages unacknowledged and
    comes back; the feed goes on where the broker's acknowledgements stopped."""
    journal = tmp_path / "journal.sqlite3"
    last = _append(journal, list(generate(seed=3, rounds=150)))
    expected = expected_feed(journal, "BAC-01")
    assert len(expected) > 300
    subscriber = Subscriber(broker.port, "dealing-station/#")
    publisher = _publisher(journal, broker, window=300)
    try:
        subscriber.wait_for(lambda s: len(sequenced(s)) >= 50, 60, "the first messages")
        broker.stop()
        wait_until(lambda: not publisher.connected, 30, "the outbox to see the broker gone")
        assert publisher.cursor < last and publisher.status()["backlog_records"] > 0
        broker.start()
        _until_published(publisher, last)
        subscriber.wait_for(lambda s: len(first_occurrences(sequenced(s))[0]) >= len(expected), 60,
                            "the whole feed after the broker came back")
        assert publisher.status()["connections"] >= 2
    finally:
        publisher.stop()
        subscriber.close()
    firsts, _ = first_occurrences(sequenced(subscriber))
    assert firsts == expected
