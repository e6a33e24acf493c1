"""History at any age: the commands and the console's recall on journals of 1,000, 100,000 and
1,000,000 rounds, as a person runs them.

Run: ``.venv/bin/python bench/history.py [--rounds 1000 100000 1000000] [--runs 3]
[--console 50] [--cache DIR] [--verify]``

**The journals** are bench/restart.py's (built once into ``--cache``, reused): the session of
:func:`station.core.sessions.drive` played on the projection under ``config/station.toml``,
with what a station journals around it (its starts and stops, killed runs, the display's boot,
cards present, pedals, confirmed payouts, the integrity monitor's alerts, corrections, dealer
changes) and the station's own checkpoints of every kind (core, meters, integrity), records
stamped 2.5 s apart (a million rounds span about 275 days). tests/service/
test_generated_journals.py compares their record kinds with journals ``station demo`` writes;
``--verify`` runs ``station journal verify --deep`` on each first (minutes on the largest).

**On each journal**, as subprocesses of the installed ``station``, ``--runs`` times each (the
median CPU seconds and wall seconds, the largest peak RSS from ``wait4``):

- ``station recall --last 10``;
- ``station recall --round`` a round in the middle of the journal (the position of its middle
  checkpoint);
- ``station recall --day`` the journal's last whole gaming day;
- ``station events --since`` an hour before the journal's newest record;
- ``station integrity report --shoe`` the shoe in the middle;

then ``station run`` on a copy of the journal (the console enabled on a free port), a
supervisor signed in, and ``--console`` recall requests of the console (``GET /api/recall``:
the last 10 rounds, then the round in the middle) timed from request to answer; p50 and p99.

Targets (docs/benchmarks.md, "History at any age"): each command under 1 s and 100 MB at a
million rounds and within 1.5x of its 1,000-round figure; the console's recall p99 < 200 ms.
Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.restart import bench_config, cached_journal
from bench.throughput import compile_checkout
from station.core.landmarks import Landmarks
from station.journal import JournalReader
from station.localtime import gaming_day, local, parse_journal_time, zone

REPO = Path(__file__).resolve().parents[1]
#: The simulated table's supervisor (config/station.toml says so; a real table ships none).
SUPERVISOR = ("sam", "5678")


def measured(args: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS MB, exit status) of ``station ARGS``."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "station", *args], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    errors = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode:
        print(f"    {' '.join(args[:3])}: exit {proc.returncode}: {errors.strip()[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def questions(journal: Path, config: Path) -> dict[str, list[str]]:
    """The commands, with what each asks of this journal (a round and a shoe in its middle,
    its last whole gaming day, an hour before its end)."""
    from station.config.options import journal_options

    options = journal_options(journal, config)
    with Landmarks(journal, options) as marks:
        shoe, rounds = marks.position(len(marks) // 2)
    with JournalReader(journal) as reader:
        newest = reader.last()
    assert newest is not None
    tz = zone("Europe/Vienna")
    end = parse_journal_time(newest.time)
    hour_before = local((end - timedelta(hours=1)).isoformat(), tz).strftime("%Y-%m-%d %H:%M:%S")
    last_day = gaming_day((end - timedelta(days=1)).isoformat(), tz, _day_start())
    where = ["--journal", str(journal)]
    return {
        "recall --last 10": ["recall", "--last", "10", *where],
        f"recall --round {shoe}-{max(1, rounds)}": ["recall", "--round", f"{shoe}-{max(1, rounds)}", *where],
        f"recall --day {last_day}": ["recall", "--day", last_day.isoformat(), *where],
        "events --since an hour before the end": ["events", "--since", hour_before, *where],
        f"integrity report --shoe {shoe}": ["integrity", "report", "--shoe", str(shoe), "--config", str(config),
                                            *where],
    }


def _day_start() -> Any:
    from station.localtime import day_start

    return day_start("06:00")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def console_recall(journal: Path, config: Path, runtime: Path, middle: str, requests: int) -> dict[str, list[float]]:
    """``station run`` on ``journal`` with its console; milliseconds of each recall request."""
    port = free_port()
    text = config.read_text().replace("port = 8081", f"port = {port}")
    console_config = runtime / "console.toml"
    runtime.mkdir(parents=True, exist_ok=True)
    console_config.write_text(text)
    env = {**os.environ, "STATION_JOURNAL": str(journal), "XDG_RUNTIME_DIR": str(runtime)}
    proc = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(console_config)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with opener.open(base + "healthz", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the console did not come up") from None
                time.sleep(0.2)
        body = json.dumps({"name": SUPERVISOR[0], "pin": SUPERVISOR[1]}).encode()
        request = urllib.request.Request(base + "api/sign-in", data=body, headers={"Content-Type": "application/json"})
        with opener.open(request, timeout=10) as answer:
            assert json.loads(answer.read()).get("csrf")
        times: dict[str, list[float]] = {"the last 10 rounds": [], f"round {middle}": []}
        for name, query in (("the last 10 rounds", "last=10"), (f"round {middle}", f"round={middle}")):
            for _ in range(requests):
                started = time.perf_counter()
                with opener.open(f"{base}api/recall?{query}", timeout=60) as answer:
                    shown = json.loads(answer.read())
                times[name].append((time.perf_counter() - started) * 1000)
                assert shown.get("ok") and shown.get("rounds"), shown
        return times
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[1000, 100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (the median is the figure)")
    parser.add_argument("--console", type=int, default=50, help="console recall requests of each kind")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dealing-station" / "bench"
    parser.add_argument("--cache", type=Path, default=default_cache, help="where the built journals are kept")
    parser.add_argument("--verify", action="store_true", help="station journal verify --deep on each journal first")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    compile_checkout()
    figures: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-history-") as scratch:
        base = Path(scratch)
        config = bench_config(base)
        for rounds in args.rounds:
            journal, how = cached_journal(args.cache, rounds, config)
            print(f"journal of {rounds:,} rounds: {how}; {journal.stat().st_size / 2**20:,.0f} MB "
                  f"(load average {os.getloadavg()[0]:.2f})")
            if args.verify:
                wall, cpu, rss, status = measured(["journal", "verify", "--deep", "--journal", str(journal)])
                print(f"  verify --deep: {'intact' if status == 0 else f'exit {status}'} in {wall:.0f} s")
            asked = questions(journal, config)
            figures[rounds] = {}
            for name, command in asked.items():
                runs = [measured(command) for _ in range(max(1, args.runs))]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                rss = max(r[2] for r in runs)
                figures[rounds][name.split(" ")[0] + " " + name.split(" ")[1]] = cpu
                print(f"  {name:<44} wall {wall:6.2f} s  CPU {cpu:6.2f} s  peak RSS {rss:6.1f} MB"
                      + ("" if all(r[3] == 0 for r in runs) else "  (an exit status was not 0)"))
            if args.console:
                copy = base / f"console-{rounds}.sqlite3"
                shutil.copyfile(journal, copy)
                middle = next(c for c in asked if c.startswith("recall --round")).split()[-1]
                times = console_recall(copy, config, base / f"run-{rounds}", middle, args.console)
                for name, values in times.items():
                    print(f"  console recall, {name:<30} p50 {percentile(values, 0.5):6.1f} ms  "
                          f"p99 {percentile(values, 0.99):6.1f} ms  max {max(values):6.1f} ms")
                for leftover in base.glob(copy.name + "*"):
                    leftover.unlink()
    sizes = sorted(figures)
    if len(sizes) > 1:
        smallest, largest = sizes[0], sizes[-1]
        for name in figures[largest]:
            print(f"{name} on {largest:,} rounds / on {smallest:,}: CPU "
                  f"{figures[largest][name] / max(figures[smallest][name], 1e-9):.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
