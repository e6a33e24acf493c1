"""The outbox's promises, step by step, with a broker connection the test controls: the cursor
moves only past what the broker acknowledged (in order, whatever order the acknowledgements
come in), at most ``window`` messages are ever beyond the stored cursor, nothing new is handed
over while what an earlier connection sent waits for its acknowledgement, and in the end
exactly the journal's feed was published. (The real broker is in the end-to-end tests.)"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import paho.mqtt.client as mqtt
import pytest

from station.core.options import CoreOptions
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.floor.cursor import cursor_path, load_cursor
from station.floor.derive import FeedDeriver, derive_all
from station.floor.outbox import FloorPublisher
from station.floor.settings import FloorSection
from station.journal import Journal, JournalReader
from station.journal.anchors import journal_id

from ..waiting import stays_false, wait_until

OPTIONS = CoreOptions(decks=8)
WINDOW = 20


@dataclass
class _Info:
    mid: int

    def wait_for_publish(self, timeout: float | None = None) -> None:
        """The test acknowledges by hand."""


@dataclass
class FakeClient:
    """Just enough of paho's client: publishes are kept; the test connects and acknowledges."""

    published: list[tuple[int, str, bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Told of every publish (on ``lock``): the broker's side waits on it.
    arrived: threading.Condition = field(init=False)
    on_connect: Callable[..., None] | None = None
    on_disconnect: Callable[..., None] | None = None
    on_publish: Callable[..., None] | None = None
    on_connect_fail: Callable[..., None] | None = None
    _mid: int = 0

    def __post_init__(self) -> None:
        self.arrived = threading.Condition(self.lock)

    def max_inflight_messages_set(self, _n: int) -> None: ...
    def max_queued_messages_set(self, _n: int) -> None: ...
    def connect_async(self, *_a: Any, **_k: Any) -> None: ...
    def loop_start(self) -> None: ...
    def loop_stop(self) -> None: ...
    def disconnect(self) -> None: ...

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> _Info:
        with self.lock:
            self._mid += 1
            self.published.append((self._mid, topic, payload))
            self.arrived.notify_all()
            return _Info(self._mid)

    def connect(self) -> None:
        assert self.on_connect is not None
        self.on_connect(self, None, None, _Reason(False), None)

    def drop(self) -> None:
        assert self.on_disconnect is not None
        self.on_disconnect(self, None, None, "connection lost", None)

    def ack(self, mid: int) -> None:
        assert self.on_publish is not None
        self.on_publish(self, None, mid, None, None)

    def sequenced(self) -> list[tuple[int, bytes]]:
        with self.lock:
            sequenced = ("/round", "/event", "/significant")
            return [(mid, payload) for mid, topic, payload in self.published if topic.endswith(sequenced)]


@dataclass
class _Reason:
    is_failure: bool


def _until(condition: Callable[[], bool], what: str) -> None:
    wait_until(condition, 30, what, poll=0.01)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as writer:
        for event in generate(seed=7, rounds=40):
            writer.append(event.kind, event_to_dict(event))
    return path


def test_the_cursor_follows_the_acknowledgements_and_the_window_holds(journal: Path) -> None:
    client = FakeClient()
    settings = FloorSection(enabled=True, broker="mqtt://broker.test", table="BAC-01", window=WINDOW)
    publisher = FloorPublisher(settings, table="BAC-01", journal=journal, options=OPTIONS,
                               client_factory=lambda *_a, **_k: cast(mqtt.Client, client))
    with JournalReader(journal) as reader:
        records = list(reader.records())
    ident = journal_id(records[0].hash)
    expected = [m.payload for m in derive_all(records, OPTIONS, table="BAC-01", journal_id=ident)]
    assert len(expected) > 3 * WINDOW
    stored = cursor_path(journal)
    publisher.start()
    try:
        stays_false(client.sequenced, 0.2, "a message handed over before the broker had the connection")
        client.connect()
        # The window fills to within one record's messages (a record's messages go together).
        per_record = max(Counter(m["seq"] for m in expected).values())
        _until(lambda: len(client.sequenced()) > WINDOW - per_record, "a window's worth")
        stays_false(lambda: len(client.sequenced()) > WINDOW, 0.3, "more than the window handed over")
        first = client.sequenced()  # a record's messages go together, or wait
        first_seq, second_seq = (json.loads(payload)["seq"] for _, payload in first[:2])
        # Nothing acknowledged: the cursor stays before the first message's record (the records
        # before it gave no message, so they are done).
        assert load_cursor(stored, ident).seq == first_seq - 1

        # The second acknowledged before the first: the cursor waits for the first.
        client.ack(first[1][0])
        stays_false(lambda: load_cursor(stored, ident).seq != first_seq - 1, 0.3,
                    "the cursor moved before the first message was acknowledged")
        client.ack(first[0][0])
        _until(lambda: load_cursor(stored, ident).seq >= second_seq, "the cursor to move past both")

        # The connection drops with messages unacknowledged: after the next connection nothing new
        # is handed over until those (which paho sends again) are acknowledged.
        # The two acknowledged made room for more: watched as the window holds, so that they
        # have been handed over before the connection drops.
        stays_false(lambda: len(client.sequenced()) - _stored_messages(stored, ident) > WINDOW, 0.3,
                    "more than the window beyond the stored cursor")
        handed = client.sequenced()
        client.drop()
        client.connect()
        stays_false(lambda: len(client.sequenced()) != len(handed), 0.3,
                    "something new handed over before the last connection's messages were acknowledged")
        for mid, _ in handed[2:]:
            client.ack(mid)
        _until(lambda: len(client.sequenced()) > len(handed), "the feed to go on")

        # Acknowledge everything as it comes: the whole feed, once, in order; the cursor at the end.
        acked = {mid for mid, _ in handed}

        def all_acknowledged() -> bool:
            fresh = [mid for mid, _ in client.sequenced() if mid not in acked]
            for mid in fresh:
                client.ack(mid)
                acked.add(mid)
            if len(acked) == len(expected) and load_cursor(stored, ident).seq == records[-1].seq:
                return True
            assert len(client.sequenced()) - _stored_messages(stored, ident) <= WINDOW
            return False

        wait_until(all_acknowledged, 120, "the whole feed acknowledged and the cursor at its end")
    finally:
        publisher.stop(drain_s=0)
    assert [json.loads(payload) for _, payload in client.sequenced()] == expected


def _stored_messages(path: Path, ident: str) -> int:
    position = load_cursor(path, ident, set_aside=False)
    return sum(counter.n for counter in position.counters.values())


def _acking(client: FakeClient, stop: threading.Event) -> threading.Thread:
    """The broker's side: every message handed over is acknowledged at once."""

    def run() -> None:
        acked: set[int] = set()
        while not stop.is_set():
            with client.arrived:
                client.arrived.wait_for(lambda: len(client.published) > len(acked), timeout=0.05)
                fresh = [mid for mid, _, _ in client.published if mid not in acked]
            for mid in fresh:
                client.ack(mid)
                acked.add(mid)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_last_change_before_a_stop_is_the_retained_state(tmp_path: Path) -> None:
    """The retained state is sent at most every quarter second while the table changes; the
    changes of the last moments before a stop (the next shoe shuffled, say) still reach it."""
    events = list(generate(seed=7, rounds=40))
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as writer:
        for event in events[:-3]:
            writer.append(event.kind, event_to_dict(event))
    tail = [(event.kind, event_to_dict(event)) for event in events[-3:]]
    client, acks_stop = FakeClient(), threading.Event()
    settings = FloorSection(enabled=True, broker="mqtt://broker.test", table="BAC-01", window=WINDOW)
    publisher = FloorPublisher(settings, table="BAC-01", journal=path, options=OPTIONS,
                               client_factory=lambda *_a, **_k: cast(mqtt.Client, client))

    def states() -> list[dict[str, Any]]:
        with client.lock:
            return [json.loads(payload) for _, topic, payload in client.published if topic.endswith("/state")]

    before_tail = len(events) - 3
    publisher.start()
    acker = _acking(client, acks_stop)
    try:
        _until(lambda: client.on_connect is not None, "the outbox's connection")
        client.connect()
        _until(lambda: any(s["seq"] == before_tail for s in states()), "the state of the journal so far")
        with Journal(path) as writer:  # the tail, at once, and then the stop
            for kind, body in tail:
                publisher.notify(writer.append(kind, body).seq)
        publisher.stop(drain_s=10)
    finally:
        acks_stop.set()
        acker.join(5)
    with JournalReader(path) as reader:
        records = list(reader.records())
        ident = journal_id(records[0].hash)
        whole = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident)
        for record in records:
            whole.skip(record)
    last = states()[-1]
    expected = whole.state()
    assert {**last, "time": ""} == {**expected, "time": ""}
    assert any(s["seq"] == before_tail and s["state"] != expected["state"] for s in states()), \
        "the tail changes the table's state (else this test proves nothing)"
