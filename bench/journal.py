"""Journal benchmarks: append rate at synchronous=FULL, and reading back / verifying a shoe's worth.

    .venv/bin/python bench/journal.py                 # every measurement, default sizes
    .venv/bin/python bench/journal.py --only verify   # one measurement
    .venv/bin/python bench/journal.py --list

Figures go to stdout, one line per figure; record them in docs/benchmarks.md ("Journal").
Each measurement is a function registered with :func:`measurement`; a later measurement (for
example replaying the journal through the state machine) is added the same way and can reuse
:func:`build_round_journal` for its input.

The journal lives in ``--dir`` (default: a temporary directory), which must be on the disk
whose fsync you want to measure: the append figures are dominated by the fsync of every commit.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.cards import FULL_DECK, Card
from station.event_codec import event_from_dict, event_to_dict
from station.events import ButtonPressed, CardDrawn, CardsReturned, Event, Timer
from station.games.baccarat.rules import play_round
from station.journal import Journal, JournalReader
from station.journal.verify import verify


@dataclass
class Settings:
    directory: Path
    appends: int
    group_size: int
    rounds: int


Measurement = Callable[[Settings], None]
MEASUREMENTS: dict[str, tuple[str, Measurement]] = {}


def measurement(name: str, description: str) -> Callable[[Measurement], Measurement]:
    """Register a measurement under ``name`` (run in registration order)."""

    def register(fn: Measurement) -> Measurement:
        MEASUREMENTS[name] = (description, fn)
        return fn

    return register


def report(name: str, figure: str) -> None:
    print(f"{name:<16} {figure}", flush=True)


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _fresh(directory: Path, name: str) -> Path:
    path = directory / name
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def _card_payload(n: int) -> tuple[str, dict[str, Any]]:
    event = CardDrawn(device="shoe", card=FULL_DECK[n % len(FULL_DECK)])
    return event.kind, event_to_dict(event)


# --- input: a realistic journal of baccarat rounds --------------------------------------------


def round_records(number: int, draw: Callable[[], Card]) -> list[tuple[str, dict[str, Any]]]:
    """The records one baccarat round leaves in the journal: about 12 (inputs and decisions)."""
    items: list[Event] = [ButtonPressed(device="pedals", button="open_bets"), Timer(name="betting_closed")]
    cards: list[Card] = []

    def dealt() -> Card:
        card = draw()
        cards.append(card)
        return card

    result = play_round(dealt)
    items += [CardDrawn(device="shoe", card=card) for card in cards]
    records = [(event.kind, event_to_dict(event)) for event in items]
    records.append(
        (
            "RoundDecided",
            {
                "round": number,
                "outcome": result.outcome.value,
                "player": [c.code for c in result.player],
                "banker": [c.code for c in result.banker],
                "player_total": result.player_total,
                "banker_total": result.banker_total,
            },
        )
    )
    records.append(
        ("Settlement", {"round": number, "paid": {"banker": 19_500, "player": 0, "tie": 0}, "collected": 42_000})
    )
    for event in (
        Timer(name="results_shown"),
        ButtonPressed(device="pedals", button="next_round"),
        CardsReturned(device="shuffler", count=len(cards)),
    ):
        records.append((event.kind, event_to_dict(event)))
    return records


def build_round_journal(path: Path, rounds: int, seed: int = 1) -> int:
    """Write ``rounds`` rounds (one group commit per round, to build quickly); return the record count."""
    rng = random.Random(seed)
    shoe: list[Card] = []

    def draw() -> Card:
        if not shoe:
            shoe.extend(FULL_DECK * 8)
            rng.shuffle(shoe)
        return shoe.pop()

    with Journal(path) as journal:
        for number in range(1, rounds + 1):
            journal.append_many(round_records(number, draw))
        return journal.count()


# --- measurements ------------------------------------------------------------------------------


@measurement("append", "single appends, one fsync each (synchronous=FULL)")
def append_single(settings: Settings) -> None:
    path = _fresh(settings.directory, "bench-append.sqlite3")
    latencies: list[float] = []
    with Journal(path) as journal:
        start = time.perf_counter()
        for n in range(settings.appends):
            before = time.perf_counter()
            journal.append(*_card_payload(n))
            latencies.append(time.perf_counter() - before)
        elapsed = time.perf_counter() - start
    report(
        "append",
        f"{settings.appends} events in {elapsed:.2f} s: {settings.appends / elapsed:,.0f} events/s; "
        f"latency p50 {_percentile(latencies, 0.5) * 1000:.2f} ms, p99 {_percentile(latencies, 0.99) * 1000:.2f} ms, "
        f"max {max(latencies) * 1000:.2f} ms",
    )


@measurement("append_group", "group commits of --group events, one fsync per group")
def append_grouped(settings: Settings) -> None:
    path = _fresh(settings.directory, "bench-group.sqlite3")
    size = settings.group_size
    groups = max(1, settings.appends // size)
    latencies: list[float] = []
    with Journal(path) as journal:
        start = time.perf_counter()
        for g in range(groups):
            items = [_card_payload(g * size + i) for i in range(size)]
            before = time.perf_counter()
            journal.append_many(items)
            latencies.append(time.perf_counter() - before)
        elapsed = time.perf_counter() - start
    events = groups * size
    report(
        "append_group",
        f"{events} events in {groups} groups of {size} in {elapsed:.2f} s: {events / elapsed:,.0f} events/s "
        f"({groups / elapsed:,.0f} groups/s); group latency p50 {_percentile(latencies, 0.5) * 1000:.2f} ms, "
        f"p99 {_percentile(latencies, 0.99) * 1000:.2f} ms",
    )


@measurement("verify", "read back and verify a journal of --rounds baccarat rounds")
def read_and_verify(settings: Settings) -> None:
    path = _fresh(settings.directory, "bench-rounds.sqlite3")
    start = time.perf_counter()
    count = build_round_journal(path, settings.rounds)
    build = time.perf_counter() - start
    size = os.path.getsize(path)
    report(
        "verify", f"journal of {settings.rounds} rounds: {count} records, {size / 1e6:.1f} MB (built in {build:.2f} s)"
    )

    start = time.perf_counter()
    with JournalReader(path) as reader:
        read = sum(1 for _ in reader.records())
    elapsed = time.perf_counter() - start
    report("verify", f"read back {read} records (rows + JSON) in {elapsed * 1000:.0f} ms")

    start = time.perf_counter()
    with JournalReader(path) as reader:
        decoded = sum(1 for r in reader.records() if r.payload.get("type") and bool(event_from_dict(r.payload)))
    elapsed = time.perf_counter() - start
    report("verify", f"read back and rebuild {decoded} typed events in {elapsed * 1000:.0f} ms")

    runs = []
    for _ in range(3):
        start = time.perf_counter()
        result = verify(path)
        runs.append(time.perf_counter() - start)
    assert result.ok and result.records == count, result.problem
    report("verify", f"verify {count} records: {statistics.median(runs) * 1000:.0f} ms (median of 3), intact")


@measurement("replay", "replay a --rounds journal through the core loop, as after a crash")
def replay_through_the_machine(settings: Settings) -> None:
    """The issue's second figure: the time to rebuild the table's state from a 1,000-round
    journal. The session generator and timing live in bench/replay.py, which measures more."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from replay import time_replay, write_journal  # type: ignore[import-not-found]  # bench/replay.py, by sys.path

    from station.core.sessions import generate

    path = _fresh(settings.directory, "bench-replay.sqlite3")
    write_journal(path, generate(seed=2026, rounds=settings.rounds))
    times, count = time_replay(path, 3)
    report("replay", f"{settings.rounds} rounds = {count} events replayed on open: median "
                     f"{statistics.median(times):.3f} s, best {min(times):.3f} s (target < 1 s)")


def machine() -> str:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    except OSError:
        pass
    return (
        f"{platform.machine()} {cpu or platform.processor()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", action="append", choices=list(MEASUREMENTS), help="run only this measurement (repeatable)"
    )
    parser.add_argument("--list", action="store_true", help="list the measurements and exit")
    parser.add_argument("--dir", type=Path, help="directory for the journals (default: a temporary directory)")
    parser.add_argument("--appends", type=int, default=2000, help="events appended by the append measurements")
    parser.add_argument("--group", type=int, default=8, help="events per group commit")
    parser.add_argument("--rounds", type=int, default=1000, help="baccarat rounds in the verified journal")
    args = parser.parse_args(argv)
    if args.list:
        for name, (description, _) in MEASUREMENTS.items():
            print(f"{name:<16} {description}")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-journal-", dir=args.dir) as scratch:
        settings = Settings(Path(scratch), args.appends, args.group, args.rounds)
        print(f"machine          {machine()}")
        print(f"journal dir      {scratch}")
        for name in args.only or list(MEASUREMENTS):
            MEASUREMENTS[name][1](settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
