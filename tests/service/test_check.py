"""``station run --check`` finds everything ``station run`` would refuse, and warns loudly of
what it would start with (simulated hardware, a device not plugged in)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from station.cli.exits import Status
from station.journal import Journal

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def check(config: Path, journal: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journal),
                           "--check"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_an_unknown_url_scheme_is_refused_by_check_and_run_alike(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "bogus-scheme://x"\n')
    result = check(config, tmp_path / "j.sqlite3")
    assert result.returncode == Status.CONFIG
    assert "devices.shoe.url: unknown URL scheme 'bogus-scheme'" in result.stderr


def test_an_empty_file_is_valid_but_says_loudly_that_the_devices_are_simulated(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text("")
    result = check(config, tmp_path / "j.sqlite3")
    assert result.returncode == 0, result.stderr
    assert "WARNING: devices: SIMULATED, not real hardware: shoe" in result.stderr
    assert "configuration is valid" in result.stdout


def demo_journal(tmp_path: Path) -> tuple[Path, Path]:
    """(a configuration, the journal a one-round demo wrote under it)."""
    journal = tmp_path / "j.sqlite3"
    config = tmp_path / "station.toml"
    config.write_text("[dealer]\nsimulated = true\n")
    demo = subprocess.run([sys.executable, "-m", "station", "demo", "-c", str(config), "--rounds", "1", "--fast",
                           "--journal", str(journal)], capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr[-2000:]
    return config, journal


def test_a_journal_written_under_another_configuration_fails_the_check(tmp_path: Path) -> None:
    config, journal = demo_journal(tmp_path)
    assert check(config, journal).returncode == 0
    config.write_text("[dealer]\nsimulated = true\n[table]\ntie_pays = 9\n")
    result = check(config, journal)
    assert result.returncode == Status.CONFIG
    assert "was written under another configuration (changed: table.tie_pays)" in result.stderr
    assert "only the limits and chips change by an event in a journal (docs/limits.md)" in result.stderr
    assert "start a new one with station run --config FILE --journal NEW.sqlite3" in result.stderr
    # Other limits are no other configuration: a warning that station run journals them as a change.
    config.write_text("[dealer]\nsimulated = true\n[table]\nmin_bet = 2500\n")
    result = check(config, journal)
    assert result.returncode == 0, result.stderr
    assert ("WARNING: journal " in result.stderr and "was started under other limits (table.min_bet): station run "
            "journals this file's limits as a change from the next round" in result.stderr), result.stderr


def test_chip_colours_are_checked_by_name_and_never_ask_for_a_new_journal(tmp_path: Path) -> None:
    config, journal = demo_journal(tmp_path)
    # How the console draws a chip is not how the journal replays: the same journal goes on.
    config.write_text('[dealer]\nsimulated = true\n[table]\nchip_colours = { "500" = "purple", "1000" = "#0a0b0c" }\n')
    result = check(config, journal)
    assert result.returncode == 0, result.stderr
    config.write_text('[dealer]\nsimulated = true\n[table]\nchip_colours = { "1000" = "blu", "7" = "red" }\n')
    result = check(config, journal)
    assert result.returncode == Status.CONFIG
    assert "table.chip_colours.1000: 'blu' is not a colour: use #rrggbb or one of white, red" in result.stderr
    assert "table.chip_colours.7: '7' is not one of the table's chips" in result.stderr


def test_a_journal_another_station_writes_fails_the_check(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite3"
    config = tmp_path / "station.toml"
    config.write_text("")
    with Journal(journal):
        result = check(config, journal)
    assert result.returncode == Status.CONFIG
    assert f"is being written by process {os.getpid()}" in result.stderr


def test_a_busy_web_port_fails_the_check(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        config = tmp_path / "station.toml"
        config.write_text(f"[web]\nenabled = true\nport = {port}\n")
        result = check(config, tmp_path / "j.sqlite3")
    assert result.returncode == Status.CONFIG
    assert f"web.port: cannot listen on 127.0.0.1:{port}: another program holds it" in result.stderr


def test_a_device_path_that_is_not_there_is_a_warning(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[devices.shoe]\nurl = "/dev/serial/by-id/usb-ACME_Shoe-if00"\n')
    result = check(config, tmp_path / "j.sqlite3")
    assert result.returncode == 0, result.stderr
    assert "WARNING: devices.shoe.url: /dev/serial/by-id/usb-ACME_Shoe-if00 does not exist now" in result.stderr


def test_the_production_template_refuses_to_start_until_its_devices_are_filled_in(tmp_path: Path) -> None:
    result = check(ROOT / "config" / "examples" / "production.toml", tmp_path / "j.sqlite3")
    assert result.returncode == Status.CONFIG
    # Every problem in one run (it took five runs to find them one by one), one line each
    # naming the file and the key.
    template = ROOT / "config" / "examples" / "production.toml"
    lines = result.stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == [
        "table.timezone", "devices.shoe.url", "devices.shuffler.url", "devices.display.url", "devices.pedals.url",
        "control.users[0].token_sha256"]
    assert all(line.startswith(f"{template}: error: ") for line in lines)
    assert "devices.shoe.url: not filled in yet" in result.stderr and "station diag ports" in result.stderr
    assert "table.timezone: not filled in yet" in result.stderr
