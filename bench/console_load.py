"""The dealer's console under load, against a station dealing at full speed.

Run: ``.venv/bin/python bench/console_load.py [--runs 5] [--seconds 10] [--consoles 5]
[--bad 10000] [--bets 200]``

1. ``station run`` (a real subprocess) on the simulated table with a simulated dealer at full
   speed (``pace_ms = 0``), its journal ``synchronous=FULL``, the console enabled with
   ``confirm_payouts`` (the simulated dealer confirms every round's payouts, so it deals one
   round at a time, as a dealer at a console does).
2. **Quiet**: the table's rate over ``--seconds``: inputs journaled per second (the journal's
   head) and rounds per second (rounds closed in the window, from ``station recall``).
3. **Loaded**, from a separate process in a session of its own (the consoles' browsers are a
   screen's and tablets' and the flood another machine's: with the kernel's autogroups, on by
   default, the CPU is shared between sessions first, so a load generator in the station's
   session took its whole CPU from the table's share and measured itself; in the idle class of
   a session of its own it got almost nothing and sent the flood over minutes): ``--consoles`` signed-in consoles that
   poll the table's picture as the page does (``/api/view?since=N``, again as soon as each
   answer arrives), and ``--bad`` bad requests spread over the window (1,000 a second by
   default, each started at its time whatever the others wait for, as a scanner sends):
   changes without a session, with a session but no CSRF token, from another site,
   malformed JSON, unknown paths, and a wrong PIN for an unknown name now and then, all from
   127.0.0.2 (another address, as a scanner on the casino's network would be; the console
   shuts such an address out after 20 refusals, and its kernel drops the rest of the flood's
   SYNs, so those attempts count as unanswered after 1 s; the flood is ``bench/flood.py``,
   on bare sockets, so that its own CPU, taken from the same two CPUs, is as small as it can
   be). ``--flood-from N`` spreads the
   flood over N addresses, each refused 20 times before it is shut out.
   Meanwhile, from this process, one more signed-in console taps ``--bets`` bets (one every
   50 ms) and times each from the tap to the console's answer, which comes once the bet is
   journaled and the table has applied or refused it.

Quiet and loaded windows alternate ``--runs`` times; each loaded window is compared with the
quiet one just before it and the median of those ratios is the figure (target: within 5%).
Prints the rates, the ratios, the bet latencies (p50, p99, max; target p99 < 50 ms), what the
bad requests were answered, how many pictures the consoles got, and the CPU seconds each
process (station, simulated table, console, load generator) used in a loaded window.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import flood
from bench.web_load import REPO, Station, free_port, rate, rounds_in

PINS = {"dee": "1234", "dan": "2222"}
#: The flood's source address; the consoles and the tapped bets come from 127.0.0.1.
FLOOD_FROM = "127.0.0.2"


def write_config(directory: Path, port: int) -> Path:
    from station.config.pins import hash_pin

    users = "".join(f'[[control.users]]\nname = "{name}"\nrole = "dealer"\npin_scrypt = "{hash_pin(pin)}"\n'
                    for name, pin in PINS.items())
    config = directory / "station.toml"
    config.write_text(f"""
[station]
name = "Console load"
journal = "{directory / 'journal.sqlite3'}"
log_format = "json"
log_level = "warning"

[table]
currency = "EUR"
minor_digits = 2

[devices.shoe]
url = "sim:"
[devices.display]
url = "sim:"
[devices.pedals]
url = "sim:"

[dealer]
simulated = true
pace_ms = 0
bets = {{ banker = 2000, player = 1000 }}

[control]
socket = "{directory / 'control.sock'}"
{users}
[console]
enabled = true
port = {port}
""")
    return config


# --- the load (another session's) ----------------------------------------------------------


async def _poller(base: str, name: str, stop: asyncio.Event, pictures: list[int]) -> None:
    import aiohttp

    # unsafe=True: aiohttp's cookie jar otherwise drops the cookies of an IP address (127.0.0.1).
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        async with session.post(f"{base}api/sign-in", json={"name": name, "pin": PINS[name]}) as response:
            if response.status != 200:
                pictures.append(-response.status)  # the sign-in's refusal, as a negative count
                return
        version, got = 0, 0
        while not stop.is_set():
            async with session.get(f"{base}api/view?since={version}") as response:
                body = await response.json()
            version = int(body.get("version", version))
            got += 1
        pictures.append(got)


async def _load(base: str, seconds: float, consoles: int, bad: int, rate: float, flood_base: str,
                sources: int) -> dict[str, Any]:
    stop = asyncio.Event()
    pictures: list[int] = []
    answers: dict[str, int] = {}
    polling = [asyncio.create_task(_poller(base, "dee" if i % 2 == 0 else "dan", stop, pictures))
               for i in range(consoles)]
    started = time.monotonic()
    # From other addresses than the consoles' (other hosts of the loopback net): the flood
    # stands for a scanner on the casino's network, the consoles for the table's own screens.
    target = urllib.parse.urlsplit(flood_base)
    addresses = [FLOOD_FROM.rsplit(".", 1)[0] + f".{2 + n}" for n in range(sources)]
    answers.update(await asyncio.to_thread(flood.send, target.hostname or "127.0.0.1", target.port or 80, bad, rate,
                                           addresses))
    flood_s = time.monotonic() - started
    await asyncio.sleep(max(0.0, seconds - flood_s))
    stop.set()
    await asyncio.gather(*polling)
    return {"pictures": pictures, "answers": answers, "flood_s": round(flood_s, 1)}


def run_load(base: str, seconds: float, consoles: int, bad: int, rate: float, flood_base: str,
             sources: int = 1) -> dict[str, Any]:
    return asyncio.run(_load(base, seconds, consoles, bad, rate, flood_base, sources))


def _load_in_child(base: str, args: argparse.Namespace, seconds: float) -> subprocess.Popen[str]:
    code = (
        "import json, os, sys; sys.path.insert(0, {bench!r})\n"
        "from console_load import run_load\n"
        "print(json.dumps(run_load({base!r}, {seconds}, {c}, {b}, {r}, {flood!r}, {sources})))\n"
    ).format(bench=str(REPO / "bench"), base=base, seconds=seconds, c=args.consoles, b=args.bad,
             flood=f"http://127.0.0.1:{free_port()}/" if args.flood_to_nowhere else base,
             r=args.bad / args.seconds, sources=args.flood_from)
    # A session of its own (its own autogroup, see the module's docstring), at the normal class:
    # it takes its CPU from every session alike, as near as one machine can play another's.
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO,
                            start_new_session=True)


# --- the bets tapped, from this process -----------------------------------------------------


def tap_bets(base: str, count: int) -> list[float]:
    """Sign in and tap ``count`` bets, one every 50 ms; milliseconds from each tap to its answer."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def post(path: str, body: dict[str, Any], csrf: str = "") -> dict[str, Any]:
        request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": csrf})
        with opener.open(request, timeout=10) as response:
            return dict(json.loads(response.read()))

    csrf = str(post("api/sign-in", {"name": "dee", "pin": PINS["dee"]})["csrf"])
    times = []
    for n in range(count):
        started = time.perf_counter()
        post("api/command", {"command": "bet", "args": {"box": "2", "player": f"tap{n % 3}", "region": "player",
                                                       "amount": 1000}}, csrf)
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(0.05)
    return times


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc's children lists)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(c) for c in children.read().split())
        except OSError:
            continue
    return found


def _role(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except OSError:
        return "gone"
    text = b" ".join(words).decode(errors="replace")
    for marker, role in (("station-console", "console"), ("scoreboard", "scoreboard"),
                         ("station-sim", "simulated table"), ("outbox", "floor outbox"), ("station run", "station")):
        if marker in text:
            return role
    return "other"


def cpu_seconds(pids: list[int]) -> dict[str, float]:
    """CPU seconds (user + system) each role has used so far, by /proc/PID/stat."""
    ticks = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        role = _role(pid)
        used[role] = used.get(role, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return used


def _spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {role: after[role] - before.get(role, 0.0) for role in after}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measurement")
    parser.add_argument("--consoles", type=int, default=5)
    parser.add_argument("--bad", type=int, default=10_000)
    parser.add_argument("--bets", type=int, default=100, help="bets tapped in each loaded window")
    parser.add_argument("--runs", type=int, default=5, help="alternate quiet and loaded measurements this often")
    parser.add_argument("--flood-to-nowhere", action="store_true",
                        help="send the flood to a port nobody listens on: what the generator alone costs the table")
    parser.add_argument("--flood-from", type=int, default=1, metavar="N",
                        help="spread the flood over N source addresses (127.0.0.2 onwards): each is refused "
                             "20 times before it is shut out")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="console-load-") as scratch:
        directory = Path(scratch)
        port = free_port()
        config = write_config(directory, port)
        station = Station(config, directory / "station.log")
        base = f"http://127.0.0.1:{port}/"
        bets: list[float] = []
        try:
            station.wait_dealing()
            time.sleep(3)
            quiet, loaded, windows = [], [], []
            spent: list[dict[str, float]] = []
            report: dict[str, Any] = {}
            for _ in range(args.runs):
                q, _, b, e = rate(station, args.seconds)
                quiet.append(q)
                windows.append((b, e))
                load = _load_in_child(base, args, args.seconds + 3)
                time.sleep(1.5)  # the consoles sign in, the flood starts
                table = _descendants(station.process.pid)
                with ThreadPoolExecutor(1) as tapper:
                    tapped = tapper.submit(tap_bets, base, args.bets)
                    before = {**cpu_seconds(table), "load generator": cpu_seconds([load.pid])["other"]}
                    r, _, b, e = rate(station, args.seconds)
                    after = {**cpu_seconds(table), "load generator": cpu_seconds([load.pid])["other"]}
                    spent.append(_spent(before, after))
                    loaded.append(r)
                    windows.append((b, e))
                    bets += tapped.result()
                out, _ = load.communicate(timeout=300)
                report = json.loads(out)
        finally:
            station.stop()
            if station.process.poll() is None:
                station.process.kill()
        rounds = rounds_in(config, windows)
    quiet_rounds = [rounds[i] / args.seconds for i in range(0, len(rounds), 2)]
    loaded_rounds = [rounds[i] / args.seconds for i in range(1, len(rounds), 2)]
    print(f"table, consoles idle:   {statistics.mean(quiet):7.1f} inputs/s  {statistics.mean(quiet_rounds):6.1f} "
          f"rounds/s  (rounds/s by window: {', '.join(f'{x:.1f}' for x in quiet_rounds)})")
    print(f"table, consoles loaded: {statistics.mean(loaded):7.1f} inputs/s  {statistics.mean(loaded_rounds):6.1f} "
          f"rounds/s  (rounds/s by window: {', '.join(f'{x:.1f}' for x in loaded_rounds)})")
    ratios = sorted(x / q for q, x in zip(quiet_rounds, loaded_rounds, strict=True) if q)
    print(f"rounds/s loaded / quiet, window by window: {', '.join(f'{r:.3f}' for r in ratios)}; "
          f"median {statistics.median(ratios):.3f}")
    print(f"bet tapped -> journaled and answered: {len(bets)} bets, p50 {percentile(bets, 0.5):.1f} ms, "
          f"p99 {percentile(bets, 0.99):.1f} ms, max {max(bets):.1f} ms")
    print(f"bad requests: {args.bad} in {report['flood_s']} s, answered {dict(sorted(report['answers'].items()))}")
    print(f"pictures each polling console got in the last window: {report['pictures']}")
    roles = sorted({role for window in spent for role in window})
    print("CPU seconds per loaded window of " + f"{args.seconds:g} s, median: " + ", ".join(
        f"{role} {statistics.median(w.get(role, 0.0) for w in spent):.2f}" for role in roles))


if __name__ == "__main__":
    main()
