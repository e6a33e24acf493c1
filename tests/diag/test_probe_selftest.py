"""``station diag probe`` and ``selftest`` through the real CLI, against simulators on real ptys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.cli.main import main

from .helpers import write_config


def test_probe_by_url_shows_identity_status_and_link(sim, capsys) -> None:
    shoe = sim("shoe", serial="SHOE-4711", firmware="2.3.1")
    shoe.simulator.load_shuffled(8, 7, None)
    assert main(["diag", "probe", "--url", shoe.url, "--kind", "shoe"]) == 0
    out = capsys.readouterr().out
    assert f"shoe at {shoe.url}" in out
    assert "model SIM-SHOE-1, serial SHOE-4711, firmware 2.3.1" in out
    assert "cards_present=True" in out and "lid_open=False" in out
    assert "frames_in=" in out and "frames_out=" in out


def test_probe_by_configured_name_as_json(sim, tmp_path: Path, capsys) -> None:
    shuffler = sim("shuffler", serial="SHUF-9")
    config = write_config(tmp_path / "station.toml", {"shuffler": shuffler.url})
    assert main(["diag", "-c", str(config), "probe", "shuffler", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identity"] == {"model": "SIM-SHUFFLER-1", "serial": "SHUF-9", "firmware": "1.0.0",
                                  "protocol_version": 2}
    assert report["status"]["state"] == "idle" and report["status"]["cards_held"] == 8 * 52
    assert report["url"] == shuffler.url and report["simulated"] is False
    assert report["link"]["frames_in"] >= 2 and report["errors"] == []


def test_probe_of_a_sim_device_says_it_started_a_simulator(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "station.toml", {"display": "sim:"})
    assert main(["diag", "-c", str(config), "probe", "display"]) == 0
    out = capsys.readouterr().out
    assert "display (simulated: started its simulator at" in out
    assert "model SIM-DISPLAY-1" in out and "brightness=80" in out


def test_probe_of_an_absent_device_fails_with_the_reason(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "no-such-port"
    assert main(["diag", "probe", "--url", str(missing), "--kind", "shoe", "--wait", "0.5"]) == 1
    err = capsys.readouterr().err
    assert "is not reachable" in err and str(missing) in err


def test_probe_of_a_device_not_in_the_configuration_is_a_usage_error(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "station.toml", {})
    assert main(["diag", "-c", str(config), "probe", "display"]) == 2
    assert "no [devices.display] in the configuration (configured: shoe)" in capsys.readouterr().err
    assert main(["diag", "monitor", "--url", "/dev/null"]) == 2  # a monitor must know the protocol
    assert "--kind" in capsys.readouterr().err


def test_selftest_tests_every_device_and_fails_on_one_broken(sim, tmp_path: Path, capsys) -> None:
    shoe = sim("shoe")
    display = sim("display")
    display.simulator.panel_fault()
    config = write_config(tmp_path / "station.toml", {"shoe": shoe.url, "display": display.url, "pedals": "sim:"})
    assert main(["diag", "-c", str(config), "selftest"]) == 1
    out = capsys.readouterr().out
    assert "self-test of 3 configured device(s)" in out
    assert "PASS  shoe       reader and sensors ok" in out
    assert "FAIL  display    panel 2 test pattern not confirmed" in out
    assert "PASS  pedals" in out and "simulated: started its simulator at usb-sim:(in-process)" in out
    assert "FAILED: display" in out


def test_selftest_json_and_an_unreachable_device(sim, tmp_path: Path, capsys) -> None:
    shoe = sim("shoe")
    config = write_config(tmp_path / "station.toml", {"shoe": shoe.url, "shuffler": str(tmp_path / "gone")})
    assert main(["diag", "-c", str(config), "selftest", "--wait", "0.5", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    verdicts = {v["device"]: v for v in report["devices"]}
    assert report["passed"] is False
    assert verdicts["shoe"]["passed"] is True
    assert verdicts["shuffler"]["passed"] is False and "not reachable" in verdicts["shuffler"]["detail"]


def test_selftest_all_simulated_passes(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "station.toml", {"shoe": "sim:", "shuffler": "sim:", "buttonbox": "sim:"})
    assert main(["diag", "-c", str(config), "selftest"]) == 0
    out = capsys.readouterr().out
    assert out.count("simulated: started its simulator") == 3
    assert "all devices passed" in out


def test_probe_of_an_unknown_port_identifies_whatever_answers(sim, capsys) -> None:
    box = sim("buttonbox", serial="BOX-3")
    assert main(["diag", "probe", "--url", box.url]) == 0
    out = capsys.readouterr().out
    version = box.simulator.protocol_version
    assert f"{box.url}: model SIM-BUTTONS-4, serial BOX-3, firmware 1.0.0, protocol version {version}" in out
    box.simulator.mute()
    assert main(["diag", "probe", "--url", box.url, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["found"] is False and "no answer" in report["error"]
    assert report["frames"][0]["dir"] == "tx"


@pytest.mark.e2e
def test_probing_an_unknown_port_is_refused_when_the_service_holds_it(sim, hold, capsys) -> None:
    shoe = sim("shoe")
    holder = hold({"shoe": shoe.url})
    assert main(["diag", "probe", "--url", shoe.url]) == 1
    assert f"(pid {holder.child.pid}) holds the shoe" in capsys.readouterr().err
    assert not shoe.simulator.received
