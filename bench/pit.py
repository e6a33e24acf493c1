"""The pit page under a floor's load: many tables into one mosquitto, one ``station pit``, ten viewers.

Run: ``.venv/bin/python bench/pit.py [--tables 50] [--replayers 5] [--round-s 20] [--real 3]
[--viewers 10] [--browsers 1] [--seconds 240]``

* A fresh Debian mosquitto on a free local port.
* ``--tables`` tables replayed from a real station's journal (``station demo`` on simulated
  hardware, derived by the outbox's own deriver: tests/pit/feeds.py) by ``--replayers``
  processes, each table its own MQTT client, a round every ``--round-s`` seconds at each table
  (the feed's records evenly spaced: a state every card, as a dealer deals). A replayed
  message's journal time is the moment the replayer publishes it.
* ``--real`` real stations (``station run`` on simulated hardware with [floor] on, the dealer at
  a human pace, ``--real-pace-ms`` an action): their journal times are their journals'.
* The real ``station pit`` process, and ``--viewers`` viewers of its page: ``--browsers`` of them
  Debian's Chromium showing the page (the time a tile's result changed in the page's DOM), the
  rest event-stream readers in this process that parse every picture as a screen does.

Reports, for the rounds whose journal time falls in the ``--seconds`` measured (after a warm-up),
the delay from a round's journal time to its tile's update at p50, p99 and max, apart for the
replayed and the real tables and for the browser and the stream readers; the pit process's CPU
(percent of one CPU over the window) and its memory (RSS at the end, and its peak); pictures
per second; the machine's load average before and after (the machine is shared: say it).
Target: p99 < 500 ms. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.floor.helpers import Broker, floor_config, run_station, station_env  # noqa: E402
from tests.pit.helpers import (  # noqa: E402
    Pictures,
    PitProcess,
    make_journal,
    pit_config,
    start_replayer,
    stop_all,
)

WATCH = """
() => {
  window.seenResults = {};
  const note = () => {
    for (const tile of document.querySelectorAll('.tile')) {
      const round = tile.querySelector('.outcome')?.dataset.round;
      const key = `${tile.dataset.table} ${round}`;
      if (round && !(key in window.seenResults)) window.seenResults[key] = Date.now();
    }
  };
  new MutationObserver(note).observe(document.getElementById('tiles'), {childList: true, subtree: true});
  note();
}
"""


def _epoch(journal_time: str) -> float:
    return datetime.fromisoformat(journal_time.replace("Z", "+00:00")).timestamp()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _chromium_cpu_seconds() -> float:
    """CPU seconds of every Chromium process this bench started (browser, GPU, renderers)."""
    def parent(pid: int) -> int:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "cmdline").read_bytes().split(b"\0")[0].endswith(b"chromium"):
                continue
            pid = int(entry.name)
            while pid > 1 and pid != os.getpid():
                pid = parent(pid)
            if pid == os.getpid():
                total += _cpu_seconds(int(entry.name))
        except OSError:
            continue
    return total


def _memory_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def _line(label: str, delays: list[float], viewers: int) -> str:
    """One line of figures; ``delays`` has one per round and viewer."""
    if not delays:
        return f"  {label:<34} no rounds"
    rounds = f"{len(delays) // max(1, viewers)} rounds x {viewers} viewer{'s' if viewers != 1 else ''}"
    return (f"  {label:<34} {rounds:<22} p50 {_percentile(delays, 0.5) * 1000:5.0f} ms   "
            f"p99 {_percentile(delays, 0.99) * 1000:5.0f} ms   max {max(delays) * 1000:5.0f} ms")


def _delays(seen: dict[tuple[str, str], float], journal: dict[tuple[str, str], str], tables: set[str],
            window: tuple[float, float]) -> list[float]:
    out = []
    for key, at in seen.items():
        written = journal.get(key, "")
        if key[0] in tables and written and window[0] <= _epoch(written) <= window[1]:
            out.append(at - _epoch(written))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="replayed tables")
    parser.add_argument("--replayers", type=int, default=5, help="processes replaying them")
    parser.add_argument("--round-s", type=float, default=20.0, help="seconds per round at each replayed table")
    parser.add_argument("--real", type=int, default=3, help="real stations (station run) besides")
    parser.add_argument("--real-pace-ms", type=int, default=1500, help="the real stations' dealer pace")
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--browsers", type=int, default=1, help="of the viewers, Chromium pages")
    parser.add_argument("--seconds", type=float, default=240.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=15.0)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"load average before {os.getloadavg()[0]:.1f}")
    print(f"{args.tables} replayed tables ({args.replayers} processes, a round every {args.round_s:g} s each), "
          f"{args.real} real stations (dealer {args.real_pace_ms} ms an action), {args.viewers} viewers "
          f"({args.browsers} Chromium), {args.seconds:g} s measured")
    started: list[subprocess.Popen[Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-pit-") as scratch:
        folder = Path(scratch)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker").start()
        journal = make_journal(folder / "recorded.sqlite3")
        page = PitProcess(pit_config(folder / "pit.toml", broker.url, title="Bench pit",
                                     extra_pit=f"max_connections = {args.viewers * 4 + 16}"), folder / "pit.log")
        page.start()
        streams: list[Pictures] = []
        try:
            per = -(-args.tables // max(1, args.replayers))
            real_tables = {f"BAC-{i:02d}" for i in range(args.tables + 1, args.tables + args.real + 1)}
            for first in range(1, args.tables + 1, per):
                count = min(per, args.tables - first + 1)
                started.append(start_replayer(journal, broker.url, first=first, tables=count, round_s=args.round_s,
                                              log=folder / f"replay-{first}.log"))
            for table in sorted(real_tables):
                home = folder / table
                home.mkdir()
                config = floor_config(home / "station.toml", broker.url, table=table, pace_ms=args.real_pace_ms,
                                      extra='pit = "Z"\nnumber = 1')
                started.append(run_station(config, home / "journal.sqlite3", station_env(home), home / "log"))
            streams = [Pictures(page.url) for _ in range(args.viewers - args.browsers)]
            browser_results: dict[str, float] = {}
            with _browsers(args.browsers, page.url) as pages:
                time.sleep(args.warmup)
                for view in pages:
                    view.evaluate(WATCH)
                cpu_before, chromium_before, began = _cpu_seconds(page.pid), _chromium_cpu_seconds(), time.time()
                pictures_before = streams[0].pictures if streams else 0
                time.sleep(args.seconds)
                cpu = (_cpu_seconds(page.pid) - cpu_before) / (time.time() - began) * 100
                chromium = (_chromium_cpu_seconds() - chromium_before) / (time.time() - began) * 100
                ended = time.time()
                rss, peak = _memory_mib(page.pid)
                pictures = ((streams[0].pictures - pictures_before) / (ended - began)) if streams else float("nan")
                time.sleep(2)  # the last rounds of the window reach every viewer
                for view in pages:
                    for key, at in view.evaluate("window.seenResults").items():
                        browser_results.setdefault(key, at / 1000)
            replayed = {f"BAC-{i:02d}" for i in range(1, args.tables + 1)}
            window = (began, ended)
            journal_times: dict[tuple[str, str], str] = {}
            stream_delays: dict[str, list[float]] = {"replayed": [], "real": []}
            for stream in streams:
                journal_times.update(stream.journal)
                for name, tables in (("replayed", replayed), ("real", real_tables)):
                    stream_delays[name] += _delays(stream.seen, stream.journal, tables, window)
            seen_browser: dict[tuple[str, str], float] = {}
            for key, at in browser_results.items():
                table, _, round_id = key.partition(" ")
                seen_browser[(table, round_id)] = at
            print(f"pit process: CPU {cpu:.1f}% of one CPU, RSS {rss:.0f} MiB (peak {peak:.0f} MiB), "
                  f"{pictures:.1f} pictures/s")
            if args.browsers:
                print(f"Chromium ({args.browsers} page{'s' if args.browsers != 1 else ''}, all its processes): "
                      f"CPU {chromium:.1f}% of one CPU")
            print("journal time of a round -> its tile updated:")
            readers, pages_n = len(streams), args.browsers
            print(_line("replayed tables, stream readers", stream_delays["replayed"], readers))
            print(_line("real stations, stream readers", stream_delays["real"], readers))
            if args.browsers:
                print(_line("replayed tables, Chromium", _delays(seen_browser, journal_times, replayed, window),
                            pages_n))
                print(_line("real stations, Chromium", _delays(seen_browser, journal_times, real_tables, window),
                            pages_n))
            print(f"load average after {os.getloadavg()[0]:.1f}")
        finally:
            for stream in streams:
                stream.close()
            stop_all(started, wait_s=30)
            page.stop()
            broker.stop()


class _browsers:
    """``count`` Chromium pages on ``url`` (none: nothing is launched)."""

    def __init__(self, count: int, url: str) -> None:
        self.count, self.url = count, url
        self._playwright: Any = None
        self._browser: Any = None

    def __enter__(self) -> list[Any]:
        if not self.count:
            return []
        from playwright.sync_api import sync_playwright

        from tests.browser import CHROMIUM, CHROMIUM_ARGS

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        pages = []
        for _ in range(self.count):
            view = self._browser.new_page(viewport={"width": 1920, "height": 1080})
            view.goto(self.url)
            pages.append(view)
        return pages

    def __exit__(self, *exc: object) -> None:
        if self._browser is not None:
            self._browser.close()
            self._playwright.stop()


if __name__ == "__main__":
    main()
