"""Service figures: rounds per second through the full stack, time to READY, resident memory.

Run: ``.venv/bin/python bench/throughput.py [--shoes N]``

1. **Rounds per second** of ``station demo --fast`` (a real subprocess): the simulated dealer
   slides cards out of the simulated shoe over a pseudo-terminal, presses the simulated USB
   pedals through pyusb, and every input is journaled with ``synchronous=FULL`` before it is
   applied. Timed from the first shoe record to the last round record on its stdout, so start-up
   is not counted.
2. **Start to READY**: ``station run`` on the default (simulated) configuration with a fresh
   journal and ``$NOTIFY_SOCKET`` pointing at a socket here; the time from spawning the process
   to the ``READY=1`` datagram (Python start-up, imports, journal replay, devices, self-tests).
   Also measured with a journal of the demo's rounds, to include a real replay.
3. **Resident memory**: the peak RSS of the demo's largest process (``ru_maxrss``), and for
   ``station run`` once it is ready: the RSS of the station's process, and the proportional
   set size (PSS) of the station together with its simulated-table child (forked from it, so
   most of its pages are the station's, shared; PSS counts each shared page once in all).

Prints the figures; asserts nothing (targets: >= 200 rounds/s, < 1.5 s, < 80 MB). The rate is the
median of ``--runs`` demo runs (5 by default), printed with its range and each run's figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def demo_rate(shoes: int, journal: Path, config: str | None = None) -> tuple[float, int, float]:
    """(rounds/s, rounds, peak RSS MB) of one ``station demo --fast`` run (of ``config``, when
    given: e.g. one with the floor feed on, as bench/floor.py writes it)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "demo", "--shoes", str(shoes), "--fast", "--json", "--journal", str(journal),
         *(["-c", config] if config else [])],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
    )
    assert proc.stdout is not None
    first = last = 0.0
    rounds = 0
    for line in proc.stdout:
        record = json.loads(line)
        now = time.perf_counter()
        if record["type"] == "shoe" and not first:
            first = now
        elif record["type"] == "round":
            rounds += 1
            last = now
    if proc.wait() != 0:
        raise SystemExit("station demo failed")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return rounds / (last - first), rounds, max(peak_kb, before) / 1024


def _kb(pid: int, path: str, field: str) -> int:
    for line in Path(f"/proc/{pid}/{path}").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (proc(5): fields 14 and 15 of stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def compile_checkout() -> None:
    """Byte-compile the checkout's station and drivers, as installing the station does (pip and
    the Debian package compile every module): a checkout run with ``PYTHONDONTWRITEBYTECODE``
    would otherwise compile all of them again at every start, and time that instead."""
    import compileall

    for package in ("station", "drivers"):
        compileall.compile_dir(REPO / package, quiet=1)


def time_to_ready(journal: Path, runtime: Path, config: Path | None = None) -> tuple[float, float, float, float]:
    """(seconds from spawn to READY=1, station RSS MB, station + table PSS MB, the station's own
    CPU seconds until then) of ``station run`` (of ``config``, when given; bench/restart.py
    measures its journals with this too). The CPU seconds are the work, whatever the load: on a
    busy shared machine the wall time is mostly waiting for a CPU."""
    runtime.mkdir(parents=True, exist_ok=True)
    notify = runtime / "notify.sock"
    if notify.exists():
        notify.unlink()
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(notify))
    receiver.settimeout(30)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify), "STATION_JOURNAL": str(journal),
           "XDG_RUNTIME_DIR": str(runtime)}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "station", "run", *(["-c", str(config)] if config else [])],
                            env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            message = receiver.recv(4096).decode()
            if "READY=1" in message.split("\n"):
                ready = time.perf_counter() - started
                break
        cpu = _cpu_seconds(proc.pid)
        rss_kb = _kb(proc.pid, "status", "VmRSS")
        pss_kb = sum(_kb(pid, "smaps_rollup", "Pss") for pid in [proc.pid, *_children(proc.pid)])
        return ready, rss_kb / 1024, pss_kb / 1024, cpu
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        receiver.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shoes", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5,
                        help="demo runs; the median is the figure (a shared VM varies by 15%% from run to run)")
    parser.add_argument("--config", help="station configuration for the demo runs (default: the default one)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    compile_checkout()
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as scratch:
        base = Path(scratch)
        rates = []
        for run in range(max(1, args.runs)):
            journal = base / "demo.sqlite3"
            for leftover in base.glob("demo.sqlite3*"):
                leftover.unlink()
            rate, rounds, peak = demo_rate(args.shoes, journal, args.config)
            rates.append(rate)
            print(f"  run {run + 1}: {rounds} rounds, {rate:.1f} rounds/s")
        print(f"station demo --fast: {rounds} rounds, median {statistics.median(rates):.1f} rounds/s over "
              f"{len(rates)} runs (range {min(rates):.1f}-{max(rates):.1f}; target >= 200), "
              f"peak RSS of its largest process {peak:.1f} MB")
        fresh, rss, pss, _ = time_to_ready(base / "fresh.sqlite3", base / "run1")
        print(f"station run, fresh journal: READY after {fresh:.3f} s (target < 1.5), at READY: station RSS "
              f"{rss:.1f} MB, station and simulated table PSS {pss:.1f} MB (target < 80)")
        replay, rss2, pss2, _ = time_to_ready(base / "demo.sqlite3", base / "run2")
        print(f"station run, journal of {rounds} rounds: READY after {replay:.3f} s, at READY: station RSS "
              f"{rss2:.1f} MB, station and simulated table PSS {pss2:.1f} MB")


if __name__ == "__main__":
    main()
