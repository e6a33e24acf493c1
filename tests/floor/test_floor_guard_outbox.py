"""The outbox's promises that a broker connection the test controls shows (issue 40, the floor
guard); the real broker is in ``test_floor_guard_broker.py``.

* every message goes with QoS 1; the state, the status and the anchors are retained, the
  feed's messages are not; nothing is handed over before the broker has the connection;
* the status counts what was handed over and the connections, and says the backlog: every
  record the broker has not acknowledged, and the age of the oldest of them;
* the cursor file holds the numbers the feed had at the record it names, is replaced at most
  every ``CURSOR_INTERVAL_S`` and not at all while nothing new is acknowledged;
* the retained state is sent at most every ``STATE_INTERVAL_S``, and only when the table
  changed;
* a stop waits for a broker that is being connected and drains to it, finishes at once when
  the broker cannot be reached or was lost, waits no longer than its drain when nothing is
  acknowledged, drains the records journaled but not yet told, and leaves no file open;
* anchors wait for the connection, at most ``ANCHORS_HELD`` of them (the oldest go first);
* a broker that cannot be reached is logged once a minute, not once an attempt.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import paho.mqtt.client as mqtt
import pytest
from structlog.testing import capture_logs

from station.core.options import CoreOptions
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.floor.cursor import cursor_path, load_cursor
from station.floor.derive import FeedDeriver, derive_all
from station.floor.outbox import CURSOR_INTERVAL_S, STATE_INTERVAL_S, FloorPublisher
from station.floor.settings import FloorSection
from station.journal import Journal, JournalReader
from station.journal.anchors import journal_id

from ..waiting import stays_false, wait_until

OPTIONS = CoreOptions(decks=8)
SEQUENCED = ("round", "event", "significant")
#: Anchors waiting for the broker, at most (the module's ANCHORS_HELD, written out: the figure is the promise).
ANCHORS_HELD = 10_000


@dataclass(frozen=True)
class Sent:
    mid: int
    topic: str
    payload: dict[str, Any]
    qos: int
    retain: bool
    at: float  # time.monotonic() when handed over

    @property
    def kind(self) -> str:
        return self.topic.rsplit("/", 1)[1]


@dataclass
class _Info:
    mid: int
    broker: Broker | None = None

    def wait_for_publish(self, timeout: float | None = None) -> None:
        """The test acknowledges by hand (or its acknowledging thread does); a broker that
        ``acks_at_the_end`` acknowledges everything handed over while the outbox waits here
        (for its last status, at a stop)."""
        if self.broker is not None and self.broker.acks_at_the_end:
            self.broker.ack_all()


@dataclass
class _Reason:
    is_failure: bool


@dataclass
class Broker:
    """Just enough of paho's client, as the outbox uses it: what is handed over is kept with
    its QoS and retain flag; the test connects, drops, fails and acknowledges."""

    client_id: str = ""
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    on_connect: Callable[..., None] | None = None
    on_disconnect: Callable[..., None] | None = None
    on_publish: Callable[..., None] | None = None
    on_connect_fail: Callable[..., None] | None = None
    acking: bool = False  # acknowledge each message as it is handed over
    acks_at_the_end: bool = False  # acknowledge everything when the outbox waits for its last status
    _mid: int = 0

    def factory(self, _options: Any, client_id: str, **_k: Any) -> mqtt.Client:
        self.client_id = client_id
        return cast(mqtt.Client, self)

    def max_inflight_messages_set(self, _n: int) -> None: ...
    def max_queued_messages_set(self, _n: int) -> None: ...
    def connect_async(self, *_a: Any, **_k: Any) -> None: ...
    def loop_start(self) -> None: ...
    def loop_stop(self) -> None: ...

    def disconnect(self) -> None:
        if self.on_disconnect is not None:
            self.on_disconnect(self, None, None, "normal disconnection", None)

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> _Info:
        with self.lock:
            self._mid += 1
            mid = self._mid
            self.sent.append(Sent(mid, topic, json.loads(payload), qos, retain, time.monotonic()))
        if self.acking:
            self.ack(mid)
        return _Info(mid, self)

    def ready(self) -> bool:
        return self.on_connect is not None

    def connect(self) -> None:
        wait_until(self.ready, 30, "the outbox's connection")
        assert self.on_connect is not None
        self.on_connect(self, None, None, _Reason(False), None)

    def refuse(self) -> None:
        """The broker answers the connection with a refusal (bad credentials, say)."""
        wait_until(self.ready, 30, "the outbox's connection")
        assert self.on_connect is not None
        self.on_connect(self, None, None, _Reason(True), None)

    def drop(self) -> None:
        assert self.on_disconnect is not None
        self.on_disconnect(self, None, None, "connection lost", None)

    def fail(self) -> None:
        wait_until(self.ready, 30, "the outbox's connection")
        assert self.on_connect_fail is not None
        self.on_connect_fail(self, None)

    def ack(self, mid: int) -> None:
        assert self.on_publish is not None
        self.on_publish(self, None, mid, None, None)

    def ack_all(self) -> None:
        for item in self.of(*SEQUENCED, "state", "status", "anchor"):
            self.ack(item.mid)

    def of(self, *kinds: str) -> list[Sent]:
        with self.lock:
            return [s for s in self.sent if s.kind in kinds]


def _journal(path: Path, rounds: int = 40) -> Path:
    with Journal(path) as writer:
        for event in generate(seed=7, rounds=rounds):
            writer.append(event.kind, event_to_dict(event))
    return path


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return _journal(tmp_path / "journal.sqlite3")


def _publisher(journal: Path, broker: Broker, **settings: Any) -> FloorPublisher:
    section = FloorSection(enabled=True, broker="mqtt://broker.test", table="BAC-01", **settings)
    return FloorPublisher(section, table="BAC-01", journal=journal, options=OPTIONS, client_factory=broker.factory)


def _expected(journal: Path) -> list[dict[str, Any]]:
    with JournalReader(journal) as reader:
        records = list(reader.records())
    return [m.payload for m in derive_all(records, OPTIONS, table="BAC-01", journal_id=journal_id(records[0].hash))]


def _last_seq(journal: Path) -> int:
    with JournalReader(journal) as reader:
        last = reader.last()
    assert last is not None
    return last.seq


def _stop(publisher: FloorPublisher, **kwargs: Any) -> tuple[threading.Thread, list[float]]:
    """``publisher.stop`` on a thread of its own; the list gets how long it took."""
    took: list[float] = []

    def run() -> None:
        started = time.monotonic()
        publisher.stop(**kwargs)
        took.append(time.monotonic() - started)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, took


def test_what_goes_out_how_and_what_the_status_counts(journal: Path) -> None:
    broker = Broker(acking=True)
    with capture_logs() as logs:
        publisher = _publisher(journal, broker, client_id="pit-4-bac-01").start()
        wait_until(broker.ready, 30, "the outbox's connection")
    starting = [e for e in logs if e["event"] == "floor_feed_starting"]
    assert len(starting) == 1 and starting[0]["from_checkpoint"] is None and starting[0]["cursor"] == 0
    assert 0 <= starting[0]["replay_s"] < 60
    try:
        assert any(t.name == "floor-outbox" and t.daemon for t in threading.enumerate()), \
            "the feed's thread must never keep the station's process from exiting"
        stays_false(lambda: broker.sent, 0.3, "a message handed over before the broker had the connection")
        assert broker.client_id == "pit-4-bac-01"
        broker.connect()
        expected = _expected(journal)
        wait_until(lambda: len(broker.of(*SEQUENCED)) == len(expected), 60, "the whole feed")
        wait_until(lambda: publisher.cursor == _last_seq(journal), 30, "the cursor at the journal's end")
    finally:
        started = time.monotonic()
        publisher.stop()  # the configured drain (no argument: 5 s)
        took = time.monotonic() - started
    assert took < 2.5, f"a stop with everything acknowledged took {took:.1f} s: it waited for the drain's end"
    assert [s.payload for s in broker.of(*SEQUENCED)] == expected
    for item in broker.sent:
        assert item.qos == 1, item
        assert item.retain is (item.kind in ("state", "status", "anchor")), item
    statuses = [s.payload["status"] for s in broker.of("status")]
    assert statuses == ["online", "offline"] and broker.of("status")[-1].payload["reason"] == "stopped"
    status = publisher.status()
    counted = {kind: len(broker.of(kind)) for kind in (*SEQUENCED, "state", "anchor")}
    assert status["published"] == counted and counted["state"] >= 1
    assert status["connections"] == 1 and status["connected"] is False and status["error"] is None
    assert status["cursor"] == _last_seq(journal) and status["backlog_records"] == 0
    assert load_cursor(cursor_path(journal), publisher.journal_id or "").seq == _last_seq(journal)


def test_a_configured_client_id_is_kept_and_the_default_names_the_table(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker).start()
    try:
        wait_until(broker.ready, 30, "the outbox's connection")
        assert broker.client_id == "dealing-station-BAC-01"
    finally:
        publisher.stop(drain_s=0)


def test_the_backlog_is_every_record_not_acknowledged_and_the_age_of_the_oldest(journal: Path) -> None:
    """Before any connection every record is behind, the oldest being record 1; while the
    broker acknowledges nothing, the same (the window is full, the cursor has not moved)."""
    broker = Broker()
    publisher = _publisher(journal, broker, window=20).start()
    with JournalReader(journal) as reader:
        first = reader.get(1)
    assert first is not None
    written = time.time()  # after the journal was written: its records are older than this
    from station.floor.outbox import _epoch

    try:
        wait_until(broker.ready, 30, "the outbox's connection")
        last = _last_seq(journal)
        for _ in range(3):
            before = time.time()
            behind, age = publisher.backlog()
            after = time.time()
            assert behind == last
            assert before - _epoch(first.time) <= age <= after - _epoch(first.time)
            assert age >= written - _epoch(first.time) > 0
        broker.connect()
        wait_until(lambda: len(broker.of(*SEQUENCED)) >= 15, 30, "a window's worth handed over")
        # Nothing acknowledged: behind are the records from the first message's on.
        acknowledged = broker.of(*SEQUENCED)[0].payload["seq"] - 1
        stays_false(lambda: publisher.backlog()[0] != last - acknowledged, 0.3,
                    "a backlog that is not every record after what the broker acknowledged")
        # The status gives the age in milliseconds.
        ages = [publisher.status()["backlog_oldest_s"] for _ in range(5)]
        assert all(isinstance(a, float) and a > 0 and round(a, 3) == a for a in ages), ages
    finally:
        publisher.stop(drain_s=0)


def test_the_cursor_holds_the_numbers_at_its_record_and_is_not_rewritten_for_nothing(
        journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = _counting_stores(monkeypatch)
    broker = Broker()
    publisher = _publisher(journal, broker, window=30).start()
    ident = ""
    try:
        broker.connect()
        wait_until(lambda: len(broker.of(*SEQUENCED)) >= 25, 30, "a window's worth handed over")
        handed = broker.of(*SEQUENCED)
        for item in handed[:10]:
            broker.ack(item.mid)
        ident = publisher.journal_id or ""
        wait_until(lambda: load_cursor(cursor_path(journal), ident).seq >= handed[9].payload["seq"], 30,
                   "the cursor past the acknowledged")
        # The numbers stored are those of a feed derived from the first record up to the cursor.
        position = load_cursor(cursor_path(journal), ident)
        with JournalReader(journal) as reader:
            whole = FeedDeriver(OPTIONS, table="BAC-01", journal_id=ident)
            for record in reader.records():
                if record.seq > position.seq:
                    break
                whole.derive(record)
        assert position.counters == whole.position.counters
        # Nothing more acknowledged: the file is not replaced again.
        count = len(stored)
        stays_false(lambda: len(stored) != count, 0.6, "the cursor rewritten with nothing new acknowledged")
    finally:
        publisher.stop(drain_s=0)


def _counting_stores(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """When the outbox replaced its cursor file (``store_cursor`` as the outbox calls it)."""
    from station.floor import cursor, outbox

    stored: list[float] = []
    real = cursor.store_cursor

    def counting(*args: Any, **kwargs: Any) -> None:
        stored.append(time.monotonic())
        real(*args, **kwargs)

    monkeypatch.setattr(outbox, "store_cursor", counting)
    return stored


def test_the_cursor_is_replaced_at_most_every_interval(journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A broker that acknowledges one message at a time, each a pass of the outbox: the cursor
    file follows, but is replaced at most every ``CURSOR_INTERVAL_S`` (the window, larger than
    the feed, never needs room at once)."""
    stored = _counting_stores(monkeypatch)
    broker = Broker()
    publisher = _publisher(journal, broker, window=5000).start()
    expected = _expected(journal)
    try:
        broker.connect()
        wait_until(lambda: len(broker.of(*SEQUENCED)) == len(expected), 30, "the whole feed handed over")
        started = time.monotonic()
        for item in broker.of(*SEQUENCED):
            broker.ack(item.mid)
            time.sleep(0.003)  # a deliberate pace: a slow broker, one acknowledgement at a time
        wait_until(lambda: publisher.cursor == _last_seq(journal), 30, "the cursor at the journal's end")
        took = time.monotonic() - started
        during = [at for at in stored if at >= started]
    finally:
        publisher.stop(drain_s=0)
    assert 2 <= len(during) <= took / CURSOR_INTERVAL_S + 2, (len(during), took)


def test_the_state_is_sent_at_most_every_interval_and_only_when_the_table_changed(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal.sqlite3", rounds=120)
    broker = Broker(acking=True)
    publisher = _publisher(journal, broker, window=20).start()
    try:
        broker.connect()
        wait_until(lambda: publisher.cursor == _last_seq(journal), 60, "the cursor at the journal's end")
    finally:
        publisher.stop(drain_s=5)
    states = broker.of("state")
    assert len(states) >= 2
    for earlier, later in itertools.pairwise(states):
        assert {**earlier.payload, "seq": 0, "time": ""} != {**later.payload, "seq": 0, "time": ""}, \
            "the retained state sent again with nothing changed"
    gaps = [b.at - a.at for a, b in itertools.pairwise(states[:-1])]  # the last: the final one
    assert all(g >= STATE_INTERVAL_S * 0.9 for g in gaps), gaps


def test_a_stop_waits_for_a_broker_being_connected_and_drains_to_it(journal: Path) -> None:
    broker = Broker(acking=True)
    publisher = _publisher(journal, broker).start()
    wait_until(broker.ready, 30, "the outbox's connection")
    stopper, took = _stop(publisher, drain_s=10)
    stays_false(lambda: not stopper.is_alive(), 0.5, "a stop that did not wait for the broker being connected")
    broker.connect()
    stopper.join(30)
    assert took and not stopper.is_alive()
    assert [s.payload for s in broker.of(*SEQUENCED)] == _expected(journal)
    assert publisher.cursor == _last_seq(journal)


def test_a_stop_does_not_wait_for_a_broker_that_cannot_be_reached(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker).start()
    broker.fail()
    stopper, took = _stop(publisher, drain_s=10)
    stopper.join(30)
    assert took and took[0] < 5, took
    assert publisher.status()["backlog_records"] == _last_seq(journal)


def test_a_stop_does_not_wait_for_a_broker_that_was_lost(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker, window=20).start()
    broker.connect()
    wait_until(lambda: len(broker.of(*SEQUENCED)) >= 15, 30, "a window's worth handed over")
    broker.drop()
    assert publisher.status()["connected"] is False
    stopper, took = _stop(publisher, drain_s=10)
    stopper.join(30)
    assert took and took[0] < 5, took
    assert publisher.cursor < _last_seq(journal)


def test_a_stop_waits_for_a_broker_lost_during_the_drain_to_come_back(journal: Path) -> None:
    """Lost while the stop drains (the stop said it would wait ``drain_s``): a reconnection
    within it still gets the rest, and nothing new is handed over before the repeats."""
    broker = Broker()
    publisher = _publisher(journal, broker, window=20).start()
    broker.connect()
    wait_until(lambda: len(broker.of(*SEQUENCED)) >= 15, 30, "a window's worth handed over")
    stopper, took = _stop(publisher, drain_s=10)
    broker.drop()
    stays_false(lambda: not stopper.is_alive(), 0.5, "a stop that gave up on a broker lost during its drain")
    broker.connect()
    broker.acking = True
    broker.ack_all()
    stopper.join(30)
    assert took and not stopper.is_alive()
    assert publisher.cursor == _last_seq(journal)
    assert publisher.status()["connections"] == 2


def test_a_stop_waits_no_longer_than_its_drain_and_stores_what_was_acknowledged(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker, window=20).start()
    broker.connect()
    wait_until(lambda: len(broker.of(*SEQUENCED)) >= 15, 30, "a window's worth handed over")
    handed = broker.of(*SEQUENCED)
    for item in handed[:5]:
        broker.ack(item.mid)
    with capture_logs() as logs:
        stopper, took = _stop(publisher, drain_s=0.5)
        stopper.join(30)
    assert took and took[0] < 5, took
    stored = load_cursor(cursor_path(journal), publisher.journal_id or "")
    # Right before the record of the first message not acknowledged: never ahead, never behind.
    assert stored.seq == publisher.cursor == handed[5].payload["seq"] - 1
    stopped = [e for e in logs if e["event"] == "floor_feed_stopped"]
    assert [e["backlog_records"] for e in stopped] == [_last_seq(journal) - stored.seq]


def test_a_stop_drains_the_records_journaled_but_not_yet_told(journal: Path) -> None:
    """The station tells the outbox of each commit; records committed just before the stop
    whose word has not arrived are in the journal: the stop drains them too."""
    broker = Broker(acking=True)
    publisher = _publisher(journal, broker).start()
    broker.connect()
    wait_until(lambda: publisher.cursor == _last_seq(journal), 60, "the cursor at the journal's end")
    with Journal(journal) as writer:  # not told (no notify)
        for event in list(generate(seed=8, rounds=3))[:5]:
            writer.append(event.kind, event_to_dict(event))
    # No record known to be behind: no age either (whatever the journal holds that it has not read).
    def aged_but_empty() -> bool:
        behind, age = publisher.backlog()
        return behind == 0 and age != 0.0

    stays_false(aged_but_empty, 0.2, "an age given for a backlog of no record")
    with capture_logs() as logs:
        publisher.stop(drain_s=10)
    assert publisher.cursor == _last_seq(journal)
    assert [e["backlog_records"] for e in logs if e["event"] == "floor_feed_stopped"] == [0]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
def test_a_stopped_feed_holds_no_file_of_the_journal(journal: Path) -> None:
    def open_journal() -> list[str]:
        found = []
        for entry in Path("/proc/self/fd").iterdir():
            try:
                target = os.readlink(entry)
            except OSError:
                continue
            if target.startswith(str(journal)):
                found.append(target)
        return found

    broker = Broker(acking=True)
    publisher = _publisher(journal, broker).start()
    broker.connect()
    wait_until(lambda: publisher.cursor == _last_seq(journal), 60, "the cursor at the journal's end")
    assert open_journal()
    publisher.stop(drain_s=5)
    assert open_journal() == []


def test_a_stop_before_the_journal_has_a_record_ends_the_feed_saying_why(tmp_path: Path) -> None:
    broker = Broker()
    publisher = _publisher(tmp_path / "journal.sqlite3", broker).start()
    assert publisher.status()["backlog_records"] == 0
    stopper, took = _stop(publisher, drain_s=0)
    stopper.join(30)
    assert took and took[0] < 5, took
    assert publisher.error is not None and "stopped before the journal had a record" in publisher.error
    assert not broker.sent


def test_anchors_wait_for_the_connection_and_the_oldest_go_first(journal: Path) -> None:
    broker = Broker(acking=True)
    publisher = _publisher(journal, broker).start()
    try:
        for n in range(ANCHORS_HELD + 1):
            publisher.publish_anchor({"n": n})
        stays_false(lambda: broker.sent, 0.3, "an anchor handed over before the broker had the connection")
        broker.connect()
        wait_until(lambda: len(broker.of("anchor")) == ANCHORS_HELD, 60, "the anchors held")
        stays_false(lambda: len(broker.of("anchor")) != ANCHORS_HELD, 0.3, "more anchors than were held")
    finally:
        publisher.stop()
    assert [s.payload["n"] for s in broker.of("anchor")] == list(range(1, ANCHORS_HELD + 1))
    assert {(s.qos, s.retain) for s in broker.of("anchor")} == {(1, True)}
    assert publisher.status()["published"]["anchor"] == ANCHORS_HELD


def test_a_broker_that_cannot_be_reached_is_logged_once_a_minute(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker).start()
    try:
        with capture_logs() as logs:
            for _ in range(3):
                broker.fail()
        assert [e["event"] for e in logs if e["event"] == "floor_broker_unreachable"] == ["floor_broker_unreachable"]
    finally:
        publisher.stop(drain_s=0)


def test_a_station_started_right_after_the_machine_booted_logs_an_unreachable_broker_at_once(
        journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The monotonic clock counts from the machine's boot: a table PC that starts its station
    30 s after power-on must still say at once that the broker cannot be reached (the minute
    between two lines is counted from the last line, not from the boot). The outbox's clock
    is shifted, not stopped: only its origin is the boot's."""
    import types

    from station.floor import outbox

    since_boot = time.monotonic() - 30.0
    monkeypatch.setattr(outbox, "time", types.SimpleNamespace(
        monotonic=lambda: time.monotonic() - since_boot, perf_counter=time.perf_counter, sleep=time.sleep,
        time=time.time))
    broker = Broker()
    publisher = _publisher(journal, broker).start()
    try:
        with capture_logs() as logs:
            broker.fail()
        assert [e["event"] for e in logs if e["event"] == "floor_broker_unreachable"] == ["floor_broker_unreachable"]
    finally:
        publisher.stop(drain_s=0)


def test_records_that_leave_the_table_as_it_was_do_not_resend_the_state(journal: Path) -> None:
    broker = Broker(acking=True)
    publisher = _publisher(journal, broker).start()
    try:
        broker.connect()
        wait_until(lambda: publisher.cursor == _last_seq(journal), 60, "the cursor at the journal's end")
        wait_until(lambda: broker.of("state") and broker.of("state")[-1].payload["seq"] == _last_seq(journal), 30,
                   "the state of the whole journal")
        sent = len(broker.of("state"))
        with Journal(journal) as writer:  # records of the station's own: the table is as it was
            for n in range(3):
                publisher.notify(writer.append("Software", {"version": f"test-{n}", "journal_schema": 1}).seq)
        wait_until(lambda: publisher.cursor == _last_seq(journal), 30, "the new records taken")
        stays_false(lambda: len(broker.of("state")) != sent, 2 * STATE_INTERVAL_S + 0.2,
                    "the retained state sent again with the table unchanged")
    finally:
        publisher.stop(drain_s=0)


def test_never_more_than_the_window_beyond_the_stored_cursor(tmp_path: Path) -> None:
    """Checked at every message handed over, with a broker that acknowledges one at a time: a
    record whose messages do not fit waits (held) until the stored cursor makes room."""
    journal = _journal(tmp_path / "journal.sqlite3", rounds=80)
    window = 7
    beyond: list[int] = []
    broker = Broker()
    publisher = _publisher(journal, broker, window=window)
    real_publish = broker.publish

    def publish(topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> _Info:
        info = real_publish(topic, payload, qos, retain)
        if topic.rsplit("/", 1)[1] in SEQUENCED:
            position = load_cursor(cursor_path(journal), publisher.journal_id or "", set_aside=False)
            beyond.append(len(broker.of(*SEQUENCED)) - sum(c.n for c in position.counters.values()))
        return info

    broker.publish = publish  # type: ignore[method-assign]
    stop = threading.Event()

    def acknowledging() -> None:
        acked = 0
        while not stop.is_set():
            handed = broker.of(*SEQUENCED)
            if acked < len(handed):
                broker.ack(handed[acked].mid)
                acked += 1
            time.sleep(0.001)  # a deliberate pace: a slow broker, one acknowledgement at a time

    acker = threading.Thread(target=acknowledging, daemon=True)
    publisher.start()
    try:
        broker.connect()
        acker.start()
        wait_until(lambda: publisher.cursor == _last_seq(journal), 120, "the cursor at the journal's end")
    finally:
        stop.set()
        publisher.stop(drain_s=0)
    assert [s.payload for s in broker.of(*SEQUENCED)] == _expected(journal)
    assert max(beyond) <= window, f"{max(beyond)} messages beyond the stored cursor (window {window})"


def test_a_record_that_does_not_fit_waits_until_the_acknowledgements_make_room(journal: Path) -> None:
    """The window chosen so that the first record of several messages does not fit: it waits,
    however long the broker stays silent (an idle pass included), and goes over as soon as
    enough of what came before is acknowledged (not only once all of it is)."""
    expected = _expected(journal)
    per_record: dict[int, int] = {}
    for message in expected:
        per_record[message["seq"]] = per_record.get(message["seq"], 0) + 1
    counts = list(per_record.items())
    # The first record of several messages, after at least as many records of one message each.
    at = next(i for i, (_, count) in enumerate(counts) if count >= 2)
    assert at >= counts[at][1] and all(count == 1 for _, count in counts[:at])
    seq, held = counts[at]
    before = sum(count for _, count in counts[:at])
    window = before + 1  # one of its messages fits
    broker = Broker()
    publisher = _publisher(journal, broker, window=window).start()
    try:
        broker.connect()
        wait_until(lambda: len(broker.of(*SEQUENCED)) == before, 30, "what fits of the window")
        stays_false(lambda: len(broker.of(*SEQUENCED)) != before, 0.8,
                    "the record that does not fit handed over with no room (or more)")
        for item in broker.of(*SEQUENCED)[:held - 1]:  # exactly the room it needs
            broker.ack(item.mid)
        wait_until(lambda: len(broker.of(*SEQUENCED)) == before + held, 30,
                   "the waiting record handed over once it fits")
        assert broker.of(*SEQUENCED)[-1].payload["seq"] == seq
    finally:
        publisher.stop(drain_s=0)


def test_an_outbox_started_again_on_a_journal_all_published_publishes_nothing_again(journal: Path) -> None:
    """Exactly once across a restart: the cursor at the journal's very end is not "ahead"."""
    first = Broker(acking=True)
    publisher = _publisher(journal, first).start()
    first.connect()
    wait_until(lambda: publisher.cursor == _last_seq(journal), 60, "the cursor at the journal's end")
    publisher.stop()
    again = Broker(acking=True)
    restarted = _publisher(journal, again).start()
    try:
        again.connect()
        stays_false(lambda: again.of(*SEQUENCED), 0.8, "a message published a second time")
        assert restarted.cursor == _last_seq(journal)
    finally:
        restarted.stop()


def test_what_the_broker_acknowledges_with_the_last_status_is_stored(journal: Path) -> None:
    """At a stop the outbox waits for its "offline" status to be acknowledged; what the broker
    acknowledged meanwhile (everything before it, here) is in the cursor it leaves."""
    broker = Broker(acks_at_the_end=True)
    publisher = _publisher(journal, broker, window=20).start()
    broker.connect()
    wait_until(lambda: len(broker.of(*SEQUENCED)) >= 15, 30, "a window's worth handed over")
    publisher.stop(drain_s=0)
    handed = broker.of(*SEQUENCED)  # after the stop: the outbox may hand over more until it begins
    stored = load_cursor(cursor_path(journal), publisher.journal_id or "")
    assert stored.seq == publisher.cursor == handed[-1].payload["seq"]


def test_a_cursor_that_cannot_be_stored_is_not_counted_as_stored(journal: Path) -> None:
    """The cursor file cannot be replaced (a folder in its place): the feed goes on, the log
    says why in words, and the cursor it reports stays where the file says (the start)."""
    blocked = cursor_path(journal)
    blocked.mkdir()
    (blocked / "in the way").write_text("")
    broker = Broker(acking=True)
    with capture_logs() as logs:
        publisher = _publisher(journal, broker).start()
        try:
            broker.connect()
            expected = _expected(journal)
            wait_until(lambda: len(broker.of(*SEQUENCED)) == len(expected), 60, "the whole feed")
            wait_until(lambda: any(e["event"] == "floor_cursor_not_stored" for e in logs), 30, "the failed store")
            assert publisher.cursor == 0 and publisher.status()["cursor"] == 0
        finally:
            publisher.stop(drain_s=0)
    errors = {e["error"] for e in logs if e["event"] == "floor_cursor_not_stored"}
    assert errors == {os.strerror(errno.EISDIR)}, errors


def test_a_refused_connection_is_no_connection_and_a_stop_does_not_wait_for_it(journal: Path) -> None:
    broker = Broker()
    publisher = _publisher(journal, broker).start()
    broker.refuse()
    stays_false(lambda: broker.sent, 0.3, "a message handed over on a refused connection")
    status = publisher.status()
    assert status["connected"] is False and status["connections"] == 0
    stopper, took = _stop(publisher, drain_s=10)
    stopper.join(30)
    assert took and took[0] < 5, took
