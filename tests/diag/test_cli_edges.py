"""The diag command line around the devices: ports, configuration errors, and Ctrl-C (a real
SIGINT to a monitor running as its own process)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.codec.protocol import Identify
from station.cli.main import main

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_ports_json_lists_serial_and_usb(capsys) -> None:
    assert main(["diag", "ports", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"serial", "usb", "input"}
    for port in report["serial"]:
        assert {"device", "by_id", "vid_pid", "serial_number", "description"} <= set(port)


def test_a_broken_configuration_names_file_and_key(tmp_path: Path, capsys) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "sim:"\nbaud = 9600\n')
    assert main(["diag", "-c", str(config), "probe", "shoe"]) == 2
    err = capsys.readouterr().err
    assert str(config) in err and "devices.shoe.baud" in err


def test_ctrl_c_ends_the_monitor_with_its_summary(sim) -> None:
    shoe = sim("shoe")
    child = subprocess.Popen(
        [sys.executable, "-m", "station", "diag", "monitor", "--url", shoe.url, "--kind", "shoe"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        def identified() -> bool:
            assert child.poll() is None, f"the monitor exited with {child.returncode} before it connected"
            return any(isinstance(m, Identify) for m in list(shoe.simulator.received))

        wait_until(identified, 20, "the monitor to connect (its Identify)", poll=0.01,
                   detail=lambda: f"the shoe received {list(shoe.simulator.received)!r}")
        assert child.stdout is not None
        assert child.stdout.readline().startswith(f"monitoring shoe at {shoe.url} until Ctrl-C")
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert out.splitlines()[-1].endswith("(interrupted)")
    assert "Traceback" not in err


def test_ctrl_c_ends_the_press_test_with_the_presses_so_far(sim) -> None:
    box = sim("buttonbox")
    child = subprocess.Popen(
        [sys.executable, "-m", "station", "diag", "pedals", "--url", box.url, "--kind", "buttonbox", "--seconds", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().startswith("press test on buttonbox")
        child.stdout.readline()  # the instructions
        box.simulator.press(1)
        assert "deal       short" in child.stdout.readline()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 1, err  # three buttons never pressed
    assert "deal           1     0" in out
    assert "NEVER PRESSED: confirm, cancel, call (interrupted)" in out
