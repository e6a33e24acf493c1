"""A whole floor standing still: a thousand tables' retained status and state on one broker,
published in a few seconds from one MQTT client.

The pit page's floor tests (tests/pit/test_pit_floor_page.py) need a floor's scale, 40 pits of
25 tables, without a process per table: a replayer (tests/pit/feeds.py) keeps one client per
table and deals at a dealer's pace, which at a thousand tables would be the test's bottleneck.
What a screen shows of a table at rest is its retained status and state (and its last round
and any open alert, which the page heard when they were published), so this publishes exactly
those, once:

* each table's retained ``status`` (online, or offline by its last will or an orderly stop)
  with its ``pit`` and ``number``, and its retained ``state``: a real station's state at some
  point of a shoe, taken from a ``station demo`` journal's feed as the outbox derives it
  (:func:`tests.pit.feeds.record_feed`), each table at its own point;
* the table's last two or three rounds (``round``, the journal's own messages), so the tiles
  show a result and rounds this hour;
* on a few tables, what needs a person: the round stopped by an irregularity (in the state),
  an integrity alarm or alert (``event``), a device fault, a pause; a few tables offline; a
  chip tray open (its drop and the rounds' result so far), or closed with its win by
  inventory, where the pit keeps trays.

Every message is the feed's (``v`` 1, its ``kind`` and ``table`` those of its topic
``<prefix>/<table>/<kind>``): the pit's board takes them like a station's. The journal ids and
times are the test's: a still floor is no anchor. Rounds and events are not retained: the pit
page must be subscribed before :func:`publish_still_floor` runs (its retained status and
state come to any page whenever it subscribes).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from .feeds import Step, pit_name

#: Why a table needs a person, by the kind the floor gives it (see :func:`trouble_of`).
TROUBLES = ("irregularity", "integrity_alarm", "alert", "fault", "paused", "link_lost", "shut_down")


def pit_names(count: int) -> list[str]:
    """``A`` .. ``Z``, then ``AA``, ``AB``, ...: a floor's pits in their order."""
    return [pit_name(index) for index in range(count)]


@dataclass(frozen=True)
class StillTable:
    table: str
    pit: str
    number: int
    trouble: str = ""
    """One of :data:`TROUBLES`, or "" for a table dealing quietly."""
    tray: str = ""
    """"open", "closed", or "" for a table that keeps no tray."""


@dataclass
class StillFloor:
    """What was published: every table, and the ones that need a person, by pit."""

    tables: list[StillTable] = field(default_factory=list)
    messages: int = 0

    def pit(self, name: str) -> list[StillTable]:
        return [t for t in self.tables if t.pit == name]

    @property
    def pits(self) -> list[str]:
        return list(dict.fromkeys(t.pit for t in self.tables))

    def troubled(self, pit: str | None = None) -> list[StillTable]:
        return [t for t in self.tables if t.trouble and (pit is None or t.pit == pit)]


def trouble_of(pit_index: int, number: int) -> str:
    """What a table needs, if anything: spread over the floor so most pits have one or two,
    pit A eight (more than its tile can list by name) and some pits none."""
    if pit_index == 0 and number <= 8:
        return TROUBLES[(number - 1) % len(TROUBLES)]
    rules = ((5, 3, 0, "irregularity"), (9, 4, 1, "integrity_alarm"), (12, 5, 2, "alert"), (17, 6, 3, "fault"),
             (20, 7, 4, "paused"), (22, 3, 1, "link_lost"), (24, 8, 5, "shut_down"))
    for at, every, offset, trouble in rules:
        if number == at and pit_index % every == offset:
            return trouble
    return ""


def plan_floor(pits: Sequence[tuple[str, int]], *, first: int = 1) -> list[StillTable]:
    """The tables of ``pits`` (each a name and its number of tables), named ``BAC-<n>`` from
    ``first`` on; every other pit keeps chip trays (its last table's closed)."""
    tables = []
    index = first
    for pit_index, (pit, size) in enumerate(pits):
        for number in range(1, size + 1):
            tray = ("closed" if number == size else "open") if pit_index % 2 == 0 else ""
            tables.append(StillTable(f"BAC-{index:02d}", pit, number, trouble_of(pit_index, number), tray))
            index += 1
    return tables


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _rounds_before(steps: Sequence[Step], position: int, count: int) -> list[dict[str, Any]]:
    """The ``count`` round messages the feed gave last at or before ``position``."""
    found: list[dict[str, Any]] = []
    for step in reversed(steps[:position + 1]):
        found.extend(payload for kind, payload in reversed(step.messages) if kind == "round")
        if len(found) >= count:
            break
    return list(reversed(found[:count]))


class _Messages:
    """The messages of one table, stamped with its name, journal id and times."""

    def __init__(self, table: StillTable, steps: Sequence[Step], index: int, now: datetime, prefix: str) -> None:
        self.table = table
        self.prefix = prefix
        self.journal_id = hashlib.sha256(f"still {table.table}".encode()).hexdigest()[:16]
        # Each table at its own point of the shoe, past its first rounds.
        self.position = (index * 131 + 97) % len(steps)
        self.now = now
        self.steps = steps

    def topic(self, kind: str) -> str:
        return f"{self.prefix}/{self.table.table}/{kind}"

    def stamp(self, payload: dict[str, Any], at: datetime) -> bytes:
        body = {**payload, "table": self.table.table, "journal_id": self.journal_id, "time": _iso(at)}
        return json.dumps(body, separators=(",", ":")).encode()

    def status(self) -> bytes:
        trouble = self.table.trouble
        status, reason = (("offline", "connection lost") if trouble == "link_lost" else
                          ("offline", "stopped") if trouble == "shut_down" else ("online", ""))
        return json.dumps({"v": 1, "kind": "status", "table": self.table.table, "journal_id": self.journal_id,
                           "status": status, "reason": reason, "software": "still floor", "time": _iso(self.now),
                           "pit": self.table.pit, "number": self.table.number}, separators=(",", ":")).encode()

    def rounds(self) -> list[bytes]:
        rounds = _rounds_before(self.steps, self.position, 2 + self.table.number % 2)
        return [self.stamp(r, self.now - timedelta(seconds=30 * (len(rounds) - i))) for i, r in enumerate(rounds)]

    def state(self) -> bytes:
        state = dict(self.steps[self.position].state)
        trouble = self.table.trouble
        if trouble == "irregularity":
            state["state"] = "irregularity"
            state["irregularity"] = {"ident": 1, "reason": "impossible_card", "round_id": state.get("round_id"),
                                     "detail": "the shoe gave a card the round cannot take", "decisions": []}
        elif trouble == "integrity_alarm":
            state["state"] = "irregularity"
            state["irregularity"] = {"ident": 1, "reason": "integrity_alarm", "round_id": state.get("round_id"),
                                     "detail": "shoe 1 is in an ordered arrangement", "decisions": []}
        elif trouble == "fault":
            state["faulted"] = {"shoe": "no answer from the shoe reader"}
        elif trouble == "paused":
            state["state"] = "paused"
            state["paused_by"] = {"who": "sue", "role": "supervisor", "reason": "fill"}
        tray = self._tray()
        if tray is not None:
            state["tray"] = tray
        return self.stamp(state, self.now)

    def _tray(self) -> dict[str, Any] | None:
        if not self.table.tray:
            return None
        seed = int(self.journal_id[:6], 16)
        drop = 500_000 + seed % 40 * 25_000
        house = (seed % 13 - 4) * 10_000
        if self.table.tray == "open":
            return {"ledger": 1, "open": True, "opener": 2_000_000, "fill": 0, "credit": 0, "closer": 0,
                    "drop": drop, "drop_counted": False, "house": house, "win": None, "variance": None}
        win = house - 1_000
        return {"ledger": 1, "open": False, "opener": 2_000_000, "fill": 0, "credit": 0,
                "closer": 2_000_000 + win - drop, "drop": drop, "drop_counted": True, "house": house, "win": win,
                "variance": win - house}

    def events(self) -> list[bytes]:
        trouble = self.table.trouble
        if trouble not in ("integrity_alarm", "alert"):
            return []
        alarm = trouble == "integrity_alarm"
        code = "shoe_unshuffled" if alarm else "advantage_situation"
        detail = ("shoe 1 is in an ordered arrangement: 52 of 52 cards in new-deck order" if alarm
                  else "box 3 bet the maximum on banker after every natural: an edge may be known")
        event = {"v": 1, "kind": "event", "type": "integrity_alert", "seq": 10_000, "ident": 1, "code": code,
                 "severity": "alarm" if alarm else "alert", "detail": detail, "stopped": alarm}
        return [self.stamp(event, self.now - timedelta(seconds=20))]


def publish_still_floor(broker: tuple[str, int], steps: Sequence[Step], tables: Iterable[StillTable], *,
                        prefix: str = "dealing-station", timeout: float = 60.0) -> StillFloor:
    """Publish ``tables`` (:func:`plan_floor`) from one client, every message QoS 1, and
    return once the broker has taken them all."""
    floor = StillFloor(list(tables))
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"still-floor-{id(floor)}", protocol=mqtt.MQTTv311)
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    acknowledged = threading.Semaphore(0)
    connected = threading.Event()
    client.on_connect = lambda *_: connected.set()
    client.on_publish = lambda *_: acknowledged.release()
    client.connect(*broker, keepalive=30)
    client.loop_start()
    try:
        if not connected.wait(timeout):
            raise AssertionError(f"the broker at {broker} did not take the still floor's connection")
        now = datetime.now(UTC)
        sent = 0
        for index, table in enumerate(floor.tables):
            messages = _Messages(table, steps, index, now, prefix)
            client.publish(messages.topic("status"), messages.status(), qos=1, retain=True)
            for body in messages.rounds():
                client.publish(messages.topic("round"), body, qos=1)
                sent += 1
            client.publish(messages.topic("state"), messages.state(), qos=1, retain=True)
            for body in messages.events():
                client.publish(messages.topic("event"), body, qos=1)
                sent += 1
            sent += 2
        for _ in range(sent):
            if not acknowledged.acquire(timeout=timeout):
                raise AssertionError(f"the broker did not acknowledge the still floor's {sent} messages")
        floor.messages = sent
        return floor
    finally:
        client.disconnect()
        client.loop_stop()

