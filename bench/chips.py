"""Chips to bets: from a chip put on the layout to the dealer's console showing it as the spot's bet.

Run: ``.venv/bin/python bench/chips.py [--placements 200] [--stacks 20] [--runs 3] [--console]
[--period-ms 50] [--stable-ms 40]``

The whole path of a chip, as at a table:

* the chip reader (a simulator in this process, on a pseudo-terminal) reads its antennas every
  ``period_ms`` in continuous mode and reports an antenna whose chips changed; each chip goes
  down at a random moment of that period, as a player's would;
* ``station run`` (a real subprocess, its journal durable) reads the report, keeps the
  stable-read rule (``stable_ms``: a read the reader keeps saying nothing new about is
  believed after that long), journals the spot's chips, values them by the registry and
  proposes the bet;
* with ``--console`` the clock stops at the first frame the dealer's console (Debian's
  chromium, headless, signed in) draws with the spot's amount; without it, when the station's
  published picture (what ``station ctl status`` shows) holds it, asked for over the control
  socket every millisecond.

The steps are printed apart: the chip put down to the reader's report (the reader's period),
the report to the read journaled (the rule and the station's path), the read journaled to the
bet shown (the core, the console's feed and the page).

1. **One chip**: a chip put on a betting spot, then taken off: ``--placements`` times each,
   p50/p99/max. Target: p99 < 100 ms.
2. **A stack of 100 chips** put on one spot at once, read in parts of 16 (7 report parts, each
   fetched and put together before the read counts): ``--stacks`` times, to the station's
   picture. Target: < 500 ms.
3. **The table's pace with the reader reading**: rounds per second of ``station demo --fast``
   (bench/throughput.py's measure: a whole shoe, the simulated dealer keying its bets) of the
   shipped chip table with its reader in continuous mode (``[dealer] bets_by = "keys"``, a
   payment not held since nobody pays in the payout zones), and
   of the same table without the reader, ``--runs`` runs each, alternating. Target: within 5%.

Prints the figures; asserts nothing. docs/benchmarks.md ("Chips to bets") keeps them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEALER_TOKEN = "chips-bench-dealer"
PERIOD_MS, STABLE_MS = 50, 40  # the defaults; --period-ms and --stable-ms change them
CONSOLE_PIN = "4321"
SPOT, STACK_SPOT = 1, 2


def _registry(path: Path, stack: list[str], single: list[str]) -> None:
    rows = [f"{uid},1.00,EUR,active,bench," for uid in stack] + [f"{uid},10.00,EUR,active,bench," for uid in single]
    path.write_text("uid,value,currency,status,set,note\n" + "\n".join(rows) + "\n")


def _config(directory: Path, reader_url: str, shoe_url: str, timing: tuple[int, int], console_port: int) -> Path:
    from station.config.pins import hash_pin
    from station.service.control import hash_token

    period_ms, stable_ms = timing
    console = "" if not console_port else f"""
[[control.users]]
name = "dee"
role = "dealer"
pin_scrypt = "{hash_pin(CONSOLE_PIN)}"

[console]
enabled = true
port = {console_port}
"""

    config = directory / "station.toml"
    config.write_text(f"""
[station]
name = "Chips bench"
journal = "{directory / 'journal.sqlite3'}"
log_format = "json"
log_level = "warning"

[table]
currency = "EUR"
[table.chip_bets]
confirm = "tap"

[devices.chipreader]
url = "{reader_url}"
[devices.shoe]
url = "{shoe_url}"

[chip_reader]
registry = "{directory / 'chips.csv'}"
stable_reads = 2
stable_ms = {stable_ms}
period_ms = {period_ms}
[chip_reader.antennas]
{SPOT} = "spot:1:banker"
{STACK_SPOT} = "spot:2:banker"

[dealer]
simulated = false

[control]
socket = "{directory / 'control.sock'}"
[[control.users]]
name = "bench"
role = "dealer"
token_sha256 = "{hash_token(DEALER_TOKEN)}"
{console}""")
    return config


def _waiter(socket: Path) -> Callable[[str, int, float], float]:
    from station.service.control import request

    def shown(place: str, amount: int, timeout: float) -> float:
        """Ask until the station's picture holds ``amount`` on ``place``; the time it was seen."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            reply = request(socket, DEALER_TOKEN, "status", {})
            chips = (reply.get("result") or {}).get("chips") or {"places": {}}
            if chips["places"].get(place, {"amount": 0})["amount"] == amount:
                return time.perf_counter()
            time.sleep(0.001)
        raise TimeoutError(f"{place} never showed {amount}")

    return shown


#: In the page: each change of the chip panel, when the frame after it was drawn (the wall
#: clock, milliseconds) and the text of box 1's Banker spot then.
_PAINT_WATCH = """() => {
  window.__painted = [];
  const spot = () => {
    const node = document.querySelector('li.chip-spot[data-box="1"][data-region="banker"] .chip-amount');
    return node ? node.textContent : "";
  };
  new MutationObserver(() => {
    const text = spot();
    requestAnimationFrame(() => window.__painted.push([Date.now(), text]));
  }).observe(document.getElementById("chip-lines"), {childList: true, subtree: true, characterData: true});
}"""


class ConsolePaint:
    """The dealer's console in Debian's chromium (headless), signed in; :meth:`shown` waits
    until box 1's Banker spot reads an amount and gives the wall-clock time of the frame that
    first drew it (so the browser's own polling and drawing are in the figure)."""

    def __init__(self, url: str) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        self.page = self._browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        self.page.goto(url)
        self.page.get_by_label("Name", exact=True).fill("dee")
        self.page.get_by_label("PIN", exact=True).fill(CONSOLE_PIN)
        self.page.get_by_role("button", name="Sign in").click()
        self.page.wait_for_selector("#chip-lines", state="attached", timeout=30_000)
        self.page.wait_for_function("!document.getElementById('layout-chips').hidden", timeout=30_000)
        self.page.evaluate(_PAINT_WATCH)

    def shown(self, words: str, timeout: float) -> float:
        """The wall-clock time (s) of the first frame drawn with ``words`` on the spot."""
        self.page.wait_for_function(f"window.__painted.some(([, text]) => text.includes({words!r}))",
                                    timeout=timeout * 1000, polling=5)
        painted = self.page.evaluate("window.__painted.splice(0)")
        return float(next(at for at, text in painted if words in text)) / 1000

    def close(self) -> None:
        self._browser.close()
        self._playwright.stop()


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _figures(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"{name}: n={len(ms)} p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms"


def run(placements: int, stacks: int, directory: Path, timing: tuple[int, int], console: bool) -> dict[str, Any]:
    """The one-chip and stack figures; with ``console``, the one chip's clock stops at the
    console's frame that drew it, else at the station's published picture."""
    from drivers.simulators import start_simulator

    stack = [f"E0040200{n:08X}" for n in range(100)]
    single = [f"E0040300{n:08X}" for n in range(2)]
    _registry(directory / "chips.csv", stack, single)
    reader = start_simulator("chipreader", {"directory": str(directory)}, antennas=2, part_size=16)
    shoe = start_simulator("shoe", {"directory": str(directory)})  # the table needs one; it stays idle
    layout = reader.simulator
    console_port = _free_port() if console else 0
    config = _config(directory, reader.url, shoe.url, timing, console_port)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(directory / "run"), "PYTHONUNBUFFERED": "1"}
    with (directory / "station.log").open("wb") as log:
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)], stdout=log,
                                   stderr=subprocess.STDOUT, env=env, cwd=REPO)
    page: ConsolePaint | None = None
    try:
        shown = _waiter(directory / "control.sock")
        _wait_started(directory / "control.sock", station)
        if console:
            page = _console_page(f"http://127.0.0.1:{console_port}/", station)
        one, many, journaled, reported = [], [], [], []
        sent: list[float] = []  # when the reader sent the spot's AntennaChanged (wall clock)
        layout.on_reported = lambda m: sent.append(time.time()) if getattr(m, "antenna", None) == SPOT else None
        pause = random.Random(7)
        for n in range(placements):
            chip = single[n % 2]
            # A player does not wait for the reader: each chip goes down at a random moment of
            # its period (right after the last change it would be read at once, every time).
            time.sleep(pause.uniform(0, timing[0] / 1000))
            sent.clear()
            started, wall = time.perf_counter(), time.time()
            layout.place(SPOT, [chip])
            if page is not None:
                one.append(page.shown("chips 10.00", 10) - wall)
            else:
                one.append(shown("spot:1:banker", 1000, 10) - started)
            journaled.append(_journaled_at(directory / "journal.sqlite3") - wall)
            reported.append(sent[0] - wall)
            layout.remove(SPOT, [chip])
            shown("spot:1:banker", 0, 10)
        for _ in range(stacks):
            started = time.perf_counter()
            layout.place(STACK_SPOT, stack)
            many.append(shown("spot:2:banker", 100 * 100, 10) - started)
            layout.remove(STACK_SPOT)
            shown("spot:2:banker", 0, 10)
    finally:
        if page is not None:
            page.close()
        station.terminate()
        station.wait(30)
        reader.stop()
        shoe.stop()
    return {"one": one, "stack": many, "journaled": journaled, "reported": reported}


def _console_page(url: str, station: subprocess.Popen[bytes]) -> ConsolePaint:
    """The console, once it answers (it starts after the control socket)."""
    import urllib.request

    until = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2):
                return ConsolePaint(url)
        except OSError:
            if time.monotonic() > until or station.poll() is not None:
                raise
            time.sleep(0.1)


def _journaled_at(journal: Path) -> float:
    """The wall-clock time of the journal's latest ChipsOnPlace record (its ``time``, UTC)."""
    import sqlite3
    from datetime import datetime

    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        row = db.execute("SELECT time FROM records WHERE kind = 'ChipsOnPlace' ORDER BY seq DESC LIMIT 1").fetchone()
    return datetime.fromisoformat(str(row[0]).replace("Z", "+00:00")).timestamp()


def _wait_started(socket: Path, station: subprocess.Popen[bytes]) -> None:
    from station.service.control import ControlError, request

    until = time.monotonic() + 60
    while time.monotonic() < until:
        if station.poll() is not None:
            log = (socket.parent / "station.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"station exited with {station.returncode}:\n{log}")
        try:
            if request(socket, DEALER_TOKEN, "status", {}).get("ok"):
                return
        except (OSError, ControlError):
            pass  # not listening yet
        time.sleep(0.05)
    raise TimeoutError("the station did not answer")


def _pace_configs(directory: Path) -> tuple[Path, Path]:
    """The shipped chip table with the reader reading and the dealer keying, and without the reader."""
    import tomllib

    import tomli_w

    source = REPO / "config" / "examples" / "baccarat-chips.toml"
    data = tomllib.loads(source.read_text())
    data["chip_reader"]["registry"] = str(source.parent / data["chip_reader"]["registry"])
    data["dealer"]["bets_by"] = "keys"
    data["table"]["chip_bets"]["hold_wrong_payment"] = False  # nobody pays in the payout zones here
    reading = directory / "reading.toml"
    reading.write_text(tomli_w.dumps(data))
    for key in ("chip_reader",):
        data.pop(key)
    data["table"].pop("chip_bets")
    data["devices"].pop("chipreader")
    data["dealer"].pop("bets_by")
    plain = directory / "plain.toml"
    plain.write_text(tomli_w.dumps(data))
    return reading, plain


def pace(runs: int, directory: Path) -> dict[str, list[float]]:
    sys.path.insert(0, str(REPO / "bench"))
    from throughput import demo_rate  # type: ignore[import-not-found]

    reading, plain = _pace_configs(directory)
    rates: dict[str, list[float]] = {"reading": [], "plain": []}
    for n in range(runs):
        for name, config in (("reading", reading), ("plain", plain)):
            rate, _, _ = demo_rate(1, directory / f"{name}-{n}.sqlite3", str(config))
            rates[name].append(rate)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--placements", type=int, default=200)
    parser.add_argument("--stacks", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3, help="demo runs of each table for the pace (0: none)")
    parser.add_argument("--period-ms", type=int, default=PERIOD_MS, help="the reader's continuous period")
    parser.add_argument("--stable-ms", type=int, default=STABLE_MS, help="[chip_reader] stable_ms")
    parser.add_argument("--console", action="store_true",
                        help="stop the one chip's clock at the console's frame (needs /usr/bin/chromium)")
    args = parser.parse_args()
    timing = (args.period_ms, args.stable_ms)
    with tempfile.TemporaryDirectory(prefix="chips-bench-") as folder:
        found = run(args.placements, args.stacks, Path(folder), timing, args.console)
        rates = pace(args.runs, Path(folder)) if args.runs else {}
    print(f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"period_ms {args.period_ms}, stable_ms {args.stable_ms}")
    where = "drawn on the console" if args.console else "in the station's picture"
    print(_figures(f"one chip to its bet {where}", found["one"]))
    print(_figures("  of which: the chip put down to the reader's report sent", found["reported"]))
    print(_figures("  of which: the chip put down to its read journaled", found["journaled"]))
    print(_figures("  the reader's report to the read journaled (the stable rule, the station's path)",
                   [j - r for j, r in zip(found["journaled"], found["reported"], strict=True)]))
    print(_figures(f"  the read journaled to the bet {where}",
                   [o - j for o, j in zip(found["one"], found["journaled"], strict=True)]))
    if found["stack"]:
        print(_figures("100-chip stack to its bet shown", found["stack"]))
    if rates:
        reading, plain = statistics.median(rates["reading"]), statistics.median(rates["plain"])
        print(f"pace: {reading:.0f} rounds/s with the reader reading, {plain:.0f} without "
              f"({(reading / plain - 1) * 100:+.1f}%); runs {rates}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
