"""``[table.side_bets]`` and ``banker_payout = "ez"``: what a table offers, and every wrong
offer refused naming its dotted key (docs/side-bets.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.config.options import changed_keys, configuration_record, core_options, recorded_rules
from station.games.baccarat.side_bets import OfferedSideBet, SideBet
from station.games.baccarat.table import BankerPayout
from station.service.config import load_config, parse_config


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "station.toml"
    path.write_text(text)
    return path


EZ = """[table]
banker_payout = "ez"
chips = [100, 500, 1000]
[table.side_bets.panda_8]
min = 500
max = 5000
[table.side_bets.dragon_7]
pays = "dragon_7_40"
min = 500
max = 10000
"""


def test_an_ez_table_with_dragon_7_and_panda_8_reaches_the_rules(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, EZ))
    table = core_options(loaded.config, loaded.path).table
    assert table.banker_payout is BankerPayout.EZ  # type: ignore[union-attr]
    # In the layout's order, each with its pay table (the default when none is named) and limits.
    assert table.side_bets == (  # type: ignore[union-attr]
        OfferedSideBet(SideBet.DRAGON_7, "dragon_7_40", 500, 10000),
        OfferedSideBet(SideBet.PANDA_8, "panda_8_25", 500, 5000),
    )
    rules = core_options(loaded.config, loaded.path).rules
    assert rules.regions_of(table) == ("banker", "player", "tie", "dragon_7", "panda_8")
    assert rules.wager_keys(table, "ez") == {"banker": "banker_ez", "player": "player", "tie": "tie_8_to_1",
                                             "dragon_7": "dragon_7_40", "panda_8": "panda_8_25"}


def test_the_side_bets_are_part_of_how_a_journal_replays(tmp_path: Path) -> None:
    plain = configuration_record(parse_config({}, Path("station.toml")))
    offered = configuration_record(load_config(config(tmp_path, EZ)).config)
    assert changed_keys(recorded_rules(plain, offered), offered) == [
        "table.banker_payout", "table.chips", "table.side_bets.dragon_7", "table.side_bets.panda_8"]
    # A journal written before side bets existed reads as one that offered none.
    older = {**plain, "table": {k: v for k, v in plain["table"].items() if k != "side_bets"}}
    assert changed_keys(recorded_rules(older, plain), plain) == []


@pytest.mark.parametrize(("text", "key", "words"), [
    ('[table.side_bets.dragon_8]\nmin = 500\nmax = 1000\n', "table.side_bets.dragon_8",
     "'dragon_8' is not a side bet; use one of dragon_7, panda_8"),
    ('[table.side_bets.dragon_7]\npays = "dragon_7_50"\nmin = 500\nmax = 1000\n', "table.side_bets.dragon_7.pays",
     "'dragon_7_50' is not a pay table; Dragon 7 pays by dragon_7_40"),
    ('[table.side_bets.dragon_7]\npays = "panda_8_25"\nmin = 500\nmax = 1000\n', "table.side_bets.dragon_7.pays",
     "'panda_8_25' is a pay table of Panda 8, not of Dragon 7; use dragon_7_40"),
    ('[table.side_bets.perfect_pair]\npays = "perfect_pair_11"\nmin = 500\nmax = 1000\n',
     "table.side_bets.perfect_pair.pays", "Perfect Pair pays by perfect_pair_25_200, perfect_pair_25"),
    ("[table.side_bets.panda_8]\nmin = 5000\nmax = 1000\n", "table.side_bets.panda_8.max",
     "maximum 1000 is below the minimum 5000"),
    ("[table.side_bets.player_pair]\nmin = 550\nmax = 1000\n", "table.side_bets.player_pair.min",
     "550 cannot be made with a smallest chip of 100"),
    ("[table]\nchips = [500, 1000]\n[table.side_bets.banker_pair]\nmin = 500\nmax = 1250\n",
     "table.side_bets.banker_pair.max", "1250 cannot be made with a smallest chip of 500"),
    ("[table.side_bets.either_pair]\nmin = 0\nmax = 1000\n", "table.side_bets.either_pair.min", "greater than 0"),
    ("[table.side_bets.either_pair]\nmin = 5.00\nmax = 1000\n", "table.side_bets.either_pair.min",
     "amounts here are whole minor units"),
    ("[table.side_bets.either_pair]\nmax = 1000\n", "table.side_bets.either_pair.min", "Field required"),
    ("[table.side_bets.either_pair]\nmin = 500\nmax = 1000\nlimit = 3\n", "table.side_bets.either_pair.limit",
     "unknown key"),
    ('[table]\ngame = "war"\n[table.side_bets.dragon_7]\nmin = 500\nmax = 1000\n', "table.side_bets.dragon_7",
     "Casino War has no side bets"),
    ('[table]\nbanker_payout = "easy"\n', "table.banker_payout", "'commission', 'no_commission' or 'ez'"),
    ('[table.side_bets.dragon_7]\nmin = 500\nmax = 1000\n[dealer]\nbets = { panda_8 = 500 }\n',
     "dealer.bets.panda_8", "unknown betting region 'panda_8' in baccarat; use one of banker, player, tie, dragon_7"),
])
def test_each_wrong_offer_is_refused_naming_its_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(config(tmp_path, text))
    (problem,) = raised.value.problems
    assert problem[0] == key and words in problem[1], problem


def test_every_wrong_offer_is_found_in_one_run(tmp_path: Path) -> None:
    text = ('[table.side_bets.dragon_7]\npays = "panda_8_25"\nmin = 550\nmax = 1000\n'
            '[table.side_bets.panda_8]\nmin = 5000\nmax = 1000\n[table.side_bets.lucky_6]\nmin = 500\nmax = 500\n')
    with pytest.raises(ConfigError) as raised:
        load_config(config(tmp_path, text))
    assert sorted(key for key, _ in raised.value.problems) == [
        "table.side_bets.dragon_7.min", "table.side_bets.dragon_7.pays", "table.side_bets.lucky_6",
        "table.side_bets.panda_8.max"]


def test_the_simulated_dealer_may_bet_on_the_tables_side_bets(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, EZ + '[dealer]\nbets = { banker = 1000, dragon_7 = 500 }\n'))
    assert dict(loaded.config.dealer.bets) == {"banker": 1000, "dragon_7": 500}
