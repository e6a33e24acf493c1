"""Web scoreboard under a pit's load, against a station dealing at full speed.

Run: ``.venv/bin/python bench/web_load.py [--runs 5] [--seconds 10] [--viewers 200]
[--stalled 100] [--junk 10000] [--slow 500]``

1. ``station run`` (a real subprocess) on the simulated table with a simulated dealer at full
   speed (``pace_ms = 0``), its journal ``synchronous=FULL``, the web scoreboard enabled.
2. **Without viewers**: the table's rate over ``--seconds``: inputs journaled per second (the
   core loop's work: cards, actions, presses), read from the journal's head, and rounds per
   second (rounds closed in the window, from ``station recall``).
3. **With the load**, from a separate process in the idle scheduling class (SCHED_IDLE: on a
   pit, browsers are other machines and take no CPU of the table PC; here the load generator
   must not take it either, or it would measure itself): ``--viewers`` Server-Sent Events
   viewers that read every event, ``--stalled`` viewers that send their request and never
   read, ``--junk`` requests to unknown paths (926 a second, the issue's flood; 16 at a time
   at most), and ``--slow`` connections that
   send a request line and then one header line a second, never finishing. The table's rate
   is measured again over the same time.
4. **Stop**: SIGTERM to the station while the load runs; the time until it has exited (its
   scoreboard process included).

Quiet and loaded windows alternate ``--runs`` times; each loaded window is compared with the
quiet one just before it (the machine's own drift moves the rate too) and the median of those
ratios is the figure. Prints the rates with and without the load and the ratios, what each kind of client got
(events per viewer, the slowest viewer's longest gap, 404/503 counts, how long slow and
stalled connections were kept), and the stop time. Asserts nothing (target: the rate with
the load within 5% of the rate without; every normal viewer keeps getting updates; stop
within 1 s). ``tests/web/test_web_load.py`` runs :func:`run_load` and asserts the functional
outcomes only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


# --- the load ----------------------------------------------------------------------------------


@dataclass
class LoadReport:
    viewers_connected: int = 0
    viewer_events: list[int] = field(default_factory=list)
    viewer_last_gap_s: list[float] = field(default_factory=list)  # longest gap between two events, per viewer
    viewer_since_last_s: list[float] = field(default_factory=list)  # at the end: time since the last event
    viewers_refused: int = 0
    stalled_connected: int = 0
    stalled_closed_by_server: int = 0
    junk_sent: int = 0
    junk_seconds: float = 0.0
    junk_status: dict[str, int] = field(default_factory=dict)
    slow_connected: int = 0
    slow_refused_503: int = 0
    slow_closed_by_server: int = 0
    slow_kept_s: list[float] = field(default_factory=list)
    seconds: float = 0.0


async def _read_head(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0]


async def _viewer(host: str, port: int, report: LoadReport, stop: asyncio.Event) -> None:
    try:
        reader, writer = await asyncio.open_connection(host, port, limit=4 * 1024 * 1024)
        writer.write(b"GET /events HTTP/1.1\r\nHost: pit\r\nAccept: text/event-stream\r\n\r\n")
        status = await asyncio.wait_for(_read_head(reader), 10)
    except (OSError, asyncio.IncompleteReadError, TimeoutError):
        report.viewers_refused += 1
        return
    if b" 200 " not in status:
        report.viewers_refused += 1
        writer.close()
        return
    report.viewers_connected += 1
    events = 0
    last = time.monotonic()
    longest = 0.0
    tail = b""
    marker = b"event: snapshot"
    try:
        # Counted in whole reads, not parsed line by line: a screen is another machine, and
        # the load generator must take as little of this one's CPU as it can.
        while not stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(256 * 1024), 0.5)
            except TimeoutError:
                continue
            if not data:
                break
            seen = (tail + data).count(marker)
            tail = data[-(len(marker) - 1):]
            if seen:
                now = time.monotonic()
                if events:
                    longest = max(longest, now - last)
                events += seen
                last = now
    except (OSError, asyncio.IncompleteReadError):
        pass
    report.viewer_events.append(events)
    report.viewer_last_gap_s.append(round(longest, 3))
    report.viewer_since_last_s.append(round(time.monotonic() - last, 3))
    writer.close()


def _stalled_socket(host: str, port: int) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a viewer that reads nothing
    try:
        sock.settimeout(5)
        sock.connect((host, port))
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: pit\r\n\r\n")
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed or reset this connection (reading what is left)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


async def _junk(host: str, port: int, count: int, rate: float, report: LoadReport) -> None:
    """``count`` requests to unknown paths, paced at ``rate`` a second (16 at a time at most),
    so that the flood lasts through the measured window rather than ending in its first
    seconds; every one is sent, however long a loaded machine takes."""
    started = time.monotonic()

    async def one(i: int) -> None:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"GET /no-such-page-%d HTTP/1.1\r\nHost: pit\r\n\r\n" % i)
            status = await asyncio.wait_for(_read_head(reader), 10)
            code = status.split()[1].decode() if len(status.split()) > 1 else "?"
            writer.close()
        except (OSError, asyncio.IncompleteReadError, TimeoutError, IndexError) as exc:
            code = f"error ({type(exc).__name__})"  # which error says where it broke
        report.junk_status[code] = report.junk_status.get(code, 0) + 1
        report.junk_sent += 1

    queue = iter(range(count))

    async def worker() -> None:
        for i in queue:
            due = started + i / rate
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            await one(i)

    await asyncio.gather(*(worker() for _ in range(16)))
    report.junk_seconds = round(time.monotonic() - started, 2)


async def _slow(host: str, port: int, report: LoadReport, stop: asyncio.Event) -> None:
    started = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET / HTTP/1.1\r\nHost: pit\r\n")
    except OSError:
        return
    report.slow_connected += 1
    try:
        while not stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(256), 1.0)
            except TimeoutError:
                writer.write(b"X-Slow: 1\r\n")  # one more header line, never the end of them
                continue
            if data.startswith(b"HTTP/1.1 503"):
                report.slow_refused_503 += 1
                return
            if not data:
                report.slow_closed_by_server += 1
                report.slow_kept_s.append(round(time.monotonic() - started, 2))
                return
    except (OSError, asyncio.IncompleteReadError):
        report.slow_closed_by_server += 1
        report.slow_kept_s.append(round(time.monotonic() - started, 2))
    finally:
        writer.close()


async def _load(host: str, port: int, seconds: float, viewers: int, stalled: int, junk: int,
                slow: int, junk_rate: float) -> LoadReport:
    report = LoadReport()
    stop = asyncio.Event()
    started = time.monotonic()
    viewer_tasks = [asyncio.create_task(_viewer(host, port, report, stop)) for _ in range(viewers)]
    await asyncio.sleep(1.0)  # the pit's screens are up before the trouble starts
    loop = asyncio.get_running_loop()
    stalled_socks = [s for s in await asyncio.gather(
        *(loop.run_in_executor(None, _stalled_socket, host, port) for _ in range(stalled))) if s is not None]
    report.stalled_connected = len(stalled_socks)
    slow_tasks = [asyncio.create_task(_slow(host, port, report, stop)) for _ in range(slow)]
    junk_task = asyncio.create_task(_junk(host, port, junk, junk_rate, report))
    await asyncio.sleep(max(0.0, seconds - (time.monotonic() - started)))
    await junk_task  # the viewers watch until the whole flood has been sent
    stop.set()
    await asyncio.gather(*viewer_tasks, *slow_tasks)
    report.stalled_closed_by_server = sum(_closed_by_server(s) for s in stalled_socks)
    for sock in stalled_socks:
        sock.close()
    report.seconds = round(time.monotonic() - started, 2)
    return report


def run_load(url: str, seconds: float = 15.0, viewers: int = 200, stalled: int = 100, junk: int = 10_000,
             slow: int = 500, junk_rate: float = 926.0) -> LoadReport:
    """Load the scoreboard at ``url`` for ``seconds`` (a pit's screens, then trouble) and say
    what each kind of client got."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return asyncio.run(_load(parts.hostname, parts.port, seconds, viewers, stalled, junk, slow, junk_rate))


# --- the station -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(directory: Path, port: int, max_connections: int = 512) -> Path:
    config = directory / "station.toml"
    config.write_text(f"""
[station]
name = "Web load"
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

[web]
enabled = true
port = {port}
max_connections = {max_connections}

[control]
socket = "{directory / 'control.sock'}"
""")
    return config


class Station:
    """``station run`` on a configuration, as a subprocess."""

    def __init__(self, config: Path, log: Path) -> None:
        env = {**os.environ, "XDG_RUNTIME_DIR": str(config.parent / "run"), "PYTHONUNBUFFERED": "1"}
        env.pop("STATION_JOURNAL", None)
        self.journal = config.parent / "journal.sqlite3"
        self.config = config
        self.log = log
        with log.open("a") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)],
                                            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO)

    def head(self) -> int:
        """The journal's last sequence number (inputs journaled so far)."""
        try:
            with sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True, timeout=5) as db:
                row = db.execute("SELECT last_seq FROM head").fetchone()
        except sqlite3.Error:
            return 0
        return int(row[0]) if row else 0

    def wait_dealing(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the station exited:\n{self.log.read_text()[-3000:]}")
            if self.head() > 200:
                return
            time.sleep(0.2)
        raise SystemExit("the station did not start dealing")

    def stop(self) -> float:
        """SIGTERM; seconds until the station (and its children) have exited."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        return time.monotonic() - started


def rate(station: Station, seconds: float) -> tuple[float, float, str, str]:
    """(inputs/s, wall seconds, window start, window end) over ``seconds``."""
    from datetime import UTC, datetime

    begin = datetime.now(UTC).isoformat()
    first, started = station.head(), time.monotonic()
    time.sleep(seconds)
    last, ended = station.head(), time.monotonic()
    end = datetime.now(UTC).isoformat()
    return (last - first) / (ended - started), ended - started, begin, end


def rounds_in(config: Path, windows: list[tuple[str, str]]) -> list[int]:
    """Rounds closed within each (start, end) window, from ``station recall``."""
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config", str(config)],
                         capture_output=True, text=True, timeout=600, cwd=REPO)
    rounds = json.loads(out.stdout) if out.returncode == 0 else []
    return [sum(1 for r in rounds if r["closed_at"] and begin <= _utc(r["closed_at"]) <= end)
            for begin, end in windows]


def _utc(stamp: str) -> str:
    from datetime import UTC, datetime

    return datetime.fromisoformat(stamp).astimezone(UTC).isoformat()


def _load_in_child(url: str, args: argparse.Namespace, seconds: float) -> subprocess.Popen[str]:
    code = (
        "import json, os, sys; sys.path.insert(0, {bench!r})\n"
        "os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
        "from web_load import run_load\n"
        "from dataclasses import asdict\n"
        "print(json.dumps(asdict(run_load({url!r}, {seconds}, {v}, {s}, {j}, {w}))))\n"
    ).format(bench=str(REPO / "bench"), url=url, seconds=seconds, v=args.viewers, s=args.stalled, j=args.junk,
             w=args.slow)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measurement")
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--stalled", type=int, default=100)
    parser.add_argument("--junk", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5, help="alternate quiet and loaded measurements this often")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="web-load-") as scratch:
        directory = Path(scratch)
        port = free_port()
        config = write_config(directory, port)
        station = Station(config, directory / "station.log")
        url = f"http://127.0.0.1:{port}/"
        try:
            station.wait_dealing()
            time.sleep(3)  # past the first shoe's start
            quiet, loaded, windows = [], [], []
            report: dict[str, Any] = {}
            for _ in range(args.runs):
                q, _, b, e = rate(station, args.seconds)
                quiet.append(q)
                windows.append((b, e))
                load = _load_in_child(url, args, args.seconds + 4)
                time.sleep(2.5)  # the screens connect, the trouble starts
                r, _, b, e = rate(station, args.seconds)
                loaded.append(r)
                windows.append((b, e))
                out, _ = load.communicate(timeout=120)
                report = json.loads(out)
            # One more load, with the stop in the middle of it.
            load = _load_in_child(url, args, 8)
            time.sleep(4)
            stop_s = station.stop()
            load.communicate(timeout=120)
        finally:
            if station.process.poll() is None:
                station.process.kill()
        rounds = rounds_in(config, windows)
    quiet_rounds = [rounds[i] / args.seconds for i in range(0, len(rounds), 2)]
    loaded_rounds = [rounds[i] / args.seconds for i in range(1, len(rounds), 2)]
    print(f"table without viewers: {sum(quiet) / len(quiet):7.1f} inputs/s  "
          f"{sum(quiet_rounds) / len(quiet_rounds):6.1f} rounds/s  (runs: {', '.join(f'{x:.1f}' for x in quiet)})")
    print(f"table with the load:   {sum(loaded) / len(loaded):7.1f} inputs/s  "
          f"{sum(loaded_rounds) / len(loaded_rounds):6.1f} rounds/s  (runs: {', '.join(f'{x:.1f}' for x in loaded)})")
    # The machine's own drift (other work on it) moves the rate too: each loaded window is
    # compared with the quiet window just before it, and the median of those ratios is the figure.
    ratios = sorted(x / q for q, x in zip(quiet, loaded, strict=True))
    print(f"loaded / quiet, window by window: {', '.join(f'{r:.3f}' for r in ratios)}; "
          f"median {statistics.median(ratios):.3f}")
    events = report["viewer_events"]
    print(f"viewers: {report['viewers_connected']} connected, {report['viewers_refused']} refused; events each "
          f"min {min(events) if events else 0} max {max(events) if events else 0}; longest gap "
          f"{max(report['viewer_last_gap_s'] or [0]):.2f} s")
    print(f"stalled viewers: {report['stalled_connected']} connected, {report['stalled_closed_by_server']} closed "
          f"by the server")
    print(f"unknown paths: {report['junk_sent']} sent in {report['junk_seconds']} s "
          f"({report['junk_sent'] / max(report['junk_seconds'], 0.001):.0f}/s), answers {report['junk_status']}")
    kept = sorted(report["slow_kept_s"])
    print(f"slow headers: {report['slow_connected']} connected, {report['slow_refused_503']} answered 503, "
          f"{report['slow_closed_by_server']} closed by the server after "
          f"{kept[0] if kept else 0}-{kept[-1] if kept else 0} s")
    print(f"station stopped {stop_s:.2f} s after SIGTERM, under load")


if __name__ == "__main__":
    main()
