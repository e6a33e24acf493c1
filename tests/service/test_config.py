"""Every class of bad configuration gets one clear line naming the file and the key."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.config.file import DEFAULT_CONFIG
from station.service.config import load_config, parse_config

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "station.toml"
    path.write_text(text)
    return path


def problems_of(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value)
    return info.value.problems


def test_default_config_is_valid_and_simulated() -> None:
    loaded = load_config(DEFAULT_CONFIG)
    cfg = loaded.config
    assert cfg.table.game == "baccarat" and cfg.table.variant == "mini"
    assert all(section.url.startswith("sim:") for _, section in cfg.devices.configured())
    assert cfg.dealer.simulated
    assert "SIMULATED" in DEFAULT_CONFIG.read_text()


@pytest.mark.parametrize("path", sorted((REPO / "config" / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_every_example_config_is_valid(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    if "FILL-IN" in text:  # the production template: valid once a technician fills in its devices
        with pytest.raises(ConfigError, match=r"devices.shoe.url: not filled in yet"):
            load_config(path)
        filled = tmp_path / path.name
        text = text.replace('"FILL-IN: the casino\'s IANA time zone, e.g. Europe/Vienna"', '"Europe/Vienna"')
        text = text.replace('"' + "0" * 64 + '"', '"' + "1" * 64 + '"')  # the token new-token would print
        filled.write_text(re.sub(r'"FILL-IN: [^"]*of the (\w+)[^"]*"',
                                 lambda m: '"usb://1209:0001?serial=PED-1"' if m[1] == "pedals"
                                 else f'"/dev/dealing-station/{m[1]}"', text))
        path = filled
    load_config(path)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[table]\ndecks = 10\n", "table.decks", "less than or equal to 8"),
        ("[table]\ndecks = 3\n", "table.decks", "greater than or equal to 4"),
        ("[table]\ntie_pays = 7\n", "table.tie_pays", "8 or 9"),
        ("[table]\nmin_bet = 1000\ndifferential = 500\n", "table.differential", "below the table minimum"),
        (
            '[table]\nequipment = "continuous"\ndealing_style = "B"\n[devices.shuffler]\nurl = "sim:"\n',
            "table.dealing_style",
            "not allowed with a continuous shuffler",
        ),
        (
            '[devices.shoe]\nurl = "/dev/ttyUSB0"\n[devices.display]\nurl = "/dev/ttyUSB0"\n',
            "devices.display.url",
            "already used by devices.shoe",
        ),
        ("[table]\ndeks = 8\n", "table.deks", "unknown key"),
        ("[tabel]\ndecks = 8\n", "tabel", "unknown key"),
        ('[table]\ndecks = "8"\n', "table.decks", "valid integer"),
        ("[table]\nmin_bet = 10.5\n", "table.min_bet", "valid integer"),
        ('[table]\nvariant = "maxi"\n', "table.variant", "not allowed"),
        ('[table]\nvariant = "mini"\nboxes = 9\n', "table.boxes", "more than a mini table has"),
        ('[table]\nvariant = "full"\nboxes = 14\nplayers_per_box = 3\n', "table.players_per_box", "exactly 1"),
        ("[table]\nmin_bet = 1000\nmax_bet = 500\n", "table.max_bet", "below the minimum"),
        ("[table]\nchips = [0, 100]\n", "table.chips", "positive"),
        ('[table]\nequipment = "batch"\n', "devices.shuffler", "needs a [devices.shuffler]"),
        ("[dealer.bets]\nbanker = -5\n", "dealer.bets.banker", "positive"),
        ("[dealer.bets]\ndragon = 500\n", "dealer.bets.dragon", "unknown betting region"),
        ('[dealer.buttons]\nleft = "self_destruct"\n', "dealer.buttons.left", "not allowed"),
        ('[web]\nhost = "0.0.0.0"\n', "web.host", "every network"),
        (
            '[[control.users]]\nname = "ann"\nrole = "boss"\ntoken_sha256 = "' + "0" * 64 + '"\n',
            "control.users[0].role",
            "not allowed",
        ),
    ],
)
def test_bad_configuration_names_file_and_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    problems = problems_of(tmp_path, text)
    assert any(k == key and words in message for k, message in problems), problems


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    assert "not valid TOML" in problems_of(tmp_path, "[table\n")[0][1]
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_default_config_has_every_section_documented() -> None:
    data = tomllib.loads(DEFAULT_CONFIG.read_text())
    assert {"station", "table", "devices", "dealer", "control", "web"} <= set(data)


@pytest.mark.parametrize(("value", "meant"), [(10.0, "10.00 with 2 minor digits is 1000"),
                                              ("10.50", "10.50 with 2 minor digits is 1050")])
def test_money_written_with_a_decimal_point_is_explained_in_minor_units(value: object, meant: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config({"table": {"min_bet": value}}, Path("station.toml"))
    said = str(refused.value)
    assert said.startswith("station.toml: table.min_bet: Input should be a valid integer")
    assert "amounts here are whole minor units of the table's currency" in said and meant in said


def test_a_count_written_with_a_decimal_point_is_not_called_money() -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config({"table": {"decks": 8.0}}, Path("station.toml"))
    assert "minor units" not in str(refused.value)
