"""A pit's load on the scoreboard of a station dealing at full speed (issue 13): 200 viewers,
100 that stop reading, 10,000 requests to unknown paths and 500 connections whose headers
never end (``-m soak``; about a quarter of it by default, as the suite must stay short).
Functional outcomes only (bench/web_load.py measures the table's rate): every normal viewer
keeps getting pictures, connections past the cap are answered 503, slow headers and stalled
viewers are closed by the server, the table goes on dealing, and the station stops on
SIGTERM with its scoreboard.
"""

from __future__ import annotations

import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..benches import load_bench
from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def _bench() -> Any:
    return load_bench("web_load")


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def _scoreboard_pid(station_pid: int) -> int | None:
    for task in Path(f"/proc/{station_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if b"station-scoreboard" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
    return None


@dataclass(frozen=True)
class PitLoad:
    """How much load: the issue's whole pit (``soak``), or a short version run by default."""

    seconds: float
    viewers: int
    stalled: int
    junk: int
    slow: int
    cap: int  # the viewers and the stalled ones fit; most slow connections do not
    min_pictures: int  # pictures each normal viewer must get while the load lasts
    dealt: int  # records the table must journal meanwhile


PIT = PitLoad(15.0, 200, 100, 10_000, 500, cap=400, min_pictures=20, dealt=1000)
# A stalled viewer is dropped once 256 KB wait for it beyond its socket's buffer: at four pictures
# a second that takes 5-6 s, so the short load lasts twice that.
SHORT = PitLoad(12.0, 50, 25, 2_000, 100, cap=100, min_pictures=16, dealt=300)


@pytest.mark.parametrize("load", [pytest.param(SHORT, id="short"), pytest.param(PIT, id="pit", marks=pytest.mark.soak)])
def test_a_pit_of_screens_and_a_flood_do_not_stop_the_table_or_the_viewers(tmp_path: Path, load: PitLoad) -> None:
    bench = _bench()
    port = bench.free_port()
    config = bench.write_config(tmp_path, port, max_connections=load.cap)
    station = bench.Station(config, tmp_path / "station.log")
    try:
        station.wait_dealing()
        scoreboard = _scoreboard_pid(station.process.pid)
        assert scoreboard is not None
        before = station.head()
        result: dict[str, Any] = {}
        loader = threading.Thread(target=lambda: result.setdefault("report", bench.run_load(
            f"http://127.0.0.1:{port}/", load.seconds, load.viewers, load.stalled, load.junk, load.slow)))
        loader.start()
        loader.join(240)
        assert not loader.is_alive() and "report" in result, "the load did not finish within 240 s"
        report = result["report"]
        after = station.head()

        assert report.viewers_connected == load.viewers and report.viewers_refused == 0
        assert len(report.viewer_events) == load.viewers
        assert min(report.viewer_events) >= load.min_pictures, "every normal viewer kept getting pictures"
        assert max(report.viewer_since_last_s) < 3.0, "and still got them at the end"
        assert report.stalled_connected == load.stalled and report.stalled_closed_by_server == load.stalled
        assert report.slow_connected == load.slow
        assert report.slow_refused_503 > 0, "connections past the cap are answered 503"
        assert report.slow_refused_503 + report.slow_closed_by_server == load.slow, "no slow request is kept"
        assert max(report.slow_kept_s) < 10.0
        # Each request to an unknown path is answered at once: 404, or 503 while the slow
        # connections fill the cap (a 503 costs less than a 404, so the flood may be over first).
        assert report.junk_sent == load.junk and set(report.junk_status) <= {"404", "503"}, report.junk_status
        assert after > before + load.dealt, "the table went on dealing"

        # Once the trouble is over, a screen that comes back is served at once.
        def served() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/snapshot", timeout=5) as answer:
                    assert b'"round_no"' in answer.read()
            except urllib.error.HTTPError as exc:
                assert exc.code == 503, exc
                return False
            return True

        wait_until(served, 15, "the snapshot served again after the trouble", poll=0.5)

        code = station.process.poll()
        assert code is None, f"the station stopped: {(tmp_path / 'station.log').read_text()[-2000:]}"
        started = time.monotonic()
        station.process.send_signal(15)
        assert station.process.wait(30) == 0
        stopped_in = time.monotonic() - started
        assert not _alive(scoreboard) or not os.path.exists(f"/proc/{scoreboard}")
        print(f"stopped in {stopped_in:.2f} s")
    finally:
        if station.process.poll() is None:
            station.process.kill()
            station.process.wait(10)
