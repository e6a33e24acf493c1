"""``[table.chip_bets]`` and ``[chip_reader]`` (docs/chips.md): each mistake a technician can
make names its key and the file, and a registry file that cannot be used stops ``station run``
and ``station run --check`` with status 78, naming the key, the file, the line and the column."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.service.config import load_config

READER = """
[table]
currency = "EUR"
[table.chip_bets]
confirm = "tap"
[devices.chipreader]
url = "sim:"
[chip_reader]
registry = "chips.csv"
[chip_reader.antennas]
1 = "spot:1:banker"
2 = "payout:1"
3 = "tray"
"""
REGISTRY = "uid,value,currency,status,set\nE004010000000001,25.00,EUR,active,A\n"


def problems_of(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    path = tmp_path / "station.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value)
    return info.value.problems


def test_a_reader_with_its_rule_device_and_places_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_text(READER)
    config = load_config(path).config
    assert config.chip_reader is not None and config.table.chip_bets is not None
    assert {n: str(p) for n, p in config.chip_reader.places().items()} == {
        1: "spot:1:banker", 2: "payout:1", 3: "tray"}
    assert config.chip_reader.reads_tray()  # it may count an opener or a closer (docs/tray.md)
    path.write_text(READER.replace('3 = "tray"\n', ""))
    reader = load_config(path).config.chip_reader
    assert reader is not None and not reader.reads_tray()


@pytest.mark.parametrize(("change", "key", "words"), [
    (("[table.chip_bets]\nconfirm = \"tap\"\n", ""), "table.chip_bets", "add [table.chip_bets]"),
    (("[devices.chipreader]\nurl = \"sim:\"\n", ""), "devices.chipreader", "add [devices.chipreader]"),
    (("1 = \"spot:1:banker\"", "1 = \"spot:9:banker\""), "chip_reader.antennas.1", "box '9' is not a box"),
    (("1 = \"spot:1:banker\"", "1 = \"spot:1:war\""), "chip_reader.antennas.1", "'war' is not a bet of this table"),
    (("1 = \"spot:1:banker\"", "1 = \"spot:1\""), "chip_reader.antennas", "is not a place"),
    (("1 = \"spot:1:banker\"", "0 = \"spot:1:banker\""), "chip_reader.antennas", "numbered 1 to 255"),
    (("3 = \"tray\"", "3 = \"payout:1\""), "chip_reader.antennas", "antennas 2 and 3 are both under payout:1"),
    (("confirm = \"tap\"", "confirm = \"swipe\""), "table.chip_bets.confirm", "tap"),
    (("registry = \"chips.csv\"", "registry = \"chips.csv\"\nstable_ms = 0"), "chip_reader.stable_ms", "10"),
])
def test_each_mistake_names_its_key(tmp_path: Path, change: tuple[str, str], key: str, words: str) -> None:
    problems = problems_of(tmp_path, READER.replace(*change))
    assert any(k == key and words in text for k, text in problems), problems


def test_chip_bets_without_a_reader_are_refused(tmp_path: Path) -> None:
    text = "[table.chip_bets]\nconfirm = \"as_read\"\n"
    assert problems_of(tmp_path, text) == [("table.chip_bets", "bets from chips need a reader: add a "
                                                                 "[chip_reader] section")]


@pytest.mark.e2e
@pytest.mark.parametrize(("registry", "words"), [
    (None, "No such file or directory"),
    (REGISTRY.replace("25.00", "25.005"), "line 2"),
    (REGISTRY + "E004010000000001,5.00,EUR,active,A\n", "line 3"),
])
def test_a_registry_that_cannot_be_used_stops_the_start(tmp_path: Path, registry: str | None, words: str) -> None:
    config = tmp_path / "station.toml"
    config.write_text(READER + "[station]\njournal = \"j.sqlite3\"\n")
    if registry is not None:
        (tmp_path / "chips.csv").write_text(registry)
    for args in (["run", "--check", "-c", str(config)], ["run", "-c", str(config)]):
        done = subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)
        assert done.returncode == 78, done.stderr
        assert "chip_reader.registry" in done.stderr and words in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
