"""The pit page under a floor's load: many tables into one mosquitto, one ``station pit``, ten viewers.

Run: ``.venv/bin/python bench/pit.py [--tables 50] [--replayers 5] [--pit-size 25] [--round-s 20]
[--real 3] [--viewers 10] [--browsers 3] [--views floor,pit,pages] [--seconds 240]``

* A fresh Debian mosquitto on a free local port.
* ``--tables`` tables replayed from a real station's journal (``station demo`` on simulated
  hardware, derived by the outbox's own deriver: tests/pit/feeds.py) by ``--replayers``
  processes, each table its own MQTT client, in pits of ``--pit-size`` tables (A, B, ...), a
  round every ``--round-s`` seconds at each table (the feed's records evenly spaced: a state
  every card, as a dealer deals). A replayed message's journal time is the moment the
  replayer publishes it.
* ``--real`` real stations (``station run`` on simulated hardware with [floor] on, in pit Z,
  the dealer at a human pace, ``--real-pace-ms`` an action): their journal times are their
  journals'.
* The real ``station pit`` process (``[pit] page_seconds`` = ``--page-seconds``), and
  ``--viewers`` viewers: ``--browsers`` of them Debian's Chromium showing the page, the views
  of ``--views`` in turn (``floor``: the floor overview ``/``; ``pit``: one pit's first page,
  ``?pit=A&page=1``, which stays; ``pages``: another pit whose pages turn, ``?pit=B``;
  ``pit:C`` or ``pages:C`` name the pit), each page in a browser context of its own, on a
  ``--screen`` (1920x1080), the pages view on a ``--pages-screen`` (1280x720: a pit of 25
  tables fits one 1920x1080 screen, and takes three pages on this one); the rest
  event-stream readers in this process (tests/pit/helpers.py's ``Pictures``), the views of
  ``--readers`` in turn (``all``, ``floor``, ``pit``: the pits one after the other from A,
  or ``pit:C``). The default for 7 readers: 1 all, 2 floor, 4 pits (A, B, C, D).
* An MQTT subscriber to every table's rounds in this process, beside the pit: what the
  replayers and the broker add before the pit has a round.

Reports, for the rounds whose journal time falls in the ``--seconds`` measured (after a
warm-up), the delay from a round's journal time to the moment a viewer had it, at p50, p99 and
max, for each reader view and each page apart (and the replayed and the real tables apart):
for a stream reader, the picture that carried it; for a pit page, its tile's
``.outcome[data-round]`` in the DOM (only rounds of tables whose tile was on the page when the
round was written: a page that turns shows the others when their page comes, counted apart);
for the floor overview, the directory's ``<option data-round>`` of the table. A floor reader's
directory entry carries no time: every delay is from the round's journal time as the ``all``
reader (and any pit reader) learned it, so at least one ``all`` reader is needed. Each page's
main-thread busy share (its long tasks, over 50 ms each, observed from before the page loaded,
summed over the window; and every task, Chromium's TaskDuration), and each viewer's bytes per
second of the event stream (a page's event data as framed, counted as it arrives). The pit
process's CPU (percent of one CPU over the window) and memory (RSS at the end, and its peak);
the CPU of the broker, the replayers, this process (the stream readers), Playwright's driver
and every process of Chromium (browser, zygotes, GPU, utility, renderers: bench/pit_browser.py
says how they are found); the machine's load average before and after (the machine may be
shared: say it). A screenshot of each page at the window's end, in ``--screenshots``
(bench/out/ by default).

Targets (issue 42, 1,000 tables in 40 pits, 10 viewers, 3 of them pages, on 2 CPUs): journal
time to tile p99 < 500 ms for each page and the stream readers, each page's main thread busy
< 25%, the pit process < 25% of one CPU and < 150 MiB. Says which were met; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.pit_browser import BenchGroups, Chromium, PageView, view_address  # noqa: E402
from tests.floor.helpers import Broker, Subscriber, floor_config, run_station, station_env  # noqa: E402
from tests.pit.feeds import place, table_name  # noqa: E402
from tests.pit.helpers import (  # noqa: E402
    Pictures,
    PitProcess,
    make_journal,
    pit_config,
    start_replayer,
    stop_all,
)

REAL_PIT = "Z"
TARGET_P99_S = 0.5
TARGET_BUSY = 0.25
TARGET_CPU_PERCENT = 25.0
TARGET_RSS_MIB = 150.0


def _epoch(journal_time: str) -> float:
    return datetime.fromisoformat(journal_time.replace("Z", "+00:00")).timestamp()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _memory_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


@dataclass
class Reader:
    """One stream reader: its view (``all``, ``floor``, ``pit:A``), its ``Pictures``, and what
    it had at the window's start and end. Its dictionaries are copied under its lock while its
    thread waits (issue 42: iterating them while the thread wrote stopped the bench at 1,000
    tables with "dictionary changed size during iteration")."""

    view: str
    pictures: Pictures
    start: tuple[int, int, int] = (0, 0, 0)  # (pictures, bytes, gaps)
    end: tuple[int, int, int] = (0, 0, 0)
    seen: dict[tuple[str, str], float] = field(default_factory=dict)
    journal: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.view.partition(":")[0]

    def counters(self) -> tuple[int, int, int]:
        with self.pictures.lock:
            return self.pictures.pictures, self.pictures.bytes, self.pictures.gaps

    def take(self) -> None:
        """What it had (copies), then it stops reading."""
        self.seen, self.journal = self.pictures.figures()
        self.pictures.close()


@dataclass(frozen=True)
class Floor:
    """Which table is in which pit, and which tables are replayed or real."""

    pit_of: dict[str, str]
    replayed: frozenset[str]
    real: frozenset[str]

    @property
    def pits(self) -> list[str]:
        """The replayed tables' pits, in order (A, B, ...)."""
        return sorted({self.pit_of[table] for table in self.replayed})

    def tables(self, view: str, pit: str | None) -> set[str]:
        """The tables a view shows (a floor overview's directory has every table)."""
        if view in ("floor", "all") or pit is None:
            return set(self.pit_of)
        return {table for table, its in self.pit_of.items() if its == pit}


def _views(spec: str, count: int, pits: list[str], *, readers: bool) -> list[tuple[str, str | None]]:
    """``count`` views from a list cycled (``floor,pit,pages`` or ``all,floor,pit``), each
    with its pit: named (``pit:C``), or the pits in turn (pages: the second pit, for readers
    every ``pit`` the next one)."""
    names = [name.strip() for name in spec.split(",") if name.strip()]
    out: list[tuple[str, str | None]] = []
    next_pit = 0
    for index in range(count):
        kind, _, pit = names[index % len(names)].partition(":")
        if kind in ("floor", "all"):
            out.append((kind, None))
            continue
        if kind not in ("pit", "pages") or (readers and kind == "pages"):
            raise SystemExit(f"a view is floor, pit, pages{', all' if readers else ''} or kind:PIT, not {kind!r}")
        if not pit:
            if readers or kind == "pit":
                pit, next_pit = pits[next_pit % len(pits)], next_pit + 1
            else:
                pit = pits[1 % len(pits)]
        out.append((kind, pit))
    return out


@dataclass
class Figures:
    """The delays of one line: one per round and viewer; ``expected`` rounds (per viewer)."""

    delays: list[float] = field(default_factory=list)
    expected: int = 0
    viewers: int = 0
    late: int = 0  # shown when the table's page came round

    def text(self) -> str:
        if not self.delays:
            return f"no rounds of {self.expected}"
        per = len(self.delays) / max(1, self.viewers)
        share = f"{per:.0f} of {self.expected / max(1, self.viewers):.0f} rounds"
        if self.late:
            share += f" (+{self.late / max(1, self.viewers):.0f} on another page)"
        return (f"{share:<40} p50 {_percentile(self.delays, 0.5) * 1000:5.0f} ms   "
                f"p99 {self.p99 * 1000:5.0f} ms   max {max(self.delays) * 1000:5.0f} ms")

    @property
    def p99(self) -> float:
        return _percentile(self.delays, 0.99)


def _in_window(journal: dict[tuple[str, str], str], window: tuple[float, float]) -> dict[tuple[str, str], float]:
    """The rounds written within the window, with their journal time (epoch seconds)."""
    out = {}
    for key, written in journal.items():
        if written and window[0] <= (at := _epoch(written)) <= window[1]:
            out[key] = at
    return out


def _reader_figures(readers: list[Reader], rounds: dict[tuple[str, str], float], tables: set[str],
                    pits: list[set[str]]) -> Figures:
    """``readers`` of one view kind; ``pits[i]``: the tables reader i's view shows."""
    figures = Figures(viewers=len(readers))
    for reader, shown in zip(readers, pits, strict=True):
        mine = tables & shown
        figures.expected += sum(1 for key in rounds if key[0] in mine)
        figures.delays += [at - rounds[key] for key, at in reader.seen.items() if key in rounds and key[0] in mine]
    return figures


def _page_figures(view: PageView, rounds: dict[tuple[str, str], float], tables: set[str]) -> Figures:
    """A page's delays; expected: the rounds of the tables it showed (a pit's page of a pit
    larger than a screen shows some of its tables; the floor's directory, every table)."""
    figures = Figures(viewers=1)
    if view.view != "floor":
        tables = tables & (view.shown | {table for table, _ in view.seen})
    figures.expected = sum(1 for key in rounds if key[0] in tables)
    for key, (at, since) in view.seen.items():
        if key in rounds and key[0] in tables:
            if since <= rounds[key]:
                figures.delays.append(at - rounds[key])
            else:
                figures.late += 1
    return figures


def _cpu_line(percent: dict[str, float], machine: float) -> str:
    def get(group: str) -> str:
        return f"{percent[group]:.1f}" if group in percent else "-"

    chromium = {group.split(" ", 1)[1]: value for group, value in percent.items() if group.startswith("chromium ")}
    kinds = ", ".join(f"{kind} {value:.1f}" for kind, value in sorted(chromium.items(), key=lambda kv: -kv[1]))
    line = (f"CPU over the window, % of one CPU: pit {get('pit')}, mosquitto {get('mosquitto')}, "
            f"replayers {get('replayers')}, stations {get('stations')}, this process (stream readers) "
            f"{get('bench')}, Playwright's driver {get('playwright')}")
    if chromium:
        line += f", Chromium {sum(chromium.values()):.1f} ({kinds})"
    return line + f"; the machine {machine:.0f} of {100 * (os.cpu_count() or 1)}"


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def _pluralize(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('s') else 's'}"


def _screen(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    return int(width), int(height)


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="replayed tables")
    parser.add_argument("--replayers", type=int, default=5, help="processes replaying them")
    parser.add_argument("--pit-size", type=int, default=25, help="replayed tables per pit (A, B, ...)")
    parser.add_argument("--round-s", type=float, default=20.0, help="seconds per round at each replayed table")
    parser.add_argument("--real", type=int, default=3, help="real stations (station run) besides, in pit Z")
    parser.add_argument("--real-pace-ms", type=int, default=1500, help="the real stations' dealer pace")
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--browsers", type=int, default=3, help="of the viewers, Chromium pages")
    parser.add_argument("--views", default="floor,pit,pages", help="the pages' views, in turn")
    parser.add_argument("--readers", default="all,floor,pit,pit,floor,pit,pit",
                        help="the stream readers' views, in turn (all, floor, pit, pit:A)")
    parser.add_argument("--page-seconds", type=int, default=5, help="[pit] page_seconds: a pit's pages turn")
    parser.add_argument("--screen", type=_screen, default=(1920, 1080), help="the pages' size, WxH")
    parser.add_argument("--pages-screen", type=_screen, default=(1280, 720),
                        help="the size of the pages view's page, WxH (smaller: its pit takes pages)")
    parser.add_argument("--seconds", type=float, default=240.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--screenshots", type=Path, default=REPO / "bench" / "out",
                        help="where each page's screenshot goes")
    args = parser.parse_args()
    if args.browsers > args.viewers:
        parser.error("--browsers is at most --viewers")
    return args


def main() -> None:
    args = _parse()
    pit_of = {table_name(i): place(i, args.pit_size)[0] for i in range(1, args.tables + 1)}
    real = {table_name(i) for i in range(args.tables + 1, args.tables + args.real + 1)}
    floor = Floor({**pit_of, **dict.fromkeys(real, REAL_PIT)}, frozenset(pit_of), frozenset(real))
    page_views = _views(args.views, args.browsers, floor.pits, readers=False)
    reader_views = _views(args.readers, args.viewers - args.browsers, floor.pits, readers=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs ({_cpu_model()}), Python "
          f"{platform.python_version()}, {Broker.version()}; load average before {_load()} (1, 5, 15 min)")
    kinds = {kind: [pit for k, pit in reader_views if k == kind] for kind, _ in reader_views}
    readers_said = ", ".join(f"{len(pits)} {kind}" + (f" ({' '.join(str(p) for p in pits)})" if kind == "pit" else "")
                             for kind, pits in kinds.items())
    real_said = (f"{_pluralize(args.real, 'real station')} (pit {REAL_PIT}, dealer {args.real_pace_ms} ms an action)"
                 if args.real else "no real station")
    pages_said = ", ".join(f"{kind} {pit}" if pit else kind for kind, pit in page_views)
    print(f"{args.tables} replayed tables in {_pluralize(len(floor.pits), 'pit')} of {args.pit_size} "
          f"({_pluralize(args.replayers, 'process')}, a round every {args.round_s:g} s each), {real_said}; "
          f"{args.viewers} viewers: {_pluralize(len(reader_views), 'stream reader')} ({readers_said or 'none'}), "
          f"{_pluralize(args.browsers, 'Chromium page')} ({pages_said or 'none'}), "
          f"[pit] page_seconds {args.page_seconds}; {args.seconds:g} s measured after {args.warmup:g} s of warm-up")
    started: list[subprocess.Popen[Any]] = []
    stations: list[subprocess.Popen[Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-pit-") as scratch:
        folder = Path(scratch)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker").start()
        journal = make_journal(folder / "recorded.sqlite3")
        extra = f"max_connections = {args.viewers * 4 + 16}\npage_seconds = {args.page_seconds}"
        page = PitProcess(pit_config(folder / "pit.toml", broker.url, title="Bench pit", extra_pit=extra),
                          folder / "pit.log")
        page.start()
        readers: list[Reader] = []
        feed: Subscriber | None = None
        try:
            # The feed itself: a subscriber beside the pit, for what the replayers and the broker add.
            feed = Subscriber(broker.port, "dealing-station/+/round", client_id="bench-feed", persistent=False)
            per = -(-args.tables // max(1, args.replayers))
            for first in range(1, args.tables + 1, per):
                count = min(per, args.tables - first + 1)
                started.append(start_replayer(journal, broker.url, first=first, tables=count, round_s=args.round_s,
                                              pit_size=args.pit_size, log=folder / f"replay-{first}.log"))
            replayers = list(started)
            for table in sorted(real):
                home = folder / table
                home.mkdir()
                config = floor_config(home / "station.toml", broker.url, table=table, pace_ms=args.real_pace_ms,
                                      extra=f'pit = "{REAL_PIT}"\nnumber = {len(stations) + 1}')
                stations.append(run_station(config, home / "journal.sqlite3", station_env(home), home / "log"))
            started += stations
            names = [f"{kind}:{pit}" if pit else kind for kind, pit in reader_views]
            readers = [Reader(name, Pictures(page.url, view=name)) for name in names]
            views = [PageView(kind, pit, view_address(page.url, kind, pit),
                              args.pages_screen if kind == "pages" else args.screen) for kind, pit in page_views]
            assert broker.process is not None
            cpu = BenchGroups({"pit": [page.pid], "mosquitto": [broker.process.pid],
                               "replayers": [p.pid for p in replayers], "stations": [p.pid for p in stations]})
            with Chromium(views) as chromium:
                time.sleep(args.warmup)
                chromium.begin()
                for reader in readers:
                    reader.start = reader.counters()
                cpu.begin()
                while (left := cpu.began + args.seconds - time.time()) > 0:
                    time.sleep(min(1.0, left))
                    cpu.sample()
                cpu.end()
                window = (cpu.began, cpu.ended)
                for reader in readers:
                    reader.end = reader.counters()
                chromium.end(window)
                rss, peak = _memory_mib(page.pid)
                chromium.screenshots(args.screenshots, f"pit-{args.tables}-tables")
                time.sleep(2)  # the last rounds of the window reach every viewer
                chromium.collect()
            for reader in readers:
                reader.take()
            with feed.lock:
                heard = {(m.payload["table"], str(m.payload.get("round_id"))): (m.at, str(m.payload["time"]))
                         for m in feed.messages}
            _report(args, floor, readers, views, cpu, window, rss, peak, heard)
        finally:
            if feed is not None:
                feed.close()
            for reader in readers:
                reader.pictures.close()
            stop_all(started, wait_s=30)
            page.stop()
            broker.stop()


def _report(args: argparse.Namespace, floor: Floor, readers: list[Reader], views: list[PageView],
            cpu: BenchGroups, window: tuple[float, float], rss: float, peak: float,
            heard: dict[tuple[str, str], tuple[float, str]]) -> None:
    """``heard``: each round as the feed's subscriber had it, (when, its journal time)."""
    elapsed = window[1] - window[0]
    percent = cpu.percent()
    journal: dict[tuple[str, str], str] = {}
    for reader in readers:
        journal.update((key, written) for key, written in reader.journal.items() if written)
    rounds = _in_window(journal, window)
    groups = [("replayed", set(floor.replayed)), ("real", set(floor.real))] if floor.real else [
        ("replayed", set(floor.replayed))]
    print(f"pit process: CPU {percent.get('pit', float('nan')):.1f}% of one CPU, RSS {rss:.0f} MiB "
          f"(peak {peak:.0f} MiB)")
    print(_cpu_line(percent, cpu.machine_percent()))
    print("journal time of a round -> a viewer has it (rounds per viewer, of those its view shows):")
    if readers and not any(reader.kind == "all" for reader in readers):
        print("  (no all reader: the journal times are the pit readers' only)")
    checks: list[tuple[str, bool]] = []
    print("  the feed itself (an MQTT subscriber in this process, beside the pit):")
    for name, tables in groups:
        feed = Figures(viewers=1)
        feed.delays = [at - _epoch(written) for key, (at, written) in heard.items()
                       if key[0] in tables and window[0] <= _epoch(written) <= window[1]]
        feed.expected = len(feed.delays)
        print(f"    {name + ' tables':<16} {feed.text()}")
    for kind in dict.fromkeys(reader.kind for reader in readers):
        mine = [reader for reader in readers if reader.kind == kind]
        shown = [floor.tables(kind, reader.view.partition(":")[2] or None) for reader in mine]
        pictures = sum(r.end[0] - r.start[0] for r in mine) / len(mine) / elapsed
        volume = sum(r.end[1] - r.start[1] for r in mine) / len(mine) / elapsed
        gaps = sum(r.end[2] - r.start[2] for r in mine)
        print(f"  stream readers, {kind} (x{len(mine)}): {pictures:.1f} pictures/s, {volume / 1000:.1f} kB/s "
              f"per viewer; {_pluralize(gaps, 'gap')} (a delta for another version: whole again)")
        for name, tables in groups:
            figures = _reader_figures(mine, rounds, tables, shown)
            print(f"    {name + ' tables':<16} {figures.text()}")
            if name == "replayed" and figures.delays:
                checks.append((f"stream readers {kind}: p99 {figures.p99 * 1000:.0f} ms < 500 ms",
                               figures.p99 < TARGET_P99_S))
    for view in views:
        tables = floor.tables(view.view, view.pit)
        ordered = sorted(view.events.items(), key=lambda kv: kv[0] != "whole")
        events = ", ".join(f"{count} {kind}" for kind, count in ordered)
        again = f", the stream opened again {view.reconnects} times" if view.reconnects else ""
        if view.view != "floor":
            again += f"; {_pluralize(view.pages, 'page')}, turned {view.turns} times"
        print(f"  Chromium, {view.label}: main thread busy {view.busy_share * 100:.1f}% in long tasks "
              f"({view.long_tasks}), {view.task_share * 100:.1f}% in all tasks; {view.bytes_per_s / 1000:.1f} kB/s "
              f"({events or 'no events'}{again})" + (f"; {view.note}" if view.note else ""))
        for name, group in groups:
            figures = _page_figures(view, rounds, tables & group)
            print(f"    {name + ' tables':<16} {figures.text()}")
            if name == "replayed":
                checks.append((f"Chromium {view.label}: p99 {figures.p99 * 1000:.0f} ms < 500 ms",
                               bool(figures.delays) and figures.p99 < TARGET_P99_S))
        checks.append((f"Chromium {view.label}: main thread busy {view.busy_share * 100:.1f}% < 25% (long tasks)",
                       view.busy_share < TARGET_BUSY))
    checks.append((f"pit process CPU {percent.get('pit', float('nan')):.1f}% < 25% of one CPU",
                   percent.get("pit", float("inf")) < TARGET_CPU_PERCENT))
    checks.append((f"pit process memory {peak:.0f} MiB (peak) < 150 MiB", peak < TARGET_RSS_MIB))
    if views:
        print(f"screenshots: {', '.join(str(_shown_path(v.screenshot)) for v in views)}")
    print("targets (issue 42):")
    for text, ok in checks:
        print(f"  {'met   ' if ok else 'MISSED'} {text}")
    print(f"load average after {_load()}")


def _shown_path(path: Path | None) -> str:
    if path is None:
        return "-"
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    main()
