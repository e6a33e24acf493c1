"""Meters figures: ``station meters`` over a journal of 100,000 rounds, from its checkpoints.

Run: ``.venv/bin/python bench/meters.py [--rounds 100000] [--runs 5] [--cache DIR]``

The journal is bench/restart.py's (the station's own code writes it: the session of
:func:`station.core.sessions.drive` through the projection, with the checkpoints of the
projection, of the integrity monitor and of the meters after each one, records 2.5 s apart, so
100,000 rounds span some 43 gaming days), built once into the cache and reused.

Then, ``--runs`` times each, as a subprocess from spawn to exit (wall time, and the CPU time
the command used, which is the work whatever the load of the machine):

1. ``station meters`` (the last gaming day), the figure of the target (< 2 s);
2. ``station meters --day all --json`` (every gaming day);
3. once, ``station meters --day all --json --from-start`` (every record read through the
   projection instead of the checkpoints), to show what the checkpoints save; its figures must
   equal those of 2.

Prints the figures with the load average; asserts nothing but that 2 and 3 agree.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.restart import bench_config, cached_journal
from bench.throughput import compile_checkout

REPO = Path(__file__).resolve().parents[1]


def timed(*args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, standard output) of ``station ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "station", *args], cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"station {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="runs of each command; the median is the figure")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dealing-station" / "bench"
    parser.add_argument("--cache", type=Path, default=default_cache, help="where the built journals are kept")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-meters-") as scratch:
        config = bench_config(Path(scratch))
        journal, how = cached_journal(args.cache, args.rounds, config)
    print(f"journal of {args.rounds:,} rounds: {how}; {journal.stat().st_size / 2**20:,.0f} MB")
    compile_checkout()
    location = ["--journal", str(journal)]
    for label, extra in (("station meters", []), ("station meters --day all --json", ["--day", "all", "--json"])):
        walls, cpus = [], []
        print(f"{label} (load average {os.getloadavg()[0]:.2f}):")
        out = ""
        for run in range(max(1, args.runs)):
            wall, cpu, out = timed("meters", *location, *extra)
            walls.append(wall)
            cpus.append(cpu)
            print(f"  run {run + 1}: {wall:.3f} s ({cpu:.2f} s CPU)")
        print(f"  median {statistics.median(walls):.3f} s wall, {statistics.median(cpus):.2f} s CPU (target < 2 s)")
        if extra:
            quick = json.loads(out)
            read = quick["read"]
            print(f"  read from meters checkpoint record {read['checkpoint']}, then {read['records_read']:,} records "
                  f"to record {read['last_seq']:,}; {len(quick['gaming_days'])} gaming days, "
                  f"{sum(d['totals']['rounds'] for d in quick['days']):,} rounds")
    print(f"station meters --day all --json --from-start (load average {os.getloadavg()[0]:.2f}):")
    wall, cpu, out = timed("meters", *location, "--day", "all", "--json", "--from-start")
    slow = json.loads(out)
    same = {**slow, "read": None} == {**quick, "read": None}
    print(f"  {wall:.1f} s ({cpu:.1f} s CPU), {slow['read']['records_read']:,} records; "
          f"the same figures as from the checkpoints: {same}")
    if not same:
        raise SystemExit("the figures from the checkpoints differ from those of every record")


if __name__ == "__main__":
    main()
