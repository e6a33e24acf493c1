"""What bench/pit.py measures outside its own process: Debian's Chromium showing the pit page
(one page per view, each page's journal time to tile, main-thread busy share and stream
bytes), and the CPU of every process of a group (the pit, the broker, the replayers,
Chromium's browser, zygotes, GPU, utility and renderer processes).

Chromium's processes are found in /proc, not by their names on the command line: Chromium's
children rewrite theirs (``/usr/lib/chromium/chromium --type=renderer ...`` is one string, not
an argument list), and a zygote's children may be reparented. Every process of one Chromium
carries its ``--user-data-dir``; the bench's Chromium is the one whose browser process
descends from the bench (Playwright's driver starts it), and its processes are every process
running the chromium binary that descends from the bench or carries that browser's
``--user-data-dir``. The crash handlers (``chrome_crashpad_handler``, started by the
browser, left to init, idle unless a process crashes) are not counted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

#: Run in every page before the page's own script: counts the event stream's bytes (each
#: event as framed: ``event: TYPE\ndata: DATA\n\n``, UTF-8), keeps the main thread's long
#: tasks, counts the page's turns (``body[data-page]`` changed), and notes when each table's
#: round first showed: a pit page's ``.tile[data-table] .outcome[data-round]``, the floor
#: overview's ``#directory option[value][data-round]``. ``seen["TABLE ROUND"] = [shown,
#: since]``, epoch milliseconds: when the round showed, and since when the table's tile was on
#: the page then (a page that turns shows a table's round late when the table was on another
#: page).
INIT_SCRIPT = r"""
(() => {
  const bench = {seen: {}, shown: {}, bytes: 0, events: {}, opened: 0, page: "", turns: 0, longtasks: [],
                 longtaskError: ""};
  Object.defineProperty(window, "__pitBench", {value: bench});

  const Native = window.EventSource;
  const ascii = /^[\x00-\x7f]*$/;
  const encoder = new TextEncoder();
  const size = (text) => (ascii.test(text) ? text.length : encoder.encode(text).length);
  class CountedEventSource extends Native {
    constructor(...args) {
      super(...args);
      bench.opened += 1;
      for (const type of ["whole", "delta", "snapshot", "message"]) {
        this.addEventListener(type, (event) => {
          const data = String(event.data);
          bench.bytes += size(data) + (type === "message" ? 8 : type.length + 16);
          bench.events[type] = (bench.events[type] || 0) + 1;
        });
      }
    }
  }
  window.EventSource = CountedEventSource;

  try {
    new PerformanceObserver((list) => {
      for (const task of list.getEntries()) {
        bench.longtasks.push([performance.timeOrigin + task.startTime, task.duration]);
      }
    }).observe({type: "longtask", buffered: true});
  } catch (error) {
    bench.longtaskError = String(error);
  }

  // What holds a table: a pit page's tile, the floor's directory entry.
  const ROUND = ".tile[data-table] .outcome[data-round], #directory option[data-round]";
  const HOLDER = ".tile[data-table], option[value]";
  const tableOf = (el) => (el.tagName === "OPTION" ? el.value : el.dataset.table);
  const watch = (records) => {
    const at = Date.now();
    const added = new Set();
    const removed = new Set();
    const rounds = [];
    const take = (node, into) => {
      if (node.nodeType !== 1) return;
      if (node.matches(HOLDER)) into.add(tableOf(node));
      if (node.firstElementChild) for (const el of node.querySelectorAll(HOLDER)) into.add(tableOf(el));
    };
    for (const record of records) {
      if (record.type === "attributes") {
        const el = record.target;
        const renamed = record.attributeName === (el.tagName === "OPTION" ? "value" : "data-table");
        if (renamed && el.matches(HOLDER)) {
          if (record.oldValue) removed.add(record.oldValue);
          added.add(tableOf(el));
          if (el.matches("[data-round]")) rounds.push(el);
          rounds.push(...el.querySelectorAll("[data-round]"));
        } else if (record.attributeName === "data-round") {
          rounds.push(el);
        }
        continue;
      }
      for (const node of record.removedNodes) take(node, removed);
      for (const node of record.addedNodes) {
        take(node, added);
        if (node.nodeType !== 1) continue;
        if (node.matches("[data-round]")) rounds.push(node);
        if (node.firstElementChild) rounds.push(...node.querySelectorAll("[data-round]"));
      }
    }
    const page = document.body?.dataset.page;
    if (page && bench.page && page !== bench.page) bench.turns += 1;
    if (page) bench.page = page;
    for (const table of removed) if (!added.has(table)) delete bench.shown[table];
    for (const table of added) if (table && !(table in bench.shown)) bench.shown[table] = at;
    for (const el of rounds) {
      if (!el.isConnected || !el.dataset.round || !el.matches(ROUND)) continue;
      const table = tableOf(el.tagName === "OPTION" ? el : el.closest(".tile[data-table]"));
      if (!table) continue;
      const key = `${table} ${el.dataset.round}`;
      if (!(key in bench.seen)) bench.seen[key] = [at, bench.shown[table] ?? at];
    }
  };
  new MutationObserver(watch).observe(document, {
    subtree: true, childList: true, attributes: true, attributeOldValue: true,
    attributeFilter: ["data-round", "data-table", "value", "data-page"],
  });

  bench.counters = () => ({bytes: bench.bytes, events: {...bench.events}, opened: bench.opened, turns: bench.turns,
                           pages: Number(document.body?.dataset.pages || 1)});
  bench.take = (from, to) => {
    let busy = 0;
    let tasks = 0;
    for (const [start, duration] of bench.longtasks) {
      const overlap = Math.min(start + duration, to) - Math.max(start, from);
      if (overlap > 0) {
        busy += overlap;
        tasks += 1;
      }
    }
    return {seen: bench.seen, shown: Object.keys(bench.shown), busy, tasks, longtaskError: bench.longtaskError,
            hidden: document.hidden, counters: bench.counters()};
  };
})();
"""


@dataclass
class PageView:
    """One Chromium page of the bench: which view (``floor``, ``pit``, ``pages``), its pit,
    its address, and what was measured of it."""

    view: str
    pit: str | None
    url: str
    screen: tuple[int, int] = (1920, 1080)
    page: Any = None
    cdp: Any = None
    start_counters: dict[str, Any] = field(default_factory=dict)
    start_task_s: float = 0.0
    #: (table, round) -> (epoch seconds shown, epoch seconds since the table's tile was shown)
    seen: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    #: the tables the page showed at the window's end
    shown: set[str] = field(default_factory=set)
    busy_share: float = float("nan")
    long_tasks: int = 0
    task_share: float = float("nan")
    bytes_per_s: float = float("nan")
    events: dict[str, int] = field(default_factory=dict)
    reconnects: int = 0
    turns: int = 0  # the page turned (body's data-page changed) within the window
    pages: int = 1  # the pages its tables took at the window's end
    note: str = ""
    screenshot: Path | None = None

    @property
    def label(self) -> str:
        where = self.url.split("/", 3)[3] or "/"
        return f"{self.view} {where if where.startswith('?') else '/'} at {self.screen[0]}x{self.screen[1]}"


def view_address(base: str, view: str, pit: str | None) -> str:
    """The page's address for a view: the floor overview ``/``; a pit's first page, which
    stays (``/?pit=A&page=1``: a pit too large for one screen shows in pages); a pit whose
    pages turn every ``[pit] page_seconds`` (``/?pit=B``)."""
    if view == "floor" or pit is None:
        return base
    return f"{base}?pit={quote(pit, safe='')}" + ("&page=1" if view == "pit" else "")


class Chromium:
    """Debian's Chromium through Playwright, one page per view, each in a browser context of
    its own (its own renderer), ``INIT_SCRIPT`` in each before the page loads."""

    def __init__(self, views: list[PageView]) -> None:
        self.views = views
        self._playwright: Any = None
        self._browser: Any = None

    def __enter__(self) -> Chromium:
        if not self.views:
            return self
        from playwright.sync_api import sync_playwright

        from tests.browser import CHROMIUM, CHROMIUM_ARGS

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for view in self.views:
            context = self._browser.new_context(viewport={"width": view.screen[0], "height": view.screen[1]})
            context.add_init_script(script=INIT_SCRIPT)
            view.page = context.new_page()
            view.cdp = context.new_cdp_session(view.page)
            view.cdp.send("Performance.enable")
            view.page.goto(view.url)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()

    def begin(self) -> None:
        """The measured window starts."""
        for view in self.views:
            view.start_counters = view.page.evaluate("window.__pitBench.counters()")
            view.start_task_s = _task_seconds(view.cdp)

    def end(self, window: tuple[float, float]) -> None:
        """The window ended (``window`` in epoch seconds): each page's figures."""
        elapsed = window[1] - window[0]
        for view in self.views:
            view.task_share = (_task_seconds(view.cdp) - view.start_task_s) / elapsed
            taken = view.page.evaluate("([from, to]) => window.__pitBench.take(from, to)",
                                       [window[0] * 1000, window[1] * 1000])
            view.busy_share = float(taken["busy"]) / 1000 / elapsed
            view.long_tasks = int(taken["tasks"])
            before, after = view.start_counters, taken["counters"]
            view.bytes_per_s = (after["bytes"] - before["bytes"]) / elapsed
            view.events = {kind: count - before["events"].get(kind, 0) for kind, count in after["events"].items()}
            view.reconnects = int(after["opened"]) - int(before["opened"])
            view.shown = set(taken["shown"])
            view.turns = int(after["turns"]) - int(before["turns"])
            view.pages = int(after["pages"])
            notes = []
            if taken["longtaskError"]:
                notes.append(f"no long tasks: {taken['longtaskError']}")
            if taken["hidden"]:
                notes.append("the page was hidden")
            view.note = "; ".join(notes)

    def collect(self) -> None:
        """What each page noted (after the window's last rounds reached the pages)."""
        for view in self.views:
            seen = view.page.evaluate("window.__pitBench.seen")
            for key, (at, since) in seen.items():
                table, _, round_id = key.partition(" ")
                view.seen[(table, round_id)] = (at / 1000, since / 1000)

    def screenshots(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        counts: dict[str, int] = {}
        for view in self.views:
            counts[view.view] = counts.get(view.view, 0) + 1
            suffix = "" if counts[view.view] == 1 else f"-{counts[view.view]}"
            view.screenshot = folder / f"{name}-{view.view}{suffix}.png"
            view.page.screenshot(path=str(view.screenshot))


def _task_seconds(cdp: Any) -> float:
    """The page's renderer main thread's busy time so far (CDP's TaskDuration, seconds)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next((m["value"] for m in metrics if m["name"] == "TaskDuration"), float("nan")))


# -- CPU of process groups ----------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    started: int  # clock ticks after boot: a pid used again is another process
    cpu_s: float
    exe: str
    args: list[str]


def processes() -> dict[int, Proc]:
    """Every process /proc shows now (those that vanish while read are left out)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            raw = (entry / "cmdline").read_bytes()
            try:
                exe = os.readlink(entry / "exe")
            except OSError:
                exe = ""
        except OSError:
            continue
        # A process that set its title has one string with spaces; others an argument list.
        args = [part for piece in raw.split(b"\0") for part in piece.decode(errors="replace").split(" ") if part]
        out[int(entry.name)] = Proc(int(entry.name), int(fields[1]), int(fields[19]),
                                    (int(fields[11]) + int(fields[12])) / CLOCK_TICKS, exe, args)
    return out


def descendants(table: dict[int, Proc], roots: Iterable[int]) -> set[int]:
    """``roots`` and every process below them."""
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found, todo = set(), [root for root in roots if root in table]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def chromium_kind(proc: Proc) -> str:
    """browser, zygote, renderer, gpu-process, utility: a Chromium process's ``--type``."""
    kind = next((arg.split("=", 1)[1] for arg in proc.args if arg.startswith("--type=")), "browser")
    return {"gpu-process": "GPU"}.get(kind, kind)


def chromium_of(table: dict[int, Proc], ancestor: int) -> dict[int, str]:
    """Every process of the Chromium started below ``ancestor``: pid -> its kind."""
    def is_chromium(proc: Proc) -> bool:
        return Path(proc.exe).name in ("chromium", "chrome") or (bool(proc.args) and
                                                                 Path(proc.args[0]).name == "chromium")

    below = descendants(table, [ancestor])
    dirs = {arg for pid in below if is_chromium(table[pid]) for arg in table[pid].args
            if arg.startswith("--user-data-dir=")}
    return {proc.pid: chromium_kind(proc) for proc in table.values()
            if is_chromium(proc) and (proc.pid in below or dirs.intersection(proc.args))}


class CpuGroups:
    """CPU seconds of named groups of processes over a window, sampled as it goes (a process
    that ends within the window keeps what it used until its last sample)."""

    def __init__(self) -> None:
        self.first: dict[tuple[int, int], float] = {}
        self.last: dict[tuple[int, int], tuple[str, float]] = {}
        self.began = 0.0
        self.ended = 0.0
        self.machine_first = _machine_busy_s()
        self.machine_s = 0.0

    def _groups(self, table: dict[int, Proc]) -> dict[int, str]:
        raise NotImplementedError

    def sample(self) -> None:
        table = processes()
        for pid, group in self._groups(table).items():
            self.last[(pid, table[pid].started)] = (group, table[pid].cpu_s)

    def begin(self) -> None:
        self.sample()
        self.first = {key: cpu for key, (_, cpu) in self.last.items()}
        self.machine_first, self.began = _machine_busy_s(), time.time()

    def end(self) -> None:
        self.sample()
        self.machine_s, self.ended = _machine_busy_s() - self.machine_first, time.time()

    def percent(self) -> dict[str, float]:
        """Each group's share of one CPU over the window, in percent."""
        used: dict[str, float] = {}
        for key, (group, cpu) in self.last.items():
            used[group] = used.get(group, 0.0) + cpu - self.first.get(key, 0.0)
        elapsed = max(1e-9, self.ended - self.began)
        return {group: seconds / elapsed * 100 for group, seconds in used.items()}

    def machine_percent(self) -> float:
        """Every CPU's busy time over the window, in percent of one CPU."""
        return self.machine_s / max(1e-9, self.ended - self.began) * 100


class BenchGroups(CpuGroups):
    """The bench's processes: ``roots`` (group -> pids: each with all below it), this process
    alone (its stream readers), Playwright's driver, and Chromium (group ``chromium KIND``)."""

    def __init__(self, roots: dict[str, list[int]]) -> None:
        super().__init__()
        self.roots = roots

    def _groups(self, table: dict[int, Proc]) -> dict[int, str]:
        me = os.getpid()
        out = {pid: group for group, pids in self.roots.items() for pid in descendants(table, pids)}
        out[me] = "bench"
        chromium = chromium_of(table, me)
        for pid in descendants(table, [me]) - {me} - set(out) - set(chromium):
            if Path(table[pid].exe).name == "node":
                out[pid] = "playwright"
        out.update({pid: f"chromium {kind}" for pid, kind in chromium.items()})
        return out


def _machine_busy_s() -> float:
    """Every CPU's time not idle since boot (user, nice, system, irq, softirq, steal)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(value) for value in fields]
    return (sum(values[:8]) - values[3] - values[4]) / CLOCK_TICKS
