"""``station pit`` as a technician starts it: its configuration refused naming the file and the
key, ``--check``, the exit statuses systemd reads (78 never restarted, 69 restarted), and a
clean stop on SIGTERM. Real processes, a real mosquitto where one is needed."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.config.errors import ConfigError
from station.pit.settings import load_pit_config, template_path

from ..floor.helpers import Broker
from .helpers import ROOT, PitProcess, pit_config

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def pit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "pit", *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def test_the_shipped_template_is_valid_and_check_says_what_it_would_serve() -> None:
    loaded = load_pit_config(template_path())
    assert loaded.config.pit.bind == "127.0.0.1" and loaded.config.broker.url == "mqtt://127.0.0.1"
    checked = pit("--check")
    assert checked.returncode == 0, checked.stderr
    assert "configuration is valid (page on 127.0.0.1:8090, broker mqtt://127.0.0.1" in checked.stdout


@pytest.mark.parametrize(("text", "key", "words"), [
    ('[pit]\nbind = "0.0.0.0"\n', "pit.bind", "every network of the PC"),
    ('[pit]\ntimezone = "Mars/Olympus"\n', "pit.timezone", "not an IANA time zone"),
    ('[pit]\nport = "8090"\n', "pit.port", "valid integer"),
    ('[pit]\ntitel = "Pit A"\n', "pit.titel", "unknown key"),
    ('[broker]\nurl = "http://broker"\n', "broker.url", "mqtt://host[:port]"),
    ('[broker]\nurl = "mqtt://user:secret@broker"\n', "broker.url", "credentials go in"),
    ('[broker]\ntopic_prefix = "casino/#"\n', "broker.topic_prefix", "no wildcards"),
    ('[broker]\ncert_file = "pit.pem"\n', "broker.key_file", "go together"),
])
def test_a_bad_key_is_named_with_its_file_and_exits_78(tmp_path: Path, text: str, key: str, words: str) -> None:
    config = tmp_path / "pit.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_pit_config(config)
    assert f"{config}: {key}: " in str(refused.value) and words in str(refused.value)
    run = pit("-c", str(config), "--check")
    assert run.returncode == 78 and f"{key}: " in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_files_the_broker_section_names_are_read_at_the_start(tmp_path: Path) -> None:
    config = tmp_path / "pit.toml"
    config.write_text(f'[broker]\nurl = "mqtts://broker.casino.lan"\nca_file = "{tmp_path}/missing-ca.pem"\n')
    run = pit("-c", str(config), "--check")
    assert run.returncode == 78 and "broker.ca_file: cannot use" in run.stderr
    config.write_text(f'[broker]\nusername = "pit"\npassword_file = "{tmp_path}/missing"\n')
    run = pit("-c", str(config))
    assert run.returncode == 78 and "broker.password_file: cannot read" in run.stderr
    # A file named with -c that is not there is a bad command line, as for station run.
    absent = pit("-c", str(tmp_path / "absent.toml"))
    assert absent.returncode == 2 and "no such configuration file" in absent.stderr


def test_the_command_line_stands_in_for_the_files_keys(tmp_path: Path) -> None:
    run = pit("--broker", "ftp://x", "--check")
    assert run.returncode == 78 and "broker.url" in run.stderr
    run = pit("--bind", "::", "--check")
    assert run.returncode == 78 and "pit.bind" in run.stderr
    run = pit("--port", "7001", "--check")
    assert run.returncode == 0 and "127.0.0.1:7001" in run.stdout


def test_a_port_another_program_holds_exits_69_and_sigterm_stops_it_cleanly(broker: Broker, tmp_path: Path) -> None:
    config = pit_config(tmp_path / "pit.toml", broker.url)
    page = PitProcess(config, tmp_path / "pit.log")
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", int(page.url.rsplit(":", 1)[1].strip("/"))))
    held.listen()
    try:
        run = pit("-c", str(config))
        assert run.returncode == 69 and "another program holds it" in run.stderr and "Traceback" not in run.stderr
    finally:
        held.close()
    page.start()
    assert page.process is not None
    page.process.send_signal(signal.SIGTERM)
    assert page.process.wait(15) == 0
    assert '"pit_stopped"' in (tmp_path / "pit.log").read_text()


@pytest.mark.parametrize(("floor", "key"), [('pit = " A"', "floor.pit"), ("number = -1", "floor.number"),
                                             ("number = 10000", "floor.number"), ('pit = "A\\tB"', "floor.pit")])
def test_a_stations_place_in_its_pit_is_checked_like_every_key(tmp_path: Path, floor: str, key: str) -> None:
    from station.service.config import load_config

    config = tmp_path / "station.toml"
    config.write_text((ROOT / "config" / "station.toml").read_text() + f"\n[floor]\n{floor}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert f"{config}: {key}: " in str(refused.value)
    config.write_text((ROOT / "config" / "station.toml").read_text() + '\n[floor]\npit = "Pit 3"\nnumber = 12\n')
    loaded = load_config(config).config.floor
    assert (loaded.pit, loaded.number) == ("Pit 3", 12)


def test_a_page_started_before_its_broker_serves_at_once_and_connects_when_the_broker_comes(tmp_path: Path) -> None:
    import json
    import urllib.request

    from ..floor.helpers import MOSQUITTO
    from ..waiting import wait_until

    if not MOSQUITTO.exists():
        pytest.skip("needs Debian's mosquitto (/usr/sbin/mosquitto)")
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")  # its port chosen, not started yet
    page = PitProcess(pit_config(tmp_path / "pit.toml", broker.url), tmp_path / "pit.log").start()

    def picture() -> Any:
        with urllib.request.urlopen(page.url + "snapshot", timeout=5) as answer:
            return json.loads(answer.read())

    try:
        wait_until(lambda: picture().get("broker") is not None, 10, "the first picture", poll=0.05)
        assert picture()["broker"]["connected"] is False
        broker.start()
        wait_until(lambda: picture()["broker"]["connected"] is True, 30, "the page connected", poll=0.05)
    finally:
        assert page.stop() == 0
        broker.stop()
