"""The floor feed at scale: many stations publishing to one local mosquitto, one subscriber.

Run: ``.venv/bin/python bench/floor.py [--stations 50] [--shoes 1] [--backlog-rounds 120]``

Three measurements, each against a fresh Debian mosquitto (``/usr/sbin/mosquitto``) on a free
local port and one paho subscriber in this process (QoS 1, persistent session):

1. **Many stations**: ``--stations`` real ``station demo --fast --floor`` processes (each with its
   own journal, its simulated table and its outbox process, publishing as ``T-nn-demo``: a demo
   never speaks for its table, docs/demo.md) started together, each dealing
   ``--shoes`` shoe(s) at full speed. Reports the messages per second the subscriber received,
   the end-to-end lag of every round and event message (journal time of its record to the
   subscriber's receipt, one clock: the same machine) at p50/p99/max, and checks that every
   message the journals give (derived offline) arrived: nothing lost, duplicates counted.
2. **One station at full speed**: the same with one station, the lag without fifty others
   competing for two CPUs.
3. **A paced floor**: ``--stations`` ``station run`` with their dealers at ``--floor-pace-ms``
   an action, measured for ``--floor-seconds`` once every feed is online: the lag a pit sees.
4. **Backlog after an outage**: a ``station run`` deals (``--pace-ms`` per dealer action); the
   broker is stopped until the journal holds ``--backlog-rounds`` rounds more than the
   subscriber has, then started again. Reports the time from the broker's return until the
   subscriber has the first message past the backlog (everything before it came in order), the
   backlog's records and messages, and the drain rate. The table deals on meanwhile. The
   default, 120 rounds, is ten minutes of a table dealing a round every 5 seconds, several
   times faster than any real table.

Asserts nothing; prints the figures (targets: nothing lost, lag p99 < 100 ms at the demo's
full speed, a 10-minute backlog drained in < 5 s). docs/benchmarks.md has the results.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.floor.helpers import Broker, expected_feed  # noqa: E402  (after the path is set)

PREFIX = "bench"


def _epoch(journal_time: str) -> float:
    return datetime.fromisoformat(journal_time.replace("Z", "+00:00")).timestamp()


class Collector:
    """The one subscriber: every message with its arrival time."""

    def __init__(self, port: int) -> None:
        self.lock = threading.Lock()
        self.received: list[tuple[float, str, dict[str, Any]]] = []
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-collector", clean_session=False)
        self.client.on_connect = lambda c, *_: c.subscribe(f"{PREFIX}/#", qos=1)
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(1, 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.subscribed.wait(10)

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        payload = json.loads(message.payload)
        with self.lock:
            self.received.append((now, message.topic.rsplit("/", 1)[1], payload))

    def sequenced(self) -> list[tuple[float, dict[str, Any]]]:
        with self.lock:
            return [(at, p) for at, kind, p in self.received if kind in ("round", "event")]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _config(folder: Path, table: str, broker_url: str, pace_ms: int = 0, dealer: bool = True) -> Path:
    text = (REPO / "config" / "station.toml").read_text().replace("pace_ms = 1500", f"pace_ms = {pace_ms}")
    if not dealer:
        text = text.replace("simulated = true", "simulated = false")
    text += f'\n[floor]\nenabled = true\nbroker = "{broker_url}"\ntable = "{table}"\ntopic_prefix = "{PREFIX}"\n'
    path = folder / f"{table}.toml"
    path.write_text(text)
    return path


def _env(folder: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "RUNTIME_DIRECTORY": str(folder / "run"),
            "XDG_STATE_HOME": str(folder / "state")}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _check(collector: Collector, journals: dict[str, Path]) -> tuple[int, int, int]:
    """(expected, missing, duplicates) over every journal."""
    expected_keys = set()
    for table, journal in journals.items():
        for message in expected_feed(journal, table):
            expected_keys.add((message["journal_id"], message["kind"], message["n"]))
    seen: dict[tuple[str, str, int], int] = {}
    for _, payload in collector.sequenced():
        key = (payload["journal_id"], payload["kind"], payload["n"])
        seen[key] = seen.get(key, 0) + 1
    missing = len(expected_keys - set(seen))
    duplicates = sum(count - 1 for count in seen.values())
    return len(expected_keys), missing, duplicates


def _missing(collector: Collector, journal: Path, table: str) -> int:
    have = {(p["journal_id"], p["kind"], p["n"]) for _, p in collector.sequenced() if p["table"] == table}
    return sum(1 for m in expected_feed(journal, table) if (m["journal_id"], m["kind"], m["n"]) not in have)


def _catch_up(folder: Path, collector: Collector, journals: dict[str, Path], broker_url: str) -> tuple[int, float]:
    """Start again, with no dealer, every station whose demo ended before its feed had published
    everything: its outbox publishes the rest from the journal. (stations restarted, seconds)"""
    behind = [table for table, journal in journals.items() if _missing(collector, journal, table)]
    started = time.perf_counter()
    for batch in range(0, len(behind), 10):
        running = []
        for table in behind[batch:batch + 10]:
            station_dir = folder / table
            config = _config(station_dir, table, broker_url, dealer=False)
            running.append((table, subprocess.Popen(
                [sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journals[table])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(station_dir))))
        deadline = time.monotonic() + 300
        while any(_missing(collector, journals[t], t) for t, _ in running) and time.monotonic() < deadline:
            time.sleep(1)
        for _, process in running:
            process.send_signal(signal.SIGTERM)
            process.wait(60)
    return len(behind), time.perf_counter() - started


def many_stations(folder: Path, stations: int, shoes: int) -> None:
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker").start()
    collector = Collector(broker.port)
    journals: dict[str, Path] = {}
    processes = []
    started = time.perf_counter()
    for index in range(1, stations + 1):
        name = f"T-{index:02d}"
        table = f"{name}-demo"  # what `station demo --floor` publishes as (docs/demo.md); the catch-up too
        station_dir = folder / table
        station_dir.mkdir()
        journals[table] = station_dir / "journal.sqlite3"
        config = _config(station_dir, name, broker.url)
        with (station_dir / "demo.log").open("w") as log:
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "station", "demo", "--shoes", str(shoes), "--fast", "--floor", "-c", str(config),
                 "--journal", str(journals[table])], stdout=subprocess.DEVNULL, stderr=log, env=_env(station_dir)))
    codes = [p.wait(1800) for p in processes]
    failed = [table for table, code in zip(journals, codes, strict=True) if code != 0]
    for table in failed[:1]:
        print(f"  {table} failed: {(folder / table / 'demo.log').read_text()[-1500:]}")
    dealt = time.perf_counter() - started
    time.sleep(2)
    before_catch_up = collector.sequenced()
    restarted, catch_up_s = _catch_up(folder, collector, journals, broker.url)
    time.sleep(1)
    collector.close()
    broker.stop()
    sequenced = collector.sequenced()
    count, missing, duplicates = _check(collector, journals)
    lags = [(at - _epoch(p["time"])) * 1000 for at, p in before_catch_up]
    # Live lag: records journaled once the station's feed was online (the records dealt while
    # its outbox process was still starting are a backlog, drained right after).
    with collector.lock:
        online: dict[str, float] = {}
        for at, kind, payload in collector.received:
            if kind == "status" and payload["status"] == "online":
                online.setdefault(payload["table"], at)
    live = [(at - _epoch(p["time"])) * 1000 for at, p in before_catch_up
            if p["table"] in online and _epoch(p["time"]) >= online[p["table"]]]
    arrivals = [at for at, _ in before_catch_up]
    span = max(arrivals) - min(arrivals) if arrivals else float("nan")
    rounds = sum(1 for _, p in sequenced if p["kind"] == "round")
    print(f"{stations} station(s) x {shoes} shoe(s), station demo --fast, all at once: {rounds} rounds, "
          f"{dealt:.1f} s from the first start to the last exit ({len(failed)} demo(s) failed)")
    print(f"  while they ran: {len(before_catch_up)} round/event messages over {span:.1f} s: "
          f"{len(before_catch_up) / span:.0f} messages/s")
    print(f"  end-to-end lag (journal time -> subscriber), records journaled once the table's feed was online "
          f"({len(live)} messages): p50 {_percentile(live, 0.5):.1f} ms, p99 {_percentile(live, 0.99):.1f} ms, "
          f"max {max(live, default=float('nan')):.1f} ms")
    if lags:
        print(f"  all messages, those dealt while the outbox was starting included: p50 {_percentile(lags, 0.5):.1f} "
              f"ms, p99 {_percentile(lags, 0.99):.1f} ms, max {max(lags):.1f} ms")
    print(f"  {restarted} station(s) had stopped before their feed had published everything: started again "
          f"without a dealer, their outboxes published the rest from the journal in {catch_up_s:.1f} s")
    print(f"  expected {count} round/event messages: {missing} lost, {duplicates} duplicates")


def paced_floor(folder: Path, stations: int, pace_ms: int, seconds: float) -> None:
    """``stations`` ``station run`` dealing at ``pace_ms`` an action for ``seconds``: a floor at a
    brisk pace rather than a burst, the lag a pit would see."""
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker").start()
    collector = Collector(broker.port)
    journals: dict[str, Path] = {}
    processes = []
    for index in range(1, stations + 1):
        table = f"P-{index:02d}"
        station_dir = folder / table
        station_dir.mkdir()
        journals[table] = station_dir / "journal.sqlite3"
        config = _config(station_dir, table, broker.url, pace_ms=pace_ms)
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journals[table])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(station_dir)))
    # Measured once every table's feed is online, for ``seconds``.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with collector.lock:
            online = {p["table"] for _, kind, p in collector.received if kind == "status" and p["status"] == "online"}
        if len(online) == stations:
            break
        time.sleep(0.5)
    window_start = time.time() + 5  # the backlog dealt while the outboxes started is drained by then
    time.sleep(seconds + 5)
    window_end = time.time()
    for process in processes:
        process.send_signal(signal.SIGTERM)
    failed = sum(1 for process in processes if process.wait(120) != 0)
    time.sleep(2)
    collector.close()
    broker.stop()
    measured = [(at, p) for at, p in collector.sequenced() if window_start <= _epoch(p["time"]) <= window_end]
    lags = [(at - _epoch(p["time"])) * 1000 for at, p in measured]
    count, missing, duplicates = _check(collector, journals)
    print(f"{stations} stations (station run, dealer at {pace_ms} ms an action), {seconds:.0f} s measured once all "
          f"were online: {sum(1 for _, p in measured if p['kind'] == 'round')} rounds, "
          f"{len(measured) / seconds:.0f} round/event messages/s; {failed} station(s) failed")
    print(f"  end-to-end lag: p50 {_percentile(lags, 0.5):.1f} ms, p99 {_percentile(lags, 0.99):.1f} ms, "
          f"max {max(lags, default=float('nan')):.1f} ms; expected {count} messages: {missing} lost (a stop's "
          f"drain may leave some for the next start), {duplicates} duplicates")


def _wait_for_rounds(journal: Path, rounds: int) -> int:
    """Follow the journal (one deriver, fed as records come) until it holds ``rounds`` rounds;
    the seq of its last record then."""
    from station.config.options import journal_options
    from station.floor.derive import FeedDeriver
    from station.journal import JournalReader

    deriver = FeedDeriver(journal_options(journal, journal), table="BACKLOG", journal_id="-")
    with JournalReader(journal) as reader:
        while True:
            for record in reader.records(deriver.position.seq):
                deriver.derive(record)
            if deriver.position.counters["round"].n >= rounds:
                return deriver.position.seq
            time.sleep(0.2)


def backlog(folder: Path, rounds: int, pace_ms: int) -> None:
    (folder / "broker-backlog").mkdir()
    broker = Broker(folder / "broker-backlog", persistence=True).start()
    collector = Collector(broker.port)
    station_dir = folder / "backlog"
    station_dir.mkdir()
    journal = station_dir / "journal.sqlite3"
    config = _config(station_dir, "BACKLOG", broker.url, pace_ms=pace_ms)
    log = (station_dir / "station.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journal)],
                               stdout=log, stderr=subprocess.STDOUT, env=_env(station_dir))
    try:
        while sum(1 for _, p in collector.sequenced() if p["kind"] == "round") < 5:
            time.sleep(0.1)
        broker.stop()
        outage = time.perf_counter()
        heard = max(p["n"] for _, p in collector.sequenced() if p["kind"] == "round")
        tip = _wait_for_rounds(journal, heard + rounds)
        cursor_line = subprocess.run([sys.executable, "-m", "station", "floor", "cursor", "--journal", str(journal),
                                      "--json"], capture_output=True, text=True, env=_env(station_dir)).stdout
        stored = json.loads(cursor_line)["cursor"]["seq"]
        outage_s = time.perf_counter() - outage
        backlog_messages = [m for m in expected_feed(journal, "BACKLOG") if stored < m["seq"] <= tip]
        back = time.time()
        broker.start()
        while not any(p["seq"] > tip for _, p in collector.sequenced()):
            time.sleep(0.01)
        drained = time.time() - back
        # When the station's outbox was connected again (its log line), and when the last
        # message of the backlog (the last with seq <= tip) arrived.
        connected = max(_epoch(json.loads(line)["timestamp"]) for line in (station_dir / "station.log").read_text()
                        .splitlines() if '"floor_connected"' in line)
        last_of_backlog = max(at for at, p in collector.sequenced() if p["seq"] <= tip)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
        log.close()
    collector.close()
    broker.stop()
    count, missing, duplicates = _check(collector, {"BACKLOG": journal})
    print(f"backlog after a {outage_s:.1f} s outage: {tip - stored} records, {len(backlog_messages)} round/event "
          f"messages ({rounds}+ rounds; dealer at {pace_ms} ms an action, still dealing)")
    print(f"  the station reconnected {connected - back:.2f} s after the broker was back; the backlog's last "
          f"message arrived {last_of_backlog - connected:.2f} s after that "
          f"({(tip - stored) / max(last_of_backlog - connected, 1e-6):.0f} records/s); "
          f"{drained:.2f} s from the broker's return to the first message past the backlog")
    print(f"  {missing} of {count} messages lost, {duplicates} duplicates")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stations", type=int, default=50)
    parser.add_argument("--shoes", type=int, default=1)
    parser.add_argument("--backlog-rounds", type=int, default=120, help="rounds in the backlog (default: ten "
                        "minutes of a round every 5 s)")
    parser.add_argument("--pace-ms", type=int, default=20, help="the dealer's pace while the backlog builds")
    parser.add_argument("--floor-pace-ms", type=int, default=300, help="the dealers' pace on the paced floor")
    parser.add_argument("--floor-seconds", type=float, default=60)
    parser.add_argument("--skip", action="append", default=[], choices=["many", "one", "floor", "backlog"])
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}; {Broker.version()}")
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as scratch:
        base = Path(scratch)
        if "many" not in args.skip:
            (base / "many").mkdir()
            many_stations(base / "many", args.stations, args.shoes)
        if "one" not in args.skip:
            (base / "one").mkdir()
            many_stations(base / "one", 1, args.shoes)
        if "floor" not in args.skip:
            (base / "floor").mkdir()
            paced_floor(base / "floor", args.stations, args.floor_pace_ms, args.floor_seconds)
        if "backlog" not in args.skip:
            backlog(base, args.backlog_rounds, args.pace_ms)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
