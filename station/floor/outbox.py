"""The floor publisher: an outbox that reads the journal after its cursor and publishes it.

What leaves the PC comes from the journal. On its own thread (the core loop never waits for
it) the publisher:

1. opens the journal read-only, learns its id (record 1's hash) and reads the cursor beside
   it (:mod:`station.floor.cursor`);
2. takes the records up to the cursor through the projection without a message
   (:class:`~station.floor.derive.FeedDeriver`), as crash recovery does: from the newest
   checkpoint at or before the cursor (:mod:`station.core.checkpoints`), so only the records
   after that checkpoint are read (:func:`station.floor.resume.resume_deriver`);
3. from then on derives each record's messages and publishes them in journal order with QoS 1
   through paho-mqtt; the cursor moves past a record only once the broker has acknowledged
   every message of it and every one before, and is stored durably;
4. keeps the retained ``state`` and ``status`` (with the last will) and publishes the anchors
   it is handed (:mod:`station.floor.anchors`).

At most ``window`` messages are ever beyond the stored cursor; when the broker is away they
wait in paho's queue (resent in order when it returns, flagged as duplicates) and the rest of
the backlog waits in the journal itself, so memory stays bounded however long the outage. A
crash repeats at most those ``window`` messages: every repeat carries the same ``seq`` and
``n`` as the first time. The core loop tells the publisher of each commit (one
``threading.Event.set``); the publisher gathers for ``COALESCE_S`` after each pass, so a
table at full speed wakes it at most about a hundred times a second.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog

from station.core.options import CoreOptions
from station.floor.cursor import cursor_path, load_cursor, store_cursor
from station.floor.derive import PAYLOAD_VERSION, SEQUENCED, Counter, FeedDeriver, FeedMessage, FeedPosition
from station.floor.mqtt import BrokerOptions, make_client
from station.floor.resume import resume_deriver
from station.floor.settings import FloorSection
from station.journal import JournalReader
from station.journal.anchors import journal_id

log = structlog.get_logger("station.floor")

#: After a pass that published something, the publisher waits this long for more to gather.
COALESCE_S = 0.01
#: The cursor file is replaced at most this often (and at once when the window needs room).
CURSOR_INTERVAL_S = 0.1
#: The retained state is republished at most this often while it changes.
STATE_INTERVAL_S = 0.25
#: The longest the publisher sleeps when nothing happens.
IDLE_S = 0.5
#: Anchors waiting for the broker, at most (the oldest go first when more come).
ANCHORS_HELD = 10_000
#: While the broker cannot be reached, one log line per this many seconds.
UNREACHABLE_LOG_S = 60.0

ClientFactory = Callable[..., mqtt.Client]


@dataclass(frozen=True)
class Topics:
    prefix: str
    table: str

    def of(self, kind: str) -> str:
        return f"{self.prefix}/{self.table}/{kind}"


@dataclass
class _Group:
    """The messages one record gave, until the broker has acknowledged them all."""

    seq: int
    before: FeedPosition
    connection: int
    pending: set[int] = field(default_factory=set)


def _before(position: FeedPosition, seq: int, messages: list[FeedMessage]) -> FeedPosition:
    """Where the feed stood before a record that gave ``messages`` (the first message of each
    kind says: its ``n`` less one, its ``prev``)."""
    before = position.copy()
    before.seq = seq
    seen: set[str] = set()
    for message in messages:
        if message.kind not in seen:
            seen.add(message.kind)
            before.counters[message.kind] = Counter(message.n - 1, message.payload["prev"])
    return before


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _epoch(journal_time: str) -> float:
    return datetime.fromisoformat(journal_time.replace("Z", "+00:00")).timestamp()


class FloorPublisher:
    """Publishes one journal to the floor's broker; see the module's description."""

    def __init__(self, settings: FloorSection, *, table: str, journal: Path, options: CoreOptions | None,
                 currency: str | None = None, devices: Iterable[str] = (), software: str = "",
                 client_factory: ClientFactory = make_client) -> None:
        self.settings = settings
        self.table = table
        self.topics = Topics(settings.topic_prefix, table)
        self.journal = journal
        self.options = options
        self.currency = currency
        self.devices = tuple(devices)
        self.software = software
        self.client_id = settings.client_id or f"dealing-station-{table}"
        self._client_factory = client_factory
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._deadline = 0.0
        self._acks: deque[int] = deque()
        self._anchors: deque[tuple[str, bytes]] = deque(maxlen=ANCHORS_HELD)
        self._thread: threading.Thread | None = None
        self._reader: JournalReader | None = None
        self._client: mqtt.Client | None = None
        self._deriver: FeedDeriver | None = None
        self._groups: deque[_Group] = deque()
        self._held: tuple[_Group, list[FeedMessage]] | None = None  # derived, waiting for room
        self._by_mid: dict[int, _Group] = {}
        self._stored = FeedPosition()
        self._stored_at = 0.0
        self._state_sent: dict[str, Any] | None = None
        self._state_at = 0.0
        self.journal_id: str | None = None
        self.tip = 0
        self.connected = False
        self.connections = 0
        self.published: dict[str, int] = {**dict.fromkeys(SEQUENCED, 0), "state": 0, "anchor": 0}
        self.error: str | None = None
        self.last_disconnect = ""
        self._unreachable_logged = -UNREACHABLE_LOG_S
        self._failed_attempts = 0

    # --- the station's side (any thread) -------------------------------------------------

    def start(self) -> FloorPublisher:
        self._thread = threading.Thread(target=self._run, name="floor-outbox", daemon=True)
        self._thread.start()
        return self

    def notify(self, last_seq: int) -> None:
        """A commit (called on the core loop's thread: it only notes and wakes)."""
        self.tip = last_seq
        self._wake.set()

    def publish_anchor(self, anchor: dict[str, Any]) -> None:
        self._anchors.append((self.topics.of("anchor"), encode(anchor)))
        self._wake.set()

    def stop(self, drain_s: float | None = None) -> None:
        """Publish what the broker will take within ``drain_s``, say offline, disconnect."""
        wait = self.settings.drain_s if drain_s is None else drain_s
        self._deadline = time.monotonic() + wait
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(wait + 10)

    @property
    def cursor(self) -> int:
        return self._stored.seq

    def backlog(self) -> tuple[int, float]:
        """(records not yet acknowledged by the broker, age in seconds of the oldest of them)."""
        committed = self._committed().seq
        behind = max(0, self.tip - committed)
        if not behind or self._reader is None:
            return behind, 0.0
        try:
            oldest = self._reader.get(committed + 1)
        except Exception:  # the reader is closing: no figure rather than an error in a scrape
            return behind, 0.0
        return behind, 0.0 if oldest is None else max(0.0, time.time() - _epoch(oldest.time))

    def status(self) -> dict[str, Any]:
        behind, age = self.backlog()
        return {
            "broker": self.settings.broker, "table": self.table, "topics": self.topics.of("#"),
            "connected": self.connected, "journal_id": self.journal_id, "cursor": self._stored.seq,
            "backlog_records": behind, "backlog_oldest_s": round(age, 3), "published": dict(self.published),
            "connections": self.connections, "error": self.error,
        }

    # --- the publisher's thread ----------------------------------------------------------

    def _run(self) -> None:
        try:
            self._open()
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("floor_feed_failed", error=self.error)
            self._close_reader()
            return
        try:
            while True:
                self._wake.wait(IDLE_S)
                self._wake.clear()
                self._take_acks()
                if self._stopping.is_set() and self._finished():
                    if self.error is None:  # the table as it stopped, not as of the last interval
                        self._send_state(final=True)
                    break
                busy = self._send_anchors()
                if self.error is None:
                    busy = self._feed() or busy
                    self._send_state()
                self._store(urgent=False)
                if busy:
                    time.sleep(COALESCE_S)
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("floor_feed_failed", error=self.error)
        finally:
            self._shut()

    def _open(self) -> None:
        while True:
            try:
                self._reader = JournalReader(self.journal)
                first = self._reader.first_hash()
            except Exception as exc:
                self._close_reader()
                log.warning("floor_journal_not_readable", journal=str(self.journal), error=str(exc))
                first = None
            if first is not None:
                break
            if self._stopping.wait(1.0):
                raise RuntimeError("stopped before the journal had a record")
        assert self._reader is not None
        self.journal_id = journal_id(first)
        last = self._reader.last()
        self.tip = max(self.tip, last.seq if last is not None else 0)
        stored = load_cursor(cursor_path(self.journal), self.journal_id)
        if stored.seq > self.tip:
            log.warning("floor_cursor_ahead_of_journal", cursor=stored.seq, journal_ends=self.tip)
            stored = FeedPosition()
        started = time.perf_counter()
        deriver = resume_deriver(self._reader, self.options, stored, table=self.table, journal_id=self.journal_id,
                                 currency=self.currency, devices=self.devices)
        self._deriver = deriver
        self._stored = deriver.position.copy()  # the cursor's, with any kind it lacked counted again
        log.info("floor_feed_starting", broker=self.settings.broker, topics=self.topics.of("#"),
                 journal_id=self.journal_id, cursor=stored.seq, journal_ends=self.tip,
                 from_checkpoint=deriver.started_after or None,
                 replay_s=round(time.perf_counter() - started, 3))
        self._connect()

    def _status_payload(self, status: str, reason: str) -> bytes:
        return encode({"v": PAYLOAD_VERSION, "kind": "status", "table": self.table, "journal_id": self.journal_id,
                       "status": status, "reason": reason, "software": self.software,
                       "time": datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z"),
                       # Where the table stands ([floor] pit and number): the pit page's order.
                       "pit": self.settings.pit, "number": self.settings.number})

    def _connect(self) -> None:
        will = (self.topics.of("status"), self._status_payload("offline", "connection lost"))
        client = self._client_factory(BrokerOptions.from_floor(self.settings), self.client_id, will=will)
        client.max_inflight_messages_set(min(self.settings.window, 100))
        client.max_queued_messages_set(0)  # the window bounds it
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_connect_fail = self._on_connect_fail
        host, port = BrokerOptions.from_floor(self.settings).address()
        client.connect_async(host, port, keepalive=self.settings.keepalive_s)
        client.loop_start()
        self._client = client

    # paho's network thread: note and wake, nothing more.
    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if getattr(reason, "is_failure", False):
            self._failed_attempts += 1
            log.warning("floor_broker_refused", broker=self.settings.broker, reason=str(reason))
            return
        self._failed_attempts = 0
        self.connections += 1  # first: what was sent on the last connection is older from now on
        self.connected = True
        client.publish(self.topics.of("status"), self._status_payload("online", ""), qos=1, retain=True)
        log.info("floor_connected", broker=self.settings.broker, connection=self.connections)
        self._wake.set()

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        was = self.connected
        self.connected = False
        self.last_disconnect = str(reason)
        if was and self._stopping.is_set():
            log.info("floor_disconnected", broker=self.settings.broker, reason=str(reason))
        elif was:
            self._failed_attempts = 1  # lost: until it is back, a stop need not wait for it
            log.warning("floor_disconnected", broker=self.settings.broker, reason=str(reason),
                        note="the table deals on; the backlog waits in the journal")

    def _on_connect_fail(self, _client: mqtt.Client, _userdata: Any) -> None:
        self._failed_attempts += 1
        self._wake.set()
        now = time.monotonic()
        if now - self._unreachable_logged >= UNREACHABLE_LOG_S:  # one line a minute while it lasts
            self._unreachable_logged = now
            log.warning("floor_broker_unreachable", broker=self.settings.broker,
                        note="retrying; the table deals on and the backlog waits in the journal")

    def _on_publish(self, _client: mqtt.Client, _userdata: Any, mid: int, _reason: Any, _props: Any) -> None:
        self._acks.append(mid)
        self._wake.set()

    # --- steps of a pass ---------------------------------------------------------------

    def _take_acks(self) -> None:
        acks, by_mid, groups = self._acks, self._by_mid, self._groups
        while acks:
            mid = acks.popleft()
            group = by_mid.pop(mid, None)
            if group is not None:
                group.pending.discard(mid)
        while groups and not groups[0].pending:
            groups.popleft()

    def _may_publish(self) -> bool:
        """Connected, and nothing from an earlier connection still waits for its acknowledgement.

        paho sends again, after a reconnection, what the broker had not acknowledged; it does
        so after telling us of the connection, so anything new handed over before those are
        through would overtake them. And it writes what is handed over while it is still
        connecting ahead of what it had queued before. So new messages wait for both."""
        if not self.connected:
            return False
        groups = self._groups
        return not groups or groups[0].connection == self.connections

    def _committed(self) -> FeedPosition:
        """Where the broker has acknowledged everything up to (not yet stored)."""
        groups, deriver, held = self._groups, self._deriver, self._held
        if groups:
            return groups[0].before
        if held is not None:
            return held[0].before
        return deriver.position if deriver is not None else self._stored

    def _unstored(self) -> int:
        assert self._deriver is not None
        handed = sum(c.n for c in self._deriver.position.counters.values())
        return handed - sum(c.n for c in self._stored.counters.values())

    def _room(self) -> int:
        """Messages that may still be handed over before the window is full (every message
        derived counts, held ones too: they go out before anything newer)."""
        return self.settings.window - self._unstored()

    def _feed(self) -> bool:
        """Derive and hand over the records after the last one taken, while the window has
        room; True when it read any (the caller then looks again after ``COALESCE_S``).

        A record's messages go over together. When they do not fit, they are held until
        they do (or alone, when nothing else waits: a record larger than the window)."""
        deriver, reader = self._deriver, self._reader
        assert deriver is not None and reader is not None
        if not self._may_publish():
            return False
        if self._room() <= 0:
            self._store(urgent=True)
        if self._held is not None:
            if self._room() < 0 and self._groups:
                return False
            group, messages = self._held
            self._held = None
            self._hand_over(group, messages)
        read = 0
        for record in reader.records(deriver.position.seq):
            if self._room() <= 0:
                break
            read += 1
            previous = deriver.position.seq
            messages = deriver.derive(record)
            self.tip = max(self.tip, record.seq)
            if messages:
                group = _Group(record.seq, _before(deriver.position, previous, messages), self.connections)
                if self._room() < 0 and self._groups:
                    self._held = (group, messages)
                    break
                self._hand_over(group, messages)
            if self._stopping.is_set() and time.monotonic() > self._deadline:
                break
        return read > 0

    def _hand_over(self, group: _Group, messages: list[FeedMessage]) -> None:
        client = self._client
        assert client is not None
        for message in messages:
            info = client.publish(self.topics.of(message.kind), encode(message.payload), qos=1)
            group.pending.add(info.mid)
            self._by_mid[info.mid] = group
            self.published[message.kind] += 1
        self._groups.append(group)

    def _send_state(self, *, final: bool = False) -> None:
        """The retained state, at most every ``STATE_INTERVAL_S`` while the table changes; the
        ``final`` one at a stop goes at once, or the last changes before the stop would never be
        published (a subscriber would keep a table that is shuffling when it has been cut)."""
        deriver, client = self._deriver, self._client
        if deriver is None or client is None or not self._may_publish():
            return
        now = time.monotonic()
        if (not final and now - self._state_at < STATE_INTERVAL_S) or (
                self._state_sent is not None and self._state_sent["seq"] == deriver.position.seq):
            return
        state = deriver.state()
        previous = self._state_sent
        self._state_sent = state
        if previous is not None and {**previous, "seq": 0, "time": ""} == {**state, "seq": 0, "time": ""}:
            return
        self._state_at = now
        client.publish(self.topics.of("state"), encode(state), qos=1, retain=True)
        self.published["state"] += 1

    def _send_anchors(self) -> bool:
        client, anchors = self._client, self._anchors
        if client is None or not anchors or not self._may_publish():
            return False
        while anchors:
            topic, payload = anchors.popleft()
            client.publish(topic, payload, qos=1, retain=True)
            self.published["anchor"] += 1
        return True

    def _store(self, *, urgent: bool) -> None:
        if self.journal_id is None:
            return
        committed = self._committed()
        if committed.seq == self._stored.seq:
            return
        now = time.monotonic()
        if not urgent and now - self._stored_at < CURSOR_INTERVAL_S:
            self._wake.set()  # come back for it
            return
        snapshot = committed.copy()
        try:
            store_cursor(cursor_path(self.journal), self.journal_id, snapshot)
        except OSError as exc:
            log.warning("floor_cursor_not_stored", error=exc.strerror or str(exc))
            return
        self._stored, self._stored_at = snapshot, now

    def _finished(self) -> bool:
        """Stopping: done when everything is acknowledged, at the deadline, or at once when the
        broker cannot be reached (an attempt failed since the last connection)."""
        unreachable = not self.connected and self._failed_attempts > 0
        if time.monotonic() >= self._deadline or unreachable or self.error is not None:
            return True
        deriver = self._deriver
        if deriver is None:
            return True
        if self._reader is not None:
            last = self._reader.last()
            self.tip = max(self.tip, last.seq if last is not None else 0)
        return deriver.position.seq >= self.tip and not self._groups and self._held is None and not self._anchors

    def _shut(self) -> None:
        client = self._client
        if client is not None:
            self._store(urgent=True)
            if self.connected:
                info = client.publish(self.topics.of("status"), self._status_payload("offline", "stopped"),
                                      qos=1, retain=True)
                with contextlib.suppress(Exception):
                    info.wait_for_publish(1.0)
                self._take_acks()
                self._store(urgent=True)
            client.disconnect()
            client.loop_stop()
        behind = max(0, self.tip - self._stored.seq)
        log.info("floor_feed_stopped", cursor=self._stored.seq, journal_ends=self.tip, backlog_records=behind)
        self._close_reader()

    def _close_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()
