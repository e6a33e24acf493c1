"""Recall shows how each shoe was opened: the exposed card and the cards burned after it,
under the shoe's first round (issue 13)."""

from __future__ import annotations

from pathlib import Path

from station.cards import parse_card
from station.config.options import core_options
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.recall import describe, recall_rounds
from station.core.sessions import generate
from station.games.baccarat.rules import point_count
from station.service.config import load_config

CONFIG = Path(__file__).resolve().parents[2] / "config" / "station.toml"


def _played(path: Path, seed: int) -> tuple[CoreLoop, CoreOptions]:
    """A loop on a new journal at ``path`` that has dealt five generated rounds (still open)."""
    loaded = load_config(CONFIG)
    options = core_options(loaded.config, loaded.path)
    loop = CoreLoop(path, options)
    for event in generate(5, seed):
        loop.post(event)
    loop.run_pending()
    return loop, options


def test_the_first_round_of_a_shoe_shows_the_exposed_and_burned_cards(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    loop, options = _played(path, 4)
    shoe = loop.machine.shoe
    exposed, burned = shoe.exposed, list(shoe.burned)
    loop.close()
    assert exposed is not None and burned  # a cut-card shoe: one card exposed, its count burned

    rounds = recall_rounds(path, options)
    first, second = rounds[0], rounds[1]
    assert first["shoe_opening"] == {"exposed": exposed.code, "burned": [c.code for c in burned]}
    assert second["shoe_opening"] is None
    text = describe(first)
    assert f"shoe 1 opened: exposed {exposed.code}, burned {len(burned)}: {' '.join(c.code for c in burned)}" in text
    assert "opened: exposed" not in describe(second)


def test_each_hand_is_shown_with_the_total_the_game_counted(tmp_path: Path) -> None:
    """The totals come from the round's record as the game gave them, by position."""
    path = tmp_path / "journal.sqlite3"
    loop, options = _played(path, 7)
    loop.close()
    settled = [r for r in recall_rounds(path, options) if r["result"]]
    assert settled
    for round_ in settled:
        hands: dict[str, list[str]] = {}
        for position, code in round_["dealt"]:
            hands.setdefault(position, []).append(code)
        for position, codes in hands.items():
            total = point_count([parse_card(c) for c in codes])
            assert round_["result"]["totals"][position] == total
            assert f"{position:<12} {' '.join(codes):<12} = {total}" in describe(round_)
