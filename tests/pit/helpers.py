"""What the pit page's tests share: the real ``station pit`` process, feed replayers, and a
real station's journal to replay (tests/pit/feeds.py says how a replay is made)."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from ..floor.helpers import free_port
from ..waiting import tail, wait_until
from .picture_model import ViewModel

ROOT = Path(__file__).resolve().parents[2]
FEEDS = Path(__file__).resolve().with_name("feeds.py")


def pit_config(path: Path, broker_url: str, *, title: str = "Pit test", timezone: str = "Europe/Vienna",
               extra_pit: str = "", extra_broker: str = "") -> Path:
    port = free_port()
    path.write_text(f'[pit]\ntitle = "{title}"\nport = {port}\ntimezone = "{timezone}"\n{extra_pit}\n'
                    f'[broker]\nurl = "{broker_url}"\nclient_id = "pit-{port}"\n{extra_broker}\n')
    return path


class PitProcess:
    """``station pit -c CONFIG``, its output in ``log``; ``url`` once it serves."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config = config
        self.log = log
        port = next(line for line in config.read_text().splitlines() if line.startswith("port = "))
        self.url = f"http://127.0.0.1:{int(port.split('=')[1])}/"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PitProcess:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "station", "pit", "-c", str(self.config)],
                                            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        wait_until(self._healthy, 30, f"the pit page at {self.url}", poll=0.1, detail=lambda: tail(self.log, 2000))
        return self

    def _healthy(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"station pit exited {self.process.returncode}: {self.log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(self.url + "healthz", timeout=1) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def stop(self) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(15)
        self.process = None
        return code


def stop_all(processes: list[subprocess.Popen[Any]], wait_s: float = 20) -> None:
    """SIGTERM to every child still running, then wait for each (killed if it will not go)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(wait_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def make_journal(path: Path, *args: str, seed: int = 7) -> Path:
    """A real station's journal: ``station demo --fast`` on simulated hardware."""
    subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--json", "--seed", str(seed), "--journal",
                    str(path), *args], check=True, capture_output=True, timeout=240, cwd=ROOT)
    return path


def start_replayer(journal: Path, broker_url: str, *, first: int, tables: int, round_s: float, log: Path,
                   pit_size: int = 10, prefix: str = "dealing-station") -> subprocess.Popen[str]:
    """A process replaying ``journal``'s feed for ``tables`` tables (BAC-<first>, ...); it has
    said ``ready`` (every table online) when this returns."""
    process = subprocess.Popen(
        [sys.executable, str(FEEDS), "--broker", broker_url, "--journal", str(journal), "--first", str(first),
         "--tables", str(tables), "--round-s", str(round_s), "--pit-size", str(pit_size), "--prefix", prefix],
        stdout=subprocess.PIPE, stderr=log.open("a"), text=True, cwd=ROOT)
    assert process.stdout is not None
    readable, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if readable else ""
    if line.strip() != "ready":
        process.kill()
        process.wait(10)
        raise AssertionError(f"the replayer did not start: {log.read_text()[-2000:]}")
    return process


class Pictures:
    """One view of the page's event stream read as a screen reads it, on a thread (docs/pit.md,
    the picture protocol): ``view`` is ``"all"`` (every table), ``"floor"`` or ``"pit:A"``.
    Kept: when each table's last result first reached the viewer (``seen[(table, round_id)]``,
    time.time()) and the round's journal time as the tile says it (``journal[(table,
    round_id)]``, "" when only the retained state named it; a floor viewer learns no time);
    the events taken (``pictures``), the bytes received (``bytes``), the gaps met (a delta for
    another version: the stream is read again from a whole picture), and the view itself
    (``model``). ``lock`` guards them against the reading thread."""

    def __init__(self, url: str, view: str = "all") -> None:
        import threading
        from urllib.parse import quote, urlsplit

        parts = urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port)
        self.path = ("/events?all=1" if view == "all" else "/events" if view == "floor"
                     else f"/events?pit={quote(view.removeprefix('pit:'))}")
        self.model = ViewModel()
        self.seen: dict[tuple[str, str], float] = {}
        self.journal: dict[tuple[str, str], str] = {}
        self.pictures = 0
        self.bytes = 0
        self.gaps = 0
        self.lock = threading.Lock()
        self._open()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _open(self) -> None:
        import http.client

        self.connection = http.client.HTTPConnection(*self.address, timeout=30)
        self.connection.request("GET", self.path)
        self.response = self.connection.getresponse()

    def _read(self) -> None:
        event, data = "", b""
        try:
            while True:
                raw = self.response.readline()
                if not raw:
                    return
                self.bytes += len(raw)
                if raw.startswith(b"event: "):
                    event = raw[7:].strip().decode()
                elif raw.startswith(b"data: "):
                    data = raw[6:].rstrip(b"\n")
                elif raw == b"\n" and event:
                    self._take(event, data)
                    event, data = "", b""
        except (OSError, ValueError):
            return

    def _take(self, event: str, data: bytes) -> None:
        at = time.time()
        with self.lock:
            self.pictures += 1
            if not self.model.apply(event, data):
                self.gaps += 1  # as the page does: the stream again, from a whole picture
                self.connection.close()
                self._open()
                return
            for tile in self.model.tables.values():
                last = tile.get("last")
                if last and last.get("round_id"):
                    key = (tile["table"], last["round_id"])
                    if key not in self.seen:
                        self.seen[key] = at
                        self.journal[key] = str(last.get("time") or "")
            for entry in self.model.directory.values():
                key = (entry["table"], entry["round"])
                if entry["round"] and key not in self.seen:
                    self.seen[key] = at
                    self.journal.setdefault(key, "")

    def figures(self) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], str]]:
        """Copies of ``seen`` and ``journal``, taken while the reading thread waits."""
        with self.lock:
            return dict(self.seen), dict(self.journal)

    def close(self) -> None:
        self.connection.close()
