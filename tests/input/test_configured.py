"""A foot switch as the configuration names it: the URL and the key map, checked at start; the
driver the service builds for it; ``station diag ports`` listing input devices and
``station diag pedals`` showing its presses live, through the real CLI.

Where no ``/dev/uinput`` exists (this machine, CI) the CLI reaches the device through the
stand-in at python-evdev's ``InputDevice`` boundary, put in python-evdev's place by the test
(``drivers.input.backend.default_backend``); everything above it is the station's code."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from drivers.devices import FootSwitchDriver
from drivers.input import backend as input_backend
from drivers.input.listing import input_devices
from drivers.simulators.footswitch import StandInBackend, StandInFootSwitch
from station.cli.main import main
from station.config.errors import ConfigError
from station.service.config import load_config
from station.service.devices import build_devices

from ..waiting import wait_until


def _config(tmp_path: Path, pedals: str) -> Path:
    path = tmp_path / "station.toml"
    path.write_text('[table]\nequipment = "manual"\n\n[devices.shoe]\nurl = "sim:"\n\n' + pedals)
    return path


def test_the_service_builds_a_foot_switch_driver_with_the_configured_keys(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, '[devices.pedals]\nurl = "evdev://0c45:7403?phys=usb-1/input0"\n'
                                           '[devices.pedals.keys]\nKEY_KP1 = "left"\nKEY_KP3 = "right"\n'))
    devices = build_devices(config.config.devices, lambda e: None, endpoints={"shoe": "/dev/null"})
    driver = devices.get("pedals")
    assert isinstance(driver, FootSwitchDriver)
    assert driver.buttons == ("left", "right") and driver.locator.phys == "usb-1/input0"


@pytest.mark.parametrize(("pedals", "key", "words"), [
    ('[devices.pedals]\nurl = "evdev://0c45:7403"\n[devices.pedals.keys]\nKEY_F99 = "left"\n',
     "devices.pedals.keys.KEY_F99", "not a key the kernel knows"),
    ('[devices.pedals]\nurl = "evdev://0c45:7403"\n[devices.pedals.keys]\nF13 = "left"\n',
     "devices.pedals.keys.F13", "start KEY_ or BTN_"),
    ('[devices.pedals]\nurl = "usb://1209:0001"\n[devices.pedals.keys]\nKEY_F13 = "left"\n',
     "devices.pedals.keys", "only a foot switch or keypad has keys"),
    ('[devices.pedals]\nurl = "evdev://0c45"\n', "devices.pedals.url", "not VID:PID"),
    ('[devices.pedals]\nurl = "evdev:///tmp/event3"\n', "devices.pedals.url", "under /dev/input/"),
    ('[devices.pedals]\nurl = "evdev://0c45:7403?port=2"\n', "devices.pedals.url", "unknown option"),
])
def test_a_foot_switch_misconfigured_is_one_line_naming_the_key(tmp_path: Path, pedals: str, key: str,
                                                                words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(_config(tmp_path, pedals))
    [(where, message)] = refused.value.problems
    assert where == key and words in message


def _sysfs(root: Path, number: int, name: str, vid: str, pid: str, keys: str, *, uniq: str = "",
           phys: str = "") -> None:
    device = root / "sys" / f"event{number}" / "device"
    (device / "id").mkdir(parents=True)
    (device / "capabilities").mkdir()
    (device / "name").write_text(name + "\n")
    (device / "id" / "vendor").write_text(vid + "\n")
    (device / "id" / "product").write_text(pid + "\n")
    (device / "uniq").write_text(uniq + "\n")
    (device / "phys").write_text(phys + "\n")
    (device / "capabilities" / "key").write_text(keys + "\n")
    (root / "dev").mkdir(exist_ok=True)
    (root / "dev" / f"event{number}").touch()


def test_diag_ports_lists_the_input_devices_that_send_keys_with_their_url(tmp_path: Path) -> None:
    # sysfs as a 64-bit kernel writes it: the PCsensor sends F13-F15 (bits 183-185, in the third
    # word), a power button one key (116); a sensor sends none and is left out.
    _sysfs(tmp_path, 3, "PCsensor FootSwitch", "0c45", "7403", "e0000000000000 0 0", phys="usb-0000:00:14.0-2/input0")
    _sysfs(tmp_path, 1, "Power Button", "0000", "0001", "10000000000000 0")
    _sysfs(tmp_path, 5, "Accelerometer", "0000", "0000", "0")
    by_id = tmp_path / "dev" / "by-id"
    by_id.mkdir()
    (by_id / "usb-PCsensor_FootSwitch-event-kbd").symlink_to(tmp_path / "dev" / "event3")
    found = input_devices(tmp_path / "sys", tmp_path / "dev")
    assert [(d.node.rsplit("/", 1)[1], d.name, d.vid_pid) for d in found] == [
        ("event1", "Power Button", "0000:0001"), ("event3", "PCsensor FootSwitch", "0c45:7403")]
    switch = found[1]
    assert switch.f13_f24 and switch.keys == 3 and not found[0].f13_f24
    assert switch.url == f"evdev://{by_id}/usb-PCsensor_FootSwitch-event-kbd"
    assert found[0].url == "evdev://" + str(tmp_path / "dev" / "event1")


def test_diag_ports_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    from station.diag import ports

    _sysfs(tmp_path, 3, "PCsensor FootSwitch", "0c45", "7403", "e0000000000000 0 0", uniq="FS-77",
           phys="usb-0000:00:14.0-2/input0")
    monkeypatch.setattr(ports, "input_devices", lambda: input_devices(tmp_path / "sys", tmp_path / "dev"))
    assert main(["diag", "ports"]) == 0
    out = capsys.readouterr().out
    assert "Input devices that send keys" in out
    assert "0c45:7403  serial FS-77  'PCsensor FootSwitch'  (3 keys, sends F13-F24)" in out
    assert "url:  evdev://0c45:7403?serial=FS-77" in out
    assert main(["diag", "ports", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["input"]
    assert listed[0]["url"] == "evdev://0c45:7403?serial=FS-77" and listed[0]["f13_f24"] is True


def test_diag_pedals_shows_a_foot_switchs_presses_live(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    backend = StandInBackend()
    switch = StandInFootSwitch(backend=backend)
    monkeypatch.setattr(input_backend, "default_backend", lambda: backend)  # python-evdev's place
    config = _config(tmp_path, '[devices.pedals]\nurl = "evdev://0c45:7403"\n\n[dealer.buttons]\n'
                               'left = "no_more_bets"\ncentre = "reveal"\nright = "next_round"\n')

    failures: list[AssertionError] = []

    def press() -> None:
        try:
            wait_until(lambda: switch.device.grabbed_by is not None, 20, "the diagnostic to hold the foot switch",
                       poll=0.005)
        except AssertionError as exc:  # raised in the test's thread below, once the diagnostic is done
            failures.append(exc)
            return
        switch.click("left")
        switch.press("centre")
        time.sleep(0.4)  # a deliberate pace: held 0.4 s, short of the 0.8 s default long press: a short press
        switch.release("centre")
        switch.click("left")

    presser = threading.Thread(target=press)
    presser.start()
    code = main(["diag", "-c", str(config), "pedals", "--seconds", "1.5"])
    presser.join()
    if failures:
        raise failures[0]
    out = capsys.readouterr().out
    assert code == 1  # right was never pressed
    assert "press test on pedals at evdev://0c45:7403" in out
    pressed: list[Any] = [line.split()[1:3] for line in out.splitlines()
                          if line.strip().endswith(")") and "s  " in line]
    assert pressed == [["left", "short"], ["centre", "short"], ["left", "short"]]
    assert "(no_more_bets)" in out and "NEVER PRESSED: right" in out
