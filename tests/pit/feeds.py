"""Many tables on one broker without many stations: real feeds, recorded and replayed.

A real station's journal (``station demo`` on simulated hardware) is turned into the messages
its outbox publishes, by the outbox's own deriver (:class:`station.floor.derive.FeedDeriver`):
for each journal record, the round and event messages it gives and the table's state after
it. A replayer then publishes that feed for many tables at once, each table its own MQTT
client with its own last will (killing the replayer takes every one of its tables offline, as
a power cut would), at a dealer's pace, each table starting at its own point of the shoe so
the tiles differ.

What a replayed message changes, and why: ``table`` and ``journal_id`` (one per table), and
``time``, the journal time, which becomes the moment the replayer publishes it, as if the
record had just been written (so "journal time to tile" is measurable). ``seq``, ``n``,
``prev`` and every card are the journal's; ``hash`` too, which therefore no longer names a
record with that time: a replayed feed is no anchor. Status messages carry ``pit`` and
``number``.

Run as a process: ``python tests/pit/feeds.py --broker URL --journal J --tables 10 --first 1``;
it prints one line, ``ready``, once every table is online, and stops at SIGTERM or SIGINT
(each table says ``offline``/``stopped``), or dies with SIGKILL (the broker sends each last
will). The tests (tests/pit/) and ``bench/pit.py`` use it.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import signal
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run as a script
    sys.path.insert(0, str(REPO))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

#: At most this many state messages a second per table, as the station's outbox sends.
STATE_INTERVAL_S = 0.25


@dataclass(frozen=True)
class Step:
    """One journal record of the feed: what it gives (``(kind, payload)``, in order) and the
    table's state after it."""

    messages: tuple[tuple[str, dict[str, Any]], ...]
    state: dict[str, Any]

    @property
    def settles(self) -> bool:
        return any(kind == "round" for kind, _ in self.messages)


def record_feed(journal: Path, table: str = "REC") -> list[Step]:
    """The feed the outbox derives from ``journal``, record by record."""
    from station.config.options import journal_options
    from station.floor.derive import FeedDeriver
    from station.journal import JournalReader
    from station.journal.anchors import journal_id_of

    options = journal_options(journal, journal)
    steps: list[Step] = []
    with JournalReader(journal) as reader:
        ident = journal_id_of(reader)
        assert ident is not None, f"{journal} has no record"
        deriver = FeedDeriver(options, table=table, journal_id=ident, devices=("shoe", "display", "pedals"))
        for record in reader.records(0):
            messages = tuple((m.kind, m.payload) for m in deriver.derive(record))
            steps.append(Step(messages, deriver.state()))
    return steps


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def table_name(index: int) -> str:
    return f"BAC-{index:02d}"


def pit_name(index: int) -> str:
    """The pit at ``index`` (from 0): ``A`` .. ``Z``, then ``AA``, ``AB``, ... as a floor names them."""
    name = ""
    while True:
        name = chr(ord("A") + index % 26) + name
        index = index // 26 - 1
        if index < 0:
            return name


def place(index: int, pit_size: int) -> tuple[str, int]:
    """Table ``index`` (from 1)'s pit and number: pits A, B, ... of ``pit_size`` tables each."""
    return pit_name((index - 1) // pit_size), (index - 1) % pit_size + 1


class ReplayedTable:
    """One table of the replay: its own client, its own last will, its place in the feed."""

    def __init__(self, steps: list[Step], index: int, broker: tuple[str, int], prefix: str, pit_size: int,
                 start: int) -> None:
        self.steps = steps
        self.table = table_name(index)
        self.pit, self.number = place(index, pit_size)
        self.laps = 0
        self.journal_id = self._journal_id()
        self.prefix = prefix
        self.position = start % len(steps)
        self.state_at = 0.0
        self.pending_state: dict[str, Any] | None = None
        self.online = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"replay-{self.table}",
                                  protocol=mqtt.MQTTv311)
        self.client.will_set(self.topic("status"), self.status("offline", "connection lost"), qos=1, retain=True)
        self.client.on_connect = self._connected
        self.client.connect_async(*broker, keepalive=10)
        self.client.loop_start()

    def _journal_id(self) -> str:
        return hashlib.sha256(f"{self.table} {self.laps}".encode()).hexdigest()[:16]

    def topic(self, kind: str) -> str:
        return f"{self.prefix}/{self.table}/{kind}"

    def status(self, status: str, reason: str) -> bytes:
        return json.dumps({"v": 1, "kind": "status", "table": self.table, "journal_id": self.journal_id,
                           "status": status, "reason": reason, "software": "replay", "time": now_iso(),
                           "pit": self.pit, "number": self.number}).encode()

    def _connected(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if not reason.is_failure:
            client.publish(self.topic("status"), self.status("online", ""), qos=1, retain=True)
            self.online.set()

    def _stamp(self, payload: dict[str, Any]) -> bytes:
        body = {**payload, "table": self.table, "journal_id": self.journal_id, "time": now_iso()}
        return json.dumps(body, separators=(",", ":")).encode()

    def step(self, now: float) -> None:
        """Publish the next record's messages; its state within STATE_INTERVAL_S."""
        step = self.steps[self.position]
        self.position = (self.position + 1) % len(self.steps)
        if self.position == 0:  # the feed begins again: as a new journal (its numbers start at 1 again)
            self.laps += 1
            self.journal_id = self._journal_id()
        for kind, payload in step.messages:
            self.client.publish(self.topic(kind), self._stamp(payload), qos=1)
        self.pending_state = step.state
        self.flush_state(now)

    def flush_state(self, now: float) -> None:
        if self.pending_state is not None and now - self.state_at >= STATE_INTERVAL_S:
            self.client.publish(self.topic("state"), self._stamp(self.pending_state), qos=1, retain=True)
            self.pending_state, self.state_at = None, now

    def stop(self) -> None:
        """An orderly stop says so, when the broker is there to hear it."""
        if self.client.is_connected():
            said = self.client.publish(self.topic("status"), self.status("offline", "stopped"), qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                said.wait_for_publish(5)
        self.client.disconnect()
        self.client.loop_stop()


def replay(steps: list[Step], *, broker: tuple[str, int], prefix: str, first: int, tables: int, pit_size: int,
           round_s: float, stop: threading.Event, ready: Any = None) -> None:
    """Replay ``steps`` for tables ``first`` .. ``first + tables - 1`` until ``stop``: every
    table deals a round about every ``round_s`` seconds (the feed's records evenly spaced)."""
    rounds = max(1, sum(step.settles for step in steps))
    interval = round_s * rounds / len(steps)
    replayed = [ReplayedTable(steps, first + i, broker, prefix, pit_size, start=(first + i) * 131)
                for i in range(tables)]
    for table in replayed:
        if not table.online.wait(30):
            raise SystemExit(f"{table.table}: the broker did not take the connection")
    if ready is not None:
        ready()
    began = time.monotonic()
    ticks = 0
    while not stop.is_set():
        # The tables take turns within an interval, so their messages do not all leave at once.
        for offset, table in enumerate(replayed):
            due = began + (ticks + offset / len(replayed)) * interval
            if stop.wait(max(0.0, due - time.monotonic())):
                break
            now = time.monotonic()
            table.step(now)
            for other in replayed:
                other.flush_state(now)
        ticks += 1
    for table in replayed:
        table.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/pit/feeds.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--broker", required=True, help="mqtt://HOST:PORT")
    parser.add_argument("--journal", required=True, type=Path, help="a real station's journal to replay")
    parser.add_argument("--prefix", default="dealing-station")
    parser.add_argument("--first", type=int, default=1, help="the first table's number (BAC-NN)")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--pit-size", type=int, default=10, help="tables per pit (A, B, ...)")
    parser.add_argument("--round-s", type=float, default=20.0, help="seconds per round at each table")
    args = parser.parse_args(argv)
    host, _, port = args.broker.removeprefix("mqtt://").partition(":")
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    steps = record_feed(args.journal)
    replay(steps, broker=(host, int(port or 1883)), prefix=args.prefix, first=args.first, tables=args.tables,
           pit_size=args.pit_size, round_s=args.round_s, stop=stop, ready=lambda: print("ready", flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
