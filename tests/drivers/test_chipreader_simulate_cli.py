"""``station simulate chipreader`` in a real subprocess: the reader's simulator by hand, served to
the real driver, chips put down and taken up and an antenna broken from its standard input."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from drivers.devices import ChipReaderDriver
from station import events as ev
from station.chip_events import ChipsRead

from ..waiting import Sink
from .helpers import FAST, Recorder

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

A = "E004015012345678"


def test_the_reader_by_hand_reports_the_chips_put_down_and_breaks_on_request() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "simulate", "chipreader", "--ack-timeout", "0.05", "--antennas", "4"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    first = proc.stdout.readline()
    assert "chipreader simulator ready: connect to " in first, first
    printed: Sink[str] = Sink()  # what it prints from here on, line by line, read on a thread of its own
    output = proc.stdout

    def read() -> None:
        for line in output:
            printed(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    stdin = proc.stdin

    def type_in(*lines: str) -> None:
        stdin.write("".join(f"{line}\n" for line in lines))
        stdin.flush()

    rec = Recorder()
    driver = ChipReaderDriver("chipreader", first.rsplit("connect to ", 1)[1].strip(), rec, settings=FAST)
    try:
        assert driver.start(10) and driver.wait_synced(10)
        type_in(f"place 1 {A}", "stack 2 3", "chips")
        printed.wait_matching(lambda line: line == "antenna 2: 3 chip(s) E004015000000001 E004015000000002 "
                                                  "E004015000000003")
        assert f"antenna 1: 1 chip(s) {A}" in printed.items
        assert driver.inventory(2).uids == ("E004015000000001", "E004015000000002", "E004015000000003")
        printed.wait_matching(lambda line: line == "<- Inventory(antenna=2)")
        assert driver.set_mode(True, 50)
        printed.wait_matching(lambda line: line == "<- SetMode(continuous=1, period_ms=50)")
        rec.wait_matching(lambda e: isinstance(e, ChipsRead) and (e.antenna, e.uids) == (1, (A,)))
        printed.wait_matching(lambda line: line.startswith("-> AntennaChanged(antenna=1,") and A in line)
        type_in("lose 3 detuned", "remove 1")
        assert rec.wait_kind(ev.DeviceFault)[0].reason == "antenna 3: detuned"
        rec.wait_matching(lambda e: isinstance(e, ChipsRead) and (e.antenna, e.uids) == (1, ()))
        assert not driver.self_test().passed
        type_in("place 9 E004015012345679")  # a typo at the prompt: said, and the simulator goes on
        printed.wait_matching(lambda line: line == "error: the reader has antennas 1 to 4, not 9")
        type_in("quit")
        assert proc.wait(timeout=30) == 0
    finally:
        driver.stop()
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    assert any("speaks chipreader protocol version 2" in line for line in printed.items)


def test_a_reader_with_more_antennas_than_a_byte_numbers_is_refused_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "station", "simulate", "chipreader", "--antennas", "256"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "antennas must be 1 to 255, not 256" in result.stderr
