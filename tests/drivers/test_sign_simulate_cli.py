"""``station simulate sign`` in a real subprocess: the sign's simulator by hand, served to the
real driver, scripted on its standard input."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from drivers.devices import SignDriver
from station import events as ev

from ..waiting import Sink
from .helpers import FAST, Recorder

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_the_sign_by_hand_shows_what_it_is_sent_and_breaks_on_request() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "simulate", "sign", "--ack-timeout", "0.05", "--positions", "12"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    first = proc.stdout.readline()
    assert "sign simulator ready: connect to " in first, first
    printed: Sink[str] = Sink()  # what it prints from here on, line by line, read on a thread of its own
    output = proc.stdout

    def read() -> None:
        for line in output:
            printed(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    rec = Recorder()
    driver = SignDriver("sign", first.rsplit("connect to ", 1)[1].strip(), rec, settings=FAST)
    try:
        assert driver.start(10)
        driver.show_meter("Mega Jackpot", 123_456, 2, "EUR")
        printed.wait_matching(lambda line: line == "<- ShowMeter(title='Mega Jackpot', amount=123456, digits=2, "
                                                  "currency='EUR')")
        proc.stdin.write("screen\nfault 2\n")
        proc.stdin.flush()
        printed.wait_matching(lambda line: line == "Mega Jackpot 1,234.56 EUR")
        assert rec.wait_kind(ev.DeviceFault)[0].code == "led_row"
        assert not driver.self_test().passed
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        driver.stop()
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    assert any("speaks sign protocol version 2" in line for line in printed.items)


def test_a_sign_wider_than_any_amount_is_refused_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "station", "simulate", "sign", "--positions", "21"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "positions must be 1 to 20, not 21" in result.stderr
