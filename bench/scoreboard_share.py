"""The web scoreboard's share of a busy machine: pictures for the pit, the table's rate kept.

Run: ``.venv/bin/python bench/scoreboard_share.py [--seconds 10] [--viewers 20]
[--classes idle,batch10]``

``station run`` (a real subprocess) on the simulated table with a simulated dealer at full
speed and the web scoreboard enabled, as ``bench/web_load.py`` starts it. For each scheduling
class of the scoreboard's process (set on the running process from outside, as ``chrt`` and
``renice`` would: ``idle`` is ``SCHED_IDLE``, the class of the scoreboard until issue 24;
``batchN`` is ``SCHED_BATCH`` at nice N, ``niceN`` the normal class at nice N), four windows
of ``--seconds``:

1. quiet: the table alone;
2. viewers: ``--viewers`` Server-Sent Events viewers reading every picture;
3. hog: a CPU-bound program at nice 0 on every CPU (what a busy kiosk browser or a
   technician's command is to the table PC), no viewers;
4. hog and viewers.

Prints, per class and window, the table's rate (inputs journaled per second) and what the
viewers got: pictures per viewer (fewest, most) against the pictures due (four a second at
most, the scoreboard's own limit, while the dealer deals at full speed) and the longest gap
any viewer saw. The figures that matter: with the hog, the viewers still get pictures
(window 4), and the viewers cost the table little (window 2 against 1, window 4 against 3).
Asserts nothing; ``tests/web/test_scoreboard_process.py`` checks the pictures under a hog.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_load import (  # type: ignore[import-not-found]  # bench/web_load.py, by sys.path
    Station,
    free_port,
    rate,
    run_load,
    write_config,
)

HOG = "while True:\n    pass\n"


def scoreboard_pid(station_pid: int) -> int:
    for task in Path(f"/proc/{station_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"station-scoreboard" in Path(f"/proc/{child}/cmdline").read_bytes():
                    return int(child)
    raise SystemExit("no scoreboard process found")


def apply_class(pid: int, name: str) -> None:
    """Put ``pid`` (every thread of it) in the class ``name``: idle, batchN or niceN."""
    tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    for tid in tids:
        if name == "idle":
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            continue
        policy = os.SCHED_BATCH if name.startswith("batch") else os.SCHED_OTHER
        os.sched_setscheduler(tid, policy, os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, tid, int(name.removeprefix("batch").removeprefix("nice")))


def window(station: Station, url: str, seconds: float, viewers: int, hog: bool) -> dict[str, Any]:
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(os.cpu_count() or 1)] if hog else []
    try:
        found: dict[str, Any] = {}
        if viewers:
            loader = threading.Thread(target=lambda: found.setdefault(
                "report", run_load(url, seconds + 1.0, viewers, 0, 0, 0)))
            loader.start()
            inputs, *_ = rate(station, seconds)
            loader.join(seconds + 60)
            report = found.get("report")
        else:
            inputs, *_ = rate(station, seconds)
            report = None
    finally:
        for process in hogs:
            process.kill()
            process.wait(10)
    result: dict[str, Any] = {"inputs_per_s": inputs}
    if report is not None:
        result.update(pictures=(min(report.viewer_events), max(report.viewer_events)),
                      due=int(4 * report.seconds), longest_gap_s=max(report.viewer_last_gap_s))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--classes", default="idle,batch10", help="comma-separated: idle, batchN, niceN")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="scoreboard-share-") as folder:
        port = free_port()
        config = write_config(Path(folder), port)
        station = Station(config, Path(folder) / "station.log")
        try:
            station.wait_dealing()
            url = f"http://127.0.0.1:{port}/"
            for name in args.classes.split(","):
                apply_class(scoreboard_pid(station.process.pid), name)
                rows = {
                    "quiet": window(station, url, args.seconds, 0, hog=False),
                    "viewers": window(station, url, args.seconds, args.viewers, hog=False),
                    "hog": window(station, url, args.seconds, 0, hog=True),
                    "hog + viewers": window(station, url, args.seconds, args.viewers, hog=True),
                }
                print(f"scoreboard in class {name} (load average {os.getloadavg()[0]:.1f}):")
                for label, row in rows.items():
                    line = f"  {label:14} {row['inputs_per_s']:7.0f} inputs/s"
                    if "pictures" in row:
                        low, high = row["pictures"]
                        line += (f"; pictures per viewer {low}-{high} of {row['due']} due;"
                                 f" longest gap {row['longest_gap_s']:.2f} s")
                    print(line, flush=True)
        finally:
            station.stop()


if __name__ == "__main__":
    main()
