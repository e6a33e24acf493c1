"""Configuration keys of the rules' corners: defaults that follow the variant, the
supervisor's say on the table differential, a second cutting card, and journals written
before a key existed."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.config.options import changed_keys, configuration_record, core_options, recorded_rules, with_defaults
from station.games.baccarat.table import DifferentialMode, RegionCap
from station.service.config import load_config, parse_config


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "station.toml"
    path.write_text(text)
    return path


def test_players_per_box_defaults_by_variant(tmp_path: Path) -> None:
    full = load_config(config(tmp_path, '[table]\nvariant = "full"\nboxes = 14\n')).config
    assert full.table.players_per_box == 1  # 5.7, no longer set by hand
    assert load_config(config(tmp_path, '[table]\nvariant = "midi"\nboxes = 9\n')).config.table.players_per_box == 3
    assert load_config(config(tmp_path, '[table]\ngame = "war"\n')).config.table.players_per_box == 3
    with pytest.raises(ConfigError, match=r"table.players_per_box: full baccarat seats exactly 1 player"):
        load_config(config(tmp_path, '[table]\nvariant = "full"\nboxes = 14\nplayers_per_box = 3\n'))


def test_casino_war_lets_a_player_bet_on_one_box_unless_the_operator_allows_more(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, '[table]\ngame = "war"\n'))
    assert loaded.config.table.war.max_boxes_per_player == 1
    options = core_options(loaded.config, loaded.path)
    assert options.table is not None and options.table.max_boxes_per_player == 1  # type: ignore[attr-defined]


def test_region_caps_and_the_differential_reach_the_rules_in_the_configurations_words(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, '[table]\nregion_cap = "player_total"\ndifferential = 20000\n'
                                           'differential_reduction = "supervisor"\ncut_cards = 2\n'))
    options = core_options(loaded.config, loaded.path)
    table = options.table
    assert table is not None
    assert table.region_cap is RegionCap.PLAYER_TOTAL  # type: ignore[attr-defined]
    assert table.table_differential == 20000  # type: ignore[attr-defined]
    assert table.differential_reduction is DifferentialMode.SUPERVISOR  # type: ignore[attr-defined]
    assert options.cut_cards == 2
    plain = load_config(config(tmp_path, ""))
    assert core_options(plain.config, plain.path).table.table_differential is None  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "key", "words"), [
    ('[table]\ndifferential_reduction = "never"\n', "table.differential_reduction", "use 'automatic' or 'supervisor'"),
    ("[table]\ncut_cards = 3\n", "table.cut_cards", "less than or equal to 2"),
    ('[table]\nequipment = "continuous"\ncut_cards = 2\n[devices.shuffler]\nurl = "sim:"\n', "table.cut_cards",
     "a continuous shuffler has no cutting card"),
    ("[table]\nmin_bet = 1000\ndifferential = 500\n", "table.differential", "below the table minimum"),
    ('[dealer.buttons]\nleft = "decline_all"\n', "dealer.buttons.left", "'decline_tie'"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(config(tmp_path, text))
    (problem,) = raised.value.problems
    assert problem[0] == key and words in problem[1], problem


def test_a_journal_written_before_a_key_existed_is_not_refused_over_its_default() -> None:
    current = configuration_record(parse_config({}, Path("station.toml")))
    older = {**current, "table": {k: v for k, v in current["table"].items()
                                  if k not in ("differential_reduction", "cut_cards")}}
    assert with_defaults(older) == current
    assert changed_keys(recorded_rules(older, current), current) == []
    changed = {**older, "table": {**older["table"], "tie_pays": 9}}
    assert changed_keys(recorded_rules(changed, current), current) == ["table.tie_pays"]
    supervised = {**current, "table": {**current["table"], "differential_reduction": "supervisor"}}
    assert changed_keys(recorded_rules(older, supervised), supervised) == ["table.differential_reduction"]
    assert with_defaults({"table": {"decks": 99}}) == {"table": {"decks": 99}}  # unreadable: compared as it is
