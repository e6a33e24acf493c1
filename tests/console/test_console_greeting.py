"""``station run`` started by hand on a terminal says once, plainly, where the dealer's console
is and how to sign in, and names the users whose PIN anyone may know (the shipped simulated
table's); under systemd (no terminal) it says nothing of the kind."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from station.config.pins import hash_pin
from station.console.feed import console_greeting

from ..shipped import runnable_copy, shipped

pytestmark = pytest.mark.e2e


def test_the_greeting_names_users_with_a_well_known_pin() -> None:
    users = [{"name": "dana", "role": "dealer", "pin_scrypt": hash_pin("1234")},
             {"name": "kim", "role": "dealer", "pin_scrypt": hash_pin("739154")},
             {"name": "sam", "role": "supervisor", "pin_scrypt": hash_pin("5678")}]
    text = console_greeting("http://127.0.0.1:8081/", users)
    assert text.startswith("The dealer's console: http://127.0.0.1:8081/ (sign in with a name and PIN")
    assert "dana (dealer) PIN 1234, sam (supervisor) PIN 5678" in text and "kim" not in text
    assert "\n" not in console_greeting("http://127.0.0.1:8081/", users[1:2])


def test_station_run_on_a_terminal_says_where_the_console_is(tmp_path: Path) -> None:
    copy = runnable_copy(shipped("station"), tmp_path, pace_ms=200)
    leader, follower = os.openpty()
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    env.pop("STATION_JOURNAL", None)
    station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(copy.config)],
                               stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    said = b""
    try:
        deadline = time.monotonic() + 60
        while b"dana (dealer) PIN 1234" not in said and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    said += os.read(leader, 65536)
                except OSError:  # the terminal closed: the station ended
                    break
    finally:
        station.send_signal(signal.SIGTERM)
        station.wait(60)
        os.close(leader)
    text = said.decode(errors="replace")
    assert f"The dealer's console: {copy.console_url}" in text, text[-2000:]
    assert "dana (dealer) PIN 1234, sam (supervisor) PIN 5678" in text
    assert text.count("The dealer's console:") == 1
