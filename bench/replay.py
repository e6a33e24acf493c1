"""Replay and core-loop figures: how long a restart takes, how many events the loop takes.

Prints:

- the time to replay a journal of N rounds (default 1,000) into a fresh machine, as a
  restart does (open the loop = read, decode and apply every record);
- the machine alone on the same events (no journal, no decoding);
- live core-loop throughput, events per second, journaling each batch with one fsync
  (``synchronous=FULL``), for batches of 1 and of 8 events.

Usage: ``python bench/replay.py [--rounds 1000] [--live-events 2000] [--dir DIR]``
The session is :func:`station.core.sessions.generate` (bets, cut cards, shoe ends,
irregularities), the same for every run.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path

from station.core.loop import CoreLoop
from station.core.machine import TableMachine
from station.core.sessions import generate
from station.event_codec import event_to_dict
from station.events import Event
from station.journal import Journal


def write_journal(path: Path, events: list[Event]) -> None:
    """Write the events as the loop would (kind + event dict), in groups of 64."""
    with Journal(path) as journal:
        for i in range(0, len(events), 64):
            journal.append_many([(e.kind, event_to_dict(e)) for e in events[i : i + 64]])


def time_replay(path: Path, repeats: int) -> tuple[list[float], int]:
    times = []
    count = 0
    for _ in range(repeats):
        started = time.perf_counter()
        loop = CoreLoop(path)
        times.append(time.perf_counter() - started)
        count = loop.replayed
        loop.close()
    return times, count


def time_machine(events: list[Event], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        machine = TableMachine()
        started = time.perf_counter()
        for event in events:
            machine.apply(event)
        times.append(time.perf_counter() - started)
    return times


def time_live(directory: Path, events: list[Event], batch: int) -> float:
    path = directory / f"live-{batch}.sqlite3"
    loop = CoreLoop(path)
    started = time.perf_counter()
    for i in range(0, len(events), batch):
        for event in events[i : i + batch]:
            loop.post(event)
        loop.run_pending()
    elapsed = time.perf_counter() - started
    loop.close()
    return len(events) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--live-events", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="where to write the journals (default: a temp dir)")
    args = parser.parse_args()

    events = generate(seed=2026, rounds=args.rounds)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        journal = directory / "replay.sqlite3"
        write_journal(journal, events)
        replay, count = time_replay(journal, args.repeats)
        machine = time_machine(events, args.repeats)
        live = events[: args.live_events]
        live_1 = time_live(directory, live, 1)
        live_8 = time_live(directory, live, 8)

    print(f"python {platform.python_version()} on {platform.machine()}, {args.rounds} rounds = {count} events")
    print(f"replay on open (read + decode + apply): median {statistics.median(replay):.3f} s, "
          f"best {min(replay):.3f} s  (target < 1 s)")
    print(f"machine alone on the same events:       median {statistics.median(machine):.3f} s "
          f"({count / statistics.median(machine):,.0f} events/s)")
    print(f"live loop, 1 event per fsync:  {live_1:,.0f} events/s")
    print(f"live loop, 8 events per fsync: {live_8:,.0f} events/s")


if __name__ == "__main__":
    main()
