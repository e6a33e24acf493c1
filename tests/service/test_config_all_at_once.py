"""A configuration check that finds everything, once (issue 24, items 8-10): every problem of
a file in one run, each one line naming the file and the key; and what used to be accepted
silently (a second user with one token, a placeholder token, a button no device has, a
journal folder that is not there, an option no driver reads, a simulated shoe beside real
devices) refused, naming the key."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from station.cli.exits import Status
from station.config.errors import ConfigError
from station.service.config import load_config

ROOT = Path(__file__).resolve().parents[2]
TOKEN_A, TOKEN_B = "a" * 64, "b" * 64


def problems_of(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    path = tmp_path / "station.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value.problems


def keys_of(tmp_path: Path, text: str) -> list[str]:
    return [key for key, _ in problems_of(tmp_path, text)]


def check(tmp_path: Path, text: str, journal: bool = True) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "station.toml"
    config.write_text(text)
    given = ["--journal", str(tmp_path / "j.sqlite3")] if journal else []
    env = {k: v for k, v in os.environ.items() if k != "STATION_JOURNAL"}
    return subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config), "--check", *given],
                          capture_output=True, text=True, timeout=60, env={**env, "PYTHONPATH": str(ROOT)})


def user(name: str, token: str, role: str = "dealer") -> str:
    return f'[[control.users]]\nname = "{name}"\nrole = "{role}"\ntoken_sha256 = "{token}"\n'


# --- every problem in one run ------------------------------------------------------------------

def test_a_wrong_key_and_a_broken_rule_of_one_section_are_both_found(tmp_path: Path) -> None:
    assert keys_of(tmp_path, '[table]\ndecks = "8"\nmin_bet = 1000\nmax_bet = 500\n') == ["table.decks",
                                                                                        "table.max_bet"]


def test_a_rule_across_sections_is_judged_while_another_section_has_a_wrong_key(tmp_path: Path) -> None:
    keys = keys_of(tmp_path, '[table]\ntie_pays = 7\nequipment = "batch"\n[web]\nport = 0\n'
                             '[dealer.bets]\ndragon = 500\n')
    assert sorted(keys) == ["dealer.bets.dragon", "devices.shuffler", "table.tie_pays", "web.port"]


def test_every_rule_of_a_section_is_found_not_only_the_first(tmp_path: Path) -> None:
    keys = keys_of(tmp_path, '[table]\nmin_bet = 1000\nmax_bet = 500\nchips = [100, 100]\n'
                             'set_colours = ["red", "red"]\ntimezone = "Mars/Olympus"\ngaming_day_start = "6am"\n')
    assert keys == ["table.max_bet", "table.chips", "table.set_colours", "table.timezone", "table.gaming_day_start"]


def test_a_rule_that_reads_a_refused_key_says_nothing_about_it(tmp_path: Path) -> None:
    """``min_bet = "1000"`` is refused; "maximum below the minimum" would be about a minimum
    the file does not hold."""
    assert keys_of(tmp_path, '[table]\nmin_bet = "1000"\nmax_bet = 500\n') == ["table.min_bet"]


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_check_gives_the_configuration_and_the_machine_in_one_run(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = check(tmp_path, f'[table]\ndecks = 10\n[web]\nenabled = true\nport = {port}\n')
    assert result.returncode == Status.CONFIG
    lines = result.stderr.splitlines()
    assert [line.split(": ")[1:3] for line in lines][:2] == [["error", "table.decks"], ["error", "web.port"]]
    assert all(line.startswith(f"{tmp_path / 'station.toml'}: ") for line in lines)


# --- accepted before, refused now ---------------------------------------------------------------

def test_two_users_with_one_token_are_refused(tmp_path: Path) -> None:
    """The later used to win: a supervisor's token silently became a dealer's."""
    problems = problems_of(tmp_path, user("sam", TOKEN_A, "supervisor") + user("dana", TOKEN_A))
    assert [key for key, _ in problems] == ["control.users[1].token_sha256"]
    assert "the same token as control.users[0] (sam, supervisor)" in problems[0][1]


def test_two_users_with_one_name_are_refused(tmp_path: Path) -> None:
    assert keys_of(tmp_path, user("sam", TOKEN_A) + user("sam", TOKEN_B)) == ["control.users[1].name"]


def test_the_templates_placeholder_token_is_refused(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, user("shift-supervisor", "0" * 64, "supervisor"))
    assert problems[0][0] == "control.users[0].token_sha256" and "station ctl new-token" in problems[0][1]


@pytest.mark.parametrize("button", ["center", "middle"])
def test_a_button_the_pedals_do_not_have_is_refused(tmp_path: Path, button: str) -> None:
    problems = problems_of(tmp_path, f'[devices.pedals]\nurl = "sim:"\n[dealer.buttons]\nleft = "no_more_bets"\n'
                                     f'{button} = "reveal"\nright = "next_round"\n')
    assert [key for key, _ in problems] == [f"dealer.buttons.{button}"]
    assert "pedals: left, centre, right" in problems[0][1]


def test_the_button_box_names_its_own_buttons(tmp_path: Path) -> None:
    box = '[devices.buttonbox]\nurl = "sim:"\n'
    load_config_text = box + '[dealer.buttons]\ndeal = "no_more_bets"\nconfirm = "reveal"\ncall = "call_supervisor"\n'
    (tmp_path / "ok.toml").write_text(load_config_text)
    load_config(tmp_path / "ok.toml")
    assert keys_of(tmp_path, box + '[dealer.buttons]\nleft = "no_more_bets"\n') == ["dealer.buttons.left"]


def test_the_default_buttons_are_not_held_against_a_button_box(tmp_path: Path) -> None:
    (tmp_path / "box.toml").write_text('[devices.buttonbox]\nurl = "sim:"\n')
    load_config(tmp_path / "box.toml")  # [dealer.buttons] not written: nothing to refuse


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_a_journal_folder_that_is_not_there_is_refused_and_not_made(tmp_path: Path) -> None:
    folder = tmp_path / "no-such-folder"
    text = f'[station]\njournal = "{folder}/journal.sqlite3"\n'
    result = check(tmp_path, text, journal=False)
    assert result.returncode == Status.CONFIG
    assert f"error: station.journal: the folder {folder} does not exist" in result.stderr
    config = tmp_path / "station.toml"
    run = subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config)], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "STATION_JOURNAL": ""})
    assert run.returncode == Status.CONFIG and "station.journal: the folder" in run.stderr
    assert not folder.exists()


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_check_of_a_configured_journal_in_an_existing_folder_is_valid(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text(f'[station]\njournal = "{tmp_path}/journal.sqlite3"\n')
    result = subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config), "--check"],
                            capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "STATION_JOURNAL"})
    assert result.returncode == 0, result.stderr


def test_options_of_a_real_device_are_refused(tmp_path: Path) -> None:
    keys = keys_of(tmp_path, '[devices.shoe]\nurl = "/dev/serial/by-id/usb-Shoe-if00"\noptions = { seed = 7 }\n')
    assert keys == ["devices.shoe.options.seed"]


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_an_option_the_simulator_does_not_take_is_refused_by_the_commands_that_start_it(tmp_path: Path) -> None:
    result = check(tmp_path, '[devices.shoe]\nurl = "sim:"\noptions = { sed = 7, ack_timeout = 0.1 }\n')
    assert result.returncode == Status.CONFIG
    assert "error: devices.shoe.options.sed: the simulated shoe takes no option 'sed' (it takes: ack_timeout" \
        in result.stderr
    assert "ack_timeout:" not in result.stderr


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_a_missing_shoe_beside_a_real_device_is_refused_not_simulated(tmp_path: Path) -> None:
    """Before: a simulated shoe beside the real board, with a warning, exit 0."""
    result = check(tmp_path, '[devices.display]\nurl = "/dev/serial/by-id/usb-Board-if00"\n')
    assert result.returncode == Status.CONFIG
    assert "error: devices.shoe: missing: the rounds need a card shoe" in result.stderr
    assert "SIMULATED" not in result.stderr


def test_a_table_whose_devices_are_all_simulated_still_gets_its_simulated_shoe(tmp_path: Path) -> None:
    (tmp_path / "sim.toml").write_text('[devices.display]\nurl = "sim:"\n')
    config = load_config(tmp_path / "sim.toml").config
    assert config.devices.shoe is not None and config.devices.shoe.url == "sim:"
    (tmp_path / "empty.toml").write_text("")
    assert load_config(tmp_path / "empty.toml").config.devices.shoe is not None
