"""Chips to bets: from a chip put on the layout to the station showing it as the spot's bet.

Run: ``.venv/bin/python bench/chips.py [--placements 200] [--stacks 20]``

The whole path of a chip, as at a table:

* the chip reader (a simulator in this process, on a pseudo-terminal) reads its antennas every
  ``period_ms`` in continuous mode and reports an antenna whose chips changed;
* (the time from the chip put down to the journal's record of the spot's new chips, its
  ``time`` against the wall clock, is printed too: what the reader and the rule take, apart
  from the station's journaling and publishing);
* ``station run`` (a real subprocess, its journal durable) reads the report, keeps the
  stable-read rule (``stable_ms``: a read the reader keeps saying nothing new about is
  believed after that long), journals the spot's chips, values them by the registry and
  proposes the bet; the clock stops when the station's published picture (what ``station ctl
  status`` and the console show) holds the spot's new amount, asked for over the control
  socket every millisecond.

1. **One chip**: a chip put on a betting spot, then taken off: ``--placements`` times each,
   p50/p99/max. Target: p99 < 100 ms.
2. **A stack of 100 chips** put on one spot at once, read in parts of 16 (7 report parts, each
   fetched and put together before the read counts): ``--stacks`` times. Target: < 500 ms.
3. **The table's pace with the reader reading**: rounds per second of ``station demo --fast``
   (bench/throughput.py's measure: a whole shoe, the simulated dealer keying its bets) of the
   shipped chip table with its reader in continuous mode (``[dealer] bets_by = "keys"``, a
   payment not held since nobody pays in the payout zones), and
   of the same table without the reader, ``--runs`` runs each, alternating. Target: within 5%.

The rule's own wait is part of the figure: with ``period_ms = 50`` a chip is read 0-50 ms after
it is put down, and believed ``stable_ms`` after that. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
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
PERIOD_MS, STABLE_MS = 50, 40
SPOT, STACK_SPOT = 1, 2


def _registry(path: Path, stack: list[str], single: list[str]) -> None:
    rows = [f"{uid},1.00,EUR,active,bench," for uid in stack] + [f"{uid},10.00,EUR,active,bench," for uid in single]
    path.write_text("uid,value,currency,status,set,note\n" + "\n".join(rows) + "\n")


def _config(directory: Path, reader_url: str, shoe_url: str) -> Path:
    from station.service.control import hash_token

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
stable_ms = {STABLE_MS}
period_ms = {PERIOD_MS}
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
""")
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


def _figures(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"{name}: n={len(ms)} p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms"


def run(placements: int, stacks: int, directory: Path) -> dict[str, Any]:
    from drivers.simulators import start_simulator

    stack = [f"E0040200{n:08X}" for n in range(100)]
    single = [f"E0040300{n:08X}" for n in range(2)]
    _registry(directory / "chips.csv", stack, single)
    reader = start_simulator("chipreader", {"directory": str(directory)}, antennas=2, part_size=16)
    shoe = start_simulator("shoe", {"directory": str(directory)})  # the table needs one; it stays idle
    layout = reader.simulator
    config = _config(directory, reader.url, shoe.url)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(directory / "run"), "PYTHONUNBUFFERED": "1"}
    with (directory / "station.log").open("wb") as log:
        station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)], stdout=log,
                                   stderr=subprocess.STDOUT, env=env, cwd=REPO)
    try:
        shown = _waiter(directory / "control.sock")
        _wait_started(directory / "control.sock", station)
        one, many, journaled = [], [], []
        for n in range(placements):
            chip = single[n % 2]
            started, wall = time.perf_counter(), time.time()
            layout.place(SPOT, [chip])
            one.append(shown("spot:1:banker", 1000, 10) - started)
            journaled.append(_journaled_at(directory / "journal.sqlite3") - wall)
            layout.remove(SPOT, [chip])
            shown("spot:1:banker", 0, 10)
        for _ in range(stacks):
            started = time.perf_counter()
            layout.place(STACK_SPOT, stack)
            many.append(shown("spot:2:banker", 100 * 100, 10) - started)
            layout.remove(STACK_SPOT)
            shown("spot:2:banker", 0, 10)
    finally:
        station.terminate()
        station.wait(30)
        reader.stop()
        shoe.stop()
    return {"one": one, "stack": many, "journaled": journaled}


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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chips-bench-") as folder:
        found = run(args.placements, args.stacks, Path(folder))
        rates = pace(args.runs, Path(folder)) if args.runs else {}
    print(f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"period_ms {PERIOD_MS}, stable_ms {STABLE_MS}")
    print(_figures("one chip to its bet shown", found["one"]))
    print(_figures("  of which: the chip put down to its read journaled", found["journaled"]))
    print(_figures("100-chip stack to its bet shown", found["stack"]))
    if rates:
        reading, plain = statistics.median(rates["reading"]), statistics.median(rates["plain"])
        print(f"pace: {reading:.0f} rounds/s with the reader reading, {plain:.0f} without "
              f"({(reading / plain - 1) * 100:+.1f}%); runs {rates}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
