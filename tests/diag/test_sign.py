"""``station diag`` for the progressive sign, through the real CLI against its simulator on real
ptys: probe, selftest, monitor and sign-test, by URL and by its ``[devices.sign]`` section
(``sim:`` included)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.codec import sign as wire
from drivers.codec.protocol import Identify
from station.cli.main import main

from ..waiting import wait_until
from .helpers import write_config


def test_probe_by_url_shows_identity_and_the_signs_status(sim, capsys) -> None:
    sign = sim("sign", serial="SIGN-77", firmware="1.4.0")
    sign.simulator.fail_row(5)
    assert main(["diag", "probe", "--url", sign.url, "--kind", "sign", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identity"] == {"model": "SIM-SIGN-1", "serial": "SIGN-77", "firmware": "1.4.0",
                                  "protocol_version": 2}
    assert report["status"] == {"brightness": 80, "commands_shown": 0, "error": 1, "failed_rows": [5]}
    assert main(["diag", "probe", "--url", sign.url, "--kind", "sign"]) == 0
    out = capsys.readouterr().out
    assert "model SIM-SIGN-1, serial SIGN-77, firmware 1.4.0, protocol version 2" in out
    assert "failed_rows=5" in out


def test_a_configured_sim_sign_is_probed_through_its_simulator(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "station.toml", {"sign": "sim:?positions=12&protocol_version=1"})
    assert main(["diag", "-c", str(config), "probe", "sign"]) == 0
    out = capsys.readouterr().out
    assert "sign (simulated: started its simulator at" in out
    assert "model SIM-SIGN-1" in out and "protocol version 1" in out and "brightness=80" in out


def test_selftest_tests_the_sign_with_the_rest_and_names_a_dark_row(sim, tmp_path: Path, capsys) -> None:
    shoe, sign = sim("shoe"), sim("sign")
    sign.simulator.fail_row(4)
    config = write_config(tmp_path / "station.toml", {"shoe": shoe.url, "sign": sign.url})
    assert main(["diag", "-c", str(config), "selftest"]) == 1
    out = capsys.readouterr().out
    assert "self-test of 2 configured device(s)" in out
    assert "FAIL  sign       LED row 4 does not light" in out and "FAILED: sign" in out
    sign.simulator.repair_rows()
    assert main(["diag", "-c", str(config), "selftest", "--json"]) == 0
    verdicts = {v["device"]: v for v in json.loads(capsys.readouterr().out)["devices"]}
    assert verdicts["sign"]["passed"] and verdicts["sign"]["detail"] == "all 8 LED rows and every digit lit"


def test_sign_test_paints_test_amounts_each_acked(sim, tmp_path: Path, capsys) -> None:
    sign = sim("sign")
    config = write_config(tmp_path / "station.toml", {"sign": sign.url})
    code = main(["diag", "-c", str(config), "sign-test", "--pause", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "sign test passed" in out and "FAILED" not in out, out
    assert [c.WIRE_NAME for c in sign.simulator.commands()] == [
        "ShowMeter", "ShowMeter", "ShowMeter", "ShowHit", "EndHit", "ShowMessage", "ShowMessage",
        "SetBrightness", "SetBrightness", "SetBrightness", "SetBrightness", "SetBrightness", "Clear",
    ]
    meters = sign.simulator.commands(wire.ShowMeter)
    assert [m.amount for m in meters] == [0, 123_456_789, 2**32]  # the last one past what 32 bits hold
    assert {m.digits for m in meters} == {2}  # the table's minor digits (the configuration's default)
    assert [c.level for c in sign.simulator.commands(wire.SignSetBrightness)] == [25, 50, 75, 100, 80]
    assert sign.simulator.showing() == ""  # cleared at the end


def test_sign_test_fails_on_a_dark_row_and_a_narrow_sign(sim, capsys) -> None:
    sign = sim("sign", positions=9)
    sign.simulator.fail_row(2)
    assert main(["diag", "sign-test", "--url", sign.url, "--kind", "sign", "--pause", "0", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    steps = {s["name"]: s for s in report["steps"]}
    assert not steps["self-test"]["passed"] and "LED row 2 does not light" in steps["self-test"]["detail"]
    assert not steps["status"]["passed"] and "dark LED rows: 2" in steps["status"]["detail"]
    assert steps["meter 123456789"]["passed"]
    assert not steps["meter 4294967296"]["passed"] and "out_of_range" in steps["meter 4294967296"]["detail"]
    assert steps["clear"]["passed"]  # the other steps still ran


def test_sign_test_needs_a_sign(sim, capsys) -> None:
    display = sim("display")
    assert main(["diag", "sign-test", "--url", display.url, "--kind", "display"]) == 2
    assert "needs a sign" in capsys.readouterr().err


@pytest.mark.e2e  # the monitor runs as its own process, as a technician runs it (tests/conftest.py)
def test_monitor_shows_the_signs_frames_and_a_corrupt_one_as_such(sim) -> None:
    sign = sim("sign")
    child = subprocess.Popen(
        [sys.executable, "-m", "station", "diag", "monitor", "--url", sign.url, "--kind", "sign",
         "--count", "50", "--seconds", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_until(lambda: any(isinstance(m, Identify) for m in list(sign.simulator.received)), 20,
                   "the monitor to connect (its Identify)")
        assert sign.simulator.wait_idle(10)  # the power-on Boot is through
        sign.simulator.corrupt_next_frames(1)
        sign.simulator.fail_row(3)  # sent with a bad CRC, then resent intact
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert "rx    IdentityReport(model='SIM-SIGN-1'" in out
    assert "rx    CORRUPT bad_crc" in out
    assert "rx    SignError(code=led_row, row=3, detail='LED row 3 does not light')" in out
    assert out.count("=> DeviceFault") == 1 and "led_row" in out  # the corrupt frame never became a fault
    assert "1 corrupt" in out.splitlines()[-1]
