"""``station diag`` for the chip reader, through the real CLI against its simulator on real ptys:
probe, selftest, monitor and chip-read, by URL and by its ``[devices.chipreader]`` section
(``sim:`` included)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.codec import chipreader as wire
from drivers.codec.protocol import Identify
from station.cli.main import main

from ..waiting import wait_until
from .helpers import write_config

A, B = "E004015012345678", "E004015012345679"


def test_probe_by_url_shows_identity_and_the_readers_status(sim, capsys) -> None:
    reader = sim("chipreader", serial="CHIP-77", firmware="1.2.0")
    reader.simulator.lose_antenna(3)
    assert main(["diag", "probe", "--url", reader.url, "--kind", "chipreader", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identity"] == {"model": "SIM-CHIPREADER-1", "serial": "CHIP-77", "firmware": "1.2.0",
                                  "protocol_version": 2}
    assert report["status"] == {"continuous": False, "period_ms": 0, "rf_power": 100, "rounds": 0, "faulted": [3]}
    assert main(["diag", "probe", "--url", reader.url, "--kind", "chipreader"]) == 0
    out = capsys.readouterr().out
    assert "model SIM-CHIPREADER-1, serial CHIP-77, firmware 1.2.0, protocol version 2" in out
    assert "continuous=False" in out and "faulted=3" in out


def test_a_configured_sim_reader_is_probed_through_its_simulator(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "station.toml", {"chipreader": "sim:?antennas=4&protocol_version=1"})
    assert main(["diag", "-c", str(config), "probe", "chipreader"]) == 0
    out = capsys.readouterr().out
    assert "chipreader (simulated: started its simulator at" in out
    assert "model SIM-CHIPREADER-1" in out and "protocol version 1" in out and "rf_power=100" in out


def test_selftest_tests_the_reader_with_the_rest_and_names_a_faulted_antenna(sim, tmp_path: Path, capsys) -> None:
    shoe, reader = sim("shoe"), sim("chipreader")
    reader.simulator.lose_antenna(2, wire.AntennaFaultCode.SHORT_CIRCUIT)
    config = write_config(tmp_path / "station.toml", {"shoe": shoe.url, "chipreader": reader.url})
    assert main(["diag", "-c", str(config), "selftest"]) == 1
    out = capsys.readouterr().out
    assert "self-test of 2 configured device(s)" in out
    assert "FAIL  chipreader antenna 2 short_circuit" in out and "FAILED: chipreader" in out
    reader.simulator.restore_antenna(2)
    assert main(["diag", "-c", str(config), "selftest", "--json"]) == 0
    verdicts = {v["device"]: v for v in json.loads(capsys.readouterr().out)["devices"]}
    assert verdicts["chipreader"]["passed"]
    assert verdicts["chipreader"]["detail"] == "all 8 antennas tuned and reading"


def test_chip_read_lists_each_antennas_chips_one_line_each(sim, tmp_path: Path, capsys) -> None:
    reader = sim("chipreader", antennas=4, part_size=16)
    reader.simulator.place(1, [B, A])
    stack = reader.simulator.stack(3, 100)  # in seven parts, one read
    config = write_config(tmp_path / "station.toml", {"chipreader": reader.url})
    assert main(["diag", "-c", str(config), "chip-read"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"chip read on chipreader at {reader.url}"
    assert lines[1:] == [
        f"  antenna 1   2 chips   {A} {B}",
        "  antenna 2   no chips",
        f"  antenna 3   100 chips {' '.join(stack)}",
        "  antenna 4   no chips",
        "every antenna read: 102 chip(s) on 4 antenna(s)",
    ]
    assert [c.WIRE_NAME for c in reader.simulator.commands(wire.Inventory)] == ["Inventory"] * 4
    assert len(reader.simulator.commands(wire.InventoryPart)) == 6


def test_chip_read_names_a_faulted_antenna_a_round_cut_short_and_collisions(sim, capsys) -> None:
    reader = sim("chipreader", antennas=4, part_size=16)
    simulator = reader.simulator
    simulator.lose_antenna(2)
    simulator.stack(3, 40)
    simulator.abandon_next_report()  # antenna 3's report stops before its last part
    simulator.place(4, [A, B, "E00401501234567A"])
    simulator.collide(4, rounds=1, chips=2)
    assert main(["diag", "chip-read", "--url", reader.url, "--kind", "chipreader"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  antenna 1   no chips"
    assert lines[2] == "  antenna 2   FAULT     disconnected"
    assert lines[3].startswith("  antenna 3   FAILED    chipreader: round ") and "stopped after 2 part(s)" in lines[3]
    assert lines[4].startswith("  antenna 4   1 chip    E0040150") and lines[4].endswith(
        "(1 collision: chips there were not read)")
    assert lines[5] == "FAILED: antenna(s) 2 faulted; antenna(s) 3 not read"
    assert main(["diag", "chip-read", "--url", reader.url, "--kind", "chipreader", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    antennas = {a["antenna"]: a for a in report["antennas"]}
    assert not report["passed"] and antennas[2]["fault"] == "disconnected" and not antennas[2]["passed"]
    assert len(antennas[3]["uids"]) == 40 and antennas[3]["passed"]  # a new round, read whole
    assert antennas[4]["collisions"] == 0 and len(antennas[4]["uids"]) == 3


def test_chip_read_needs_a_chip_reader(sim, capsys) -> None:
    display = sim("display")
    assert main(["diag", "chip-read", "--url", display.url, "--kind", "display"]) == 2
    assert "needs a chipreader" in capsys.readouterr().err


@pytest.mark.e2e  # the monitor runs as its own process, as a technician runs it (tests/conftest.py)
def test_monitor_shows_the_readers_frames_and_a_corrupt_one_as_such(sim) -> None:
    reader = sim("chipreader")
    child = subprocess.Popen(
        [sys.executable, "-m", "station", "diag", "monitor", "--url", reader.url, "--kind", "chipreader",
         "--count", "50", "--seconds", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_until(lambda: any(isinstance(m, wire.GetAntennas) for m in list(reader.simulator.received)), 20,
                   "the monitor to connect and read the antenna list")
        assert any(isinstance(m, Identify) for m in reader.simulator.received)
        assert reader.simulator.wait_idle(10)  # the power-on Boot is through
        reader.simulator.corrupt_next_frames(1)
        reader.simulator.lose_antenna(2)  # sent with a bad CRC, then resent intact
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert "rx    IdentityReport(model='SIM-CHIPREADER-1'" in out
    assert "rx    AntennaList(antennas=[(1,ok) (2,ok)" in out
    assert "rx    CORRUPT bad_crc" in out
    assert "rx    AntennaFault(antenna=2, code=disconnected, detail='')" in out
    assert out.count("=> DeviceFault") == 1 and "antenna 2: disconnected" in out  # the corrupt frame never became one
    assert "1 corrupt" in out.splitlines()[-1]
