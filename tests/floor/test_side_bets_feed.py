"""The floor feed of a table with side bets: the shipped side-bet tables dealt by the real
``station demo`` publish through a real mosquitto, each side bet a bet of its round on its own
region, every message valid against the schemas, which name every region a game has: a round
naming any other region does not validate."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from station.games.baccarat.side_bets import SideBet
from station.games.registry import GAMES

from .helpers import (
    ROOT,
    Broker,
    Subscriber,
    check_schemas,
    expected_feed,
    floor_config,
    schema_validators,
    sequenced,
    station,
    station_env,
)

SIDE_BETS = {bet.value for bet in SideBet}


def _schema_regions() -> list[str]:
    common = json.loads((ROOT / "station" / "floor" / "schemas" / "common.schema.json").read_text())
    regions: list[str] = common["$defs"]["region"]["enum"]
    return regions


def test_the_schemas_name_every_region_of_every_game_and_nothing_else() -> None:
    """A new side bet (or game) is a new region of the feed: the schema must say so."""
    regions = _schema_regions()
    assert len(regions) == len(set(regions))
    assert set(regions) == {region for game in GAMES.values() for region in game.region_words}
    assert set(regions) >= SIDE_BETS


def _errors(kind: str, payload: dict[str, Any]) -> list[str]:
    return [error.message for error in schema_validators()[kind].iter_errors(payload)]


@pytest.mark.e2e  # starts processes (tests/conftest.py)
@pytest.mark.parametrize("example", ["baccarat-side-bets.toml", "ez-baccarat.toml"])
def test_a_side_bet_table_s_rounds_name_their_side_bets_and_validate(tmp_path: Path, broker: Broker,
                                                                     example: str) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#")
    config = floor_config(tmp_path / "station.toml", broker.url, base=f"examples/{example}")
    journal = tmp_path / "journal.sqlite3"
    demo = station("demo", "--shoes", "1", "--fast", "--floor", "-c", str(config), "--journal", str(journal),
                   env=station_env(tmp_path))
    assert demo.returncode == 0, demo.stderr[-3000:]
    expected = expected_feed(journal, "BAC-01-demo")
    subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "every round and event")
    subscriber.close()
    assert sequenced(subscriber) == expected
    check_schemas(subscriber.messages)  # side bets and all

    rounds = [m for m in expected if m["kind"] == "round" and m["status"] == "settled"]
    offered = set(tomllib.loads(config.read_text())["table"]["side_bets"])
    assert offered and offered <= SIDE_BETS
    for message in rounds:  # the simulated dealer bets on every side bet of the table, every round
        bets = message["bets"]
        assert {b["region"] for b in bets} & SIDE_BETS == offered, message["round_id"]
        sides = [b for b in bets if b["region"] in SIDE_BETS]
        assert all(b["outcome"] in ("win", "lose", "push") and b["void"] == 0 and b["valid"] == b["stake"]
                   for b in sides), sides
        assert message["house_net"] == -sum(b["net"] for b in bets)
    assert any(b["outcome"] == "win" for m in rounds for b in m["bets"] if b["region"] in SIDE_BETS)

    # The schema refuses a region nobody has: a typo, a side bet in words, an empty one.
    first = rounds[0]
    assert _errors("round", first) == []
    side = next(i for i, b in enumerate(first["bets"]) if b["region"] in SIDE_BETS)
    for wrong in ("dragon_8", "Dragon 7", ""):
        mangled = copy.deepcopy(first)
        mangled["bets"][side]["region"] = wrong
        errors = _errors("round", mangled)
        assert errors and all(repr(wrong) in e for e in errors), errors
