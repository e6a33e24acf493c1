"""The table's core never asks which game it is playing.

Every game implements one interface (:mod:`station.games.interface`) and is found once, by
its configured name, in :mod:`station.games.registry`. These tests keep it so: no branch on
the game's name or type in the code that runs a table, no import of a game's package there,
and no two classes in the project with the same name (a reader must know which one is meant).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Code that must work for any game through the interface alone.
GAME_NEUTRAL = [
    *sorted((ROOT / "station" / "core").glob("*.py")),
    *sorted((ROOT / "station" / "web").rglob("*.py")),
    *sorted((ROOT / "station" / "web" / "static").glob("*.js")),
    ROOT / "station" / "service" / "publisher.py",
    *sorted((ROOT / "station" / "config").glob("*.py")),
    ROOT / "station" / "service" / "config.py",
    *(ROOT / "station" / "cli" / "commands" / f"{name}.py"
      for name in ("roads", "analyze", "recall", "diagram", "run", "demo")),
    ROOT / "station" / "service" / "app.py",
    *sorted((ROOT / "station" / "sim").glob("*.py")),
]

BRANCH = re.compile(r"\bgame\s*[!=]==?|isinstance\([^)]*WarRound")

@pytest.mark.parametrize("path", GAME_NEUTRAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_branch_on_the_game(path: Path) -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if BRANCH.search(line)
    ]
    assert not hits, "ask the game's interface instead:\n" + "\n".join(hits)


@pytest.mark.parametrize("path", sorted((ROOT / "station" / "core").glob("*.py")), ids=lambda p: p.name)
def test_the_core_imports_no_game_package(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    games = sorted(m for m in imported if m.startswith(("station.games.baccarat", "station.games.war")))
    assert not games, f"{path.name} imports {games}: the core knows games only through station.games.interface"


def test_no_two_classes_share_a_name() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for package in ("station", "drivers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    where[node.name].append(str(path.relative_to(ROOT)))
    # A device's wire message and the station event it becomes are named apart (the codec's
    # ``ShoeEmptyNotice`` says ``WIRE_NAME = "ShoeEmpty"``): the events' names are the journal's
    # record kinds and stay as they are.
    shared = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not shared, shared
