"""Restart figures: ``station run`` from start to READY on journals of 1,000, 100,000 and
1,000,000 rounds, and its resident memory at READY.

Run: ``.venv/bin/python bench/restart.py [--rounds 1000 100000 1000000] [--runs 3] [--cache DIR]``

**How the journals are made.** A station writing a million rounds would take weeks of a
simulated dealer's time, so the journals are written directly, as the station would have
written them, by the very code the station runs:

1. the session of :func:`station.core.sessions.drive` (bets, some refused, cards from shuffled
   8-deck shoes, cut cards, shoe ends, irregularities with their decisions, device faults) is
   played on the projection (:class:`station.core.projection.Projection`) under the
   configuration the bench then runs (``config/station.toml`` with the simulated dealer off),
   with what a station journals around it (:class:`StationLife`: its starts and stops, a
   killed run now and then, the display's boot, cards present, the pedals, confirmed payouts,
   the integrity monitor's alerts), so the journal holds every record kind a real station
   writes (tests/service/test_generated_journals.py compares them);
2. each input becomes a record of the hash chain (seq, time, kind, canonical payload, previous
   hash, SHA-256), inserted in large transactions without an fsync each (the one thing the
   station does differently: its group commits are durable one by one); the records are
   stamped 2.5 s apart, so a million rounds span about 275 days;
3. the checkpoints are the station's own: after every shoe end and at most every
   ``EVERY_RECORDS`` records the projection's state (:func:`checkpoint_payload`), followed by the
   meters' (the station's :class:`MetersService`, folding every record) and the integrity
   monitor's (a real :class:`IntegrityMonitor` fed every output, as in the station);
4. the journal starts with the Configuration record the station writes, so ``station run``
   accepts it, and its head is set last. ``station journal verify --deep`` finds it intact.

Building the million-round journal is some minutes of CPU (every input applied, every round's
integrity edges computed): it is built once into ``--cache`` (default
``$XDG_CACHE_HOME/dealing-station/bench``) and reused while the code's checkpoint layouts and the
configuration stay the same (they are part of its name). Each run copies the cached journal
first (the station appends to a journal it opens).

Then for a new journal and for each built one, ``--runs`` times: ``station run`` as a subprocess
with ``$NOTIFY_SOCKET``, the time from spawning it to ``READY=1``, the station's own CPU seconds
until then and its RSS then (bench/throughput.py's measure), with the load average before each
journal's runs. Targets: READY < 1 s and RSS < 80 MB on every journal, and the million-round
READY within 1.3x of the 1,000-round one. On a shared machine the wall time is mostly waiting
for a CPU; the CPU seconds are the work, and compare the journals whatever the load. Prints the
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.throughput import compile_checkout, time_to_ready
from station.config.options import core_options, new_journal_record, software_record
from station.core import outputs as out
from station.core.checkpoints import CHECKPOINT, EVERY_RECORDS, checkpoint_payload
from station.core.machine import TableMachine
from station.core.projection import ProjectedRecord, Projection
from station.core.sessions import drive
from station.core.state import STATE_FORMAT
from station.event_codec import event_to_dict
from station.events import (
    Actor,
    AlertAcknowledged,
    ButtonPressed,
    CardsPresent,
    DealerAction,
    DeviceBooted,
    Event,
    IntegrityAlert,
    PayoutConfirmationRequired,
    PayoutsConfirmed,
    StationStarted,
    StationStopped,
)
from station.integrity.monitor import IntegrityMonitor, IntegritySettings
from station.integrity.monitor_state import MONITOR_FORMAT, monitor_state, settings_json
from station.integrity.service import INTEGRITY_CHECKPOINT
from station.journal import Journal, JournalRecord, canonical_json, record_hash
from station.journal.store import SCHEMA_VERSION, format_time
from station.meters.checkpoint import METERS_FORMAT
from station.meters.service import MetersService
from station.service.config import load_config

REPO = Path(__file__).resolve().parents[1]
SEED = 2026
STEP = timedelta(seconds=2.5)  # between two records
FLUSH = 20_000  # records per insert transaction


def bench_config(folder: Path) -> Path:
    """The default configuration with the simulated dealer off: the station opens its
    simulated devices and waits for a dealer, as a real table waits for a person."""
    text = (REPO / "config" / "station.toml").read_text().replace("simulated = true", "simulated = false")
    path = folder / "station.toml"
    path.write_text(text)
    return path


class ChainWriter:
    """Appends records to a journal file directly: the chain computed here, batched inserts."""

    def __init__(self, path: Path, start: datetime) -> None:
        with Journal(path):
            pass  # the station's own layout, at its current version
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA synchronous = OFF")
        self.seq, self.prev, self.moment = 0, "0" * 64, start
        self.rows: list[tuple[Any, ...]] = []

    def add(self, kind: str, payload: dict[str, Any]) -> JournalRecord:
        self.seq += 1
        self.moment += STEP
        time_text = format_time(self.moment)
        text = canonical_json(payload)
        digest = record_hash(self.seq, time_text, kind, text, self.prev)
        self.rows.append((self.seq, time_text, kind, text, self.prev, digest))
        record = JournalRecord(self.seq, time_text, kind, payload, self.prev, digest)
        self.prev = digest
        if len(self.rows) >= FLUSH:
            self.flush()
        return record

    def flush(self) -> None:
        self.conn.execute("BEGIN")
        self.conn.executemany("INSERT INTO records (seq, time, kind, payload, prev_hash, hash) "
                              "VALUES (?, ?, ?, ?, ?, ?)", self.rows)
        self.conn.execute("UPDATE head SET last_seq = ?, last_hash = ? WHERE id = 1", (self.seq, self.prev))
        self.conn.execute("COMMIT")
        self.rows = []

    def close(self) -> None:
        self.flush()
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()


#: What the generated journal holds besides the dealer's inputs (:class:`StationLife`); part of a
#: cached journal's name, so a journal cached before a change of it is built again.
LIFE = 2
#: Rounds between two orderly restarts of the generated station, and between two killed ones.
SUPERVISOR = Actor("supervisor", "sam")
RESTART_EVERY = 2000
KILLED_EVERY = 5000


class StationLife:
    """What a real station journals around the dealer's inputs, added to the generated session
    so that the journal holds every record kind a station writes (tests/service/
    test_generated_journals.py compares them with a real ``station run``'s): its starts and
    orderly stops, a killed run now and then, the display's boot, the shoe's cards present at
    each new shoe, the pedals for the actions mapped to them, each round's payouts confirmed
    when the table asks for it, the integrity monitor's alerts, posted as its service posts
    them (each finding once), and a supervisor acknowledging the open ones at each shoe change
    (the alert register then keeps the latest acknowledged, as at a table)."""

    def __init__(self, feed: Callable[[Event], None], machine: TableMachine, buttons: dict[str, str],
                 confirm_payouts: bool) -> None:
        self._feed = feed
        self._machine = machine
        self._confirm = confirm_payouts
        self._pedal = {action: button for button, action in buttons.items()}
        self._raised: set[str] = set()
        self._alerts: list[IntegrityAlert] = []
        self._version = str(software_record().get("version", ""))
        self._rounds_at_start = 0
        self._stopped = "none"

    def start(self) -> None:
        self._feed(StationStarted(self._version, "0" * 64, "generated", self._stopped))
        if self._confirm != self._machine.confirm_payouts:  # what the console says at its start
            self._feed(PayoutConfirmationRequired(self._confirm))
        self._feed(DeviceBooted("display", "power on"))

    def found(self, findings: list[Any]) -> None:
        for finding in findings:
            if finding.key not in self._raised:
                self._raised.add(finding.key)
                self._alerts.append(IntegrityAlert(finding.code, finding.severity, finding.detail, finding.key,
                                                   finding.shoe, finding.round_id, finding.stop, finding.data))

    def feed(self, event: Event) -> None:
        """The dealer's input as a station journals it, with what goes with it."""
        machine = self._machine
        if isinstance(event, DealerAction) and event.action == "next_round" and machine.payouts_hold():
            current = machine.round
            self._feed(PayoutsConfirmed(current.round_id if current is not None else ""))
        button = self._pedal.get(event.action) if isinstance(event, DealerAction) and not event.box else None
        self._feed(ButtonPressed("pedals", button) if button else event)
        if isinstance(event, DealerAction) and event.action == "shuffle_done":
            self._feed(CardsPresent("shoe"))
            for alert in machine.open_alerts():
                self._feed(AlertAcknowledged(alert.ident, SUPERVISOR, "seen at the shoe change"))
        while self._alerts:
            self._feed(self._alerts.pop(0))
        settled = machine.rounds_settled + machine.rounds_voided
        if machine.state == "betting" and settled - self._rounds_at_start >= RESTART_EVERY:
            self._rounds_at_start = settled
            if settled % KILLED_EVERY:
                self._feed(StationStopped("SIGTERM"))
                self._stopped = "clean"
            else:
                self._stopped = "unclean"  # killed: no StationStopped
            self.start()


def build(path: Path, rounds: int, config: Path) -> tuple[int, float]:
    """Write the journal of ``rounds`` rounds at ``path``; (records, seconds)."""
    started = time.perf_counter()
    loaded = load_config(config)
    options = core_options(loaded.config, loaded.path)
    section = loaded.config.integrity
    settings = IntegritySettings(repeat_depth=section.repeat_depth, advantage_percent=section.advantage_percent,
                                 significance=section.significance, window_rounds=section.window_rounds)
    writer = ChainWriter(path, datetime(2026, 1, 1, 6, 0, tzinfo=UTC))
    projection = Projection(options)
    monitor = IntegrityMonitor(options, settings)
    life: StationLife | None = None

    def projected(record: JournalRecord, event: Event | None = None) -> ProjectedRecord:
        """The record (holding ``event``, or the station's own) through the projection, then the
        meters, as the core loop's record hearers hear it."""
        step = projection.take_event(event, record)
        meters.take(step)  # its checkpoint follows each of the projection's
        return step

    def note(kind: str, payload: dict[str, Any]) -> None:
        projected(writer.add(kind, payload))

    meters = MetersService(options, loaded.config.table.timezone, loaded.config.table.gaming_day_start, note=note)
    projected(writer.add("Configuration", new_journal_record(loaded.config)))
    checkpointed = writer.seq

    def take(record: JournalRecord, event: Event | None) -> bool:
        """The record through the projection and the monitor, as the station takes it."""
        step = projected(record, event)
        ended = False
        for output in step.outputs:
            if isinstance(output, IntegrityMonitor.KINDS):
                found = monitor.feed(output)
                if life is not None:
                    life.found(found)
            elif isinstance(output, out.ShoeEnded):
                ended = True
            elif isinstance(output, out.Checkpointed):
                note = writer.add(INTEGRITY_CHECKPOINT, {
                    "format": MONITOR_FORMAT, "at": output.at, "checkpoint": output.seq,
                    "settings": settings_json(settings), "monitor": monitor_state(monitor)})
                projected(note)
        return ended

    def feed(event: Event) -> None:
        nonlocal checkpointed
        ended = take(writer.add(event.kind, event_to_dict(event)), event)
        if ended or projection.seq - checkpointed >= EVERY_RECORDS:
            record = writer.add(CHECKPOINT, checkpoint_payload(projection, "shoe_end" if ended else "records"))
            checkpointed = record.seq
            take(record, None)

    console = loaded.config.console
    life = StationLife(feed, projection.machine, dict(loaded.config.dealer.buttons),
                       console.enabled and console.confirm_payouts)
    life.start()
    drive(SEED, rounds, projection.machine, life.feed)
    feed(StationStopped("SIGTERM"))
    writer.close()
    return writer.seq, time.perf_counter() - started


def cached_journal(cache: Path, rounds: int, config: Path) -> tuple[Path, str]:
    """The journal of ``rounds`` rounds in the cache, built when missing; (path, how it came)."""
    key = hashlib.sha256(config.read_bytes()).hexdigest()[:10]
    path = cache / (f"journal-{rounds}-seed{SEED}-state{STATE_FORMAT}-monitor{MONITOR_FORMAT}-meters{METERS_FORMAT}"
                    f"-life{LIFE}-{key}.sqlite3")
    if path.exists():
        return path, "cached" + _migrated(path)
    cache.mkdir(parents=True, exist_ok=True)
    building = path.with_suffix(".building")
    for leftover in cache.glob(building.name + "*"):
        leftover.unlink()
    records, seconds = build(building, rounds, config)
    for suffix in ("-wal", "-shm", ".lock"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    os.replace(building, path)
    return path, f"built in {seconds:.0f} s, {records:,} records"


def _migrated(path: Path) -> str:
    """A journal cached by an older layout is migrated in the cache once, as the station does
    when it first opens a journal to write (otherwise every run would migrate its copy and the
    READY measured would include it)."""
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("SELECT version FROM schema_version").fetchone()[0]
    finally:
        conn.close()
    if version >= SCHEMA_VERSION:
        return ""
    started = time.perf_counter()
    with Journal(path):
        pass
    return f", migrated from layout {version} to {SCHEMA_VERSION} in {time.perf_counter() - started:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[1000, 100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=3, help="READY measurements per journal (the median is the figure)")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dealing-station" / "bench"
    parser.add_argument("--cache", type=Path, default=default_cache, help="where the built journals are kept")
    parser.add_argument("--build-only", action="store_true", help="build the journals into the cache and stop")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    figures: dict[int, tuple[float, float]] = {}  # rounds -> median READY, median CPU seconds
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as scratch:
        base = Path(scratch)
        config = bench_config(base)
        journals: list[tuple[int, Path | None]] = [(0, None)] if not args.build_only else []
        for rounds in args.rounds:
            built, how = cached_journal(args.cache, rounds, config)
            print(f"journal of {rounds:,} rounds: {how}; {built.stat().st_size / 2**20:,.0f} MB")
            journals.append((rounds, built))
        if args.build_only:
            return
        compile_checkout()
        for rounds, cached in journals:
            journal = base / f"journal-{rounds}.sqlite3"
            if cached is not None:
                shutil.copyfile(cached, journal)
            readies, cpus, rss = [], [], []
            print(f"{'a new journal' if cached is None else f'{rounds:,} rounds'} "
                  f"(load average {os.getloadavg()[0]:.2f}):")
            for run in range(max(1, args.runs)):
                if cached is None:
                    for leftover in base.glob(journal.name + "*"):
                        leftover.unlink()  # a new journal every time
                ready, station_rss, _, cpu = time_to_ready(journal, base / f"run-{rounds}-{run}", config)
                readies.append(ready)
                cpus.append(cpu)
                rss.append(station_rss)
                print(f"  run {run + 1}: READY after {ready:.3f} s ({cpu:.2f} s of the station's CPU), "
                      f"station RSS {station_rss:.1f} MB")
            figures[rounds] = statistics.median(readies), statistics.median(cpus)
            print(f"  median READY {figures[rounds][0]:.3f} s (target < 1 s), CPU {figures[rounds][1]:.2f} s, "
                  f"RSS {max(rss):.1f} MB at most (target < 80 MB)")
            for leftover in base.glob(journal.name + "*"):
                leftover.unlink()
    sizes = [rounds for rounds in figures if rounds]
    if len(sizes) > 1:
        smallest, largest = min(sizes), max(sizes)
        print(f"READY on {largest:,} rounds / on {smallest:,} rounds: "
              f"{figures[largest][0] / figures[smallest][0]:.2f}x (target <= 1.3x); "
              f"CPU {figures[largest][1] / figures[smallest][1]:.2f}x")


if __name__ == "__main__":
    main()
