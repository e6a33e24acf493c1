"""Where chips lie, as people and the journal name it; and station/chips as pure as it says:
no float anywhere, no clock, thread, randomness or I/O but reading the registry file, and no
import of the station's layers above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from station.chips.places import ChipPlace, PlaceKind, box_order, box_words, uid_problem

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "station" / "chips").glob("*.py"))
#: What station/chips may import: the standard library's pure parts, the money, the games'
#: region names, and itself. ``pathlib`` only to read the registry file (registry_file.py).
ALLOWED = {"__future__", "collections.abc", "csv", "dataclasses", "decimal", "enum", "hashlib", "itertools",
           "re", "types", "typing", "station.money", "station.games.registry", "station.chips"}
PATHLIB = {"registry_file.py"}


def test_places_as_people_and_the_journal_name_them() -> None:
    spot, zone, tray = ChipPlace.spot("3", "banker"), ChipPlace.payout("S2"), ChipPlace.tray()
    assert [p.words() for p in (spot, zone, tray)] == ["Box 3 \u00b7 Banker", "Standing 2 payout zone", "Chip tray"]
    assert [str(p) for p in (spot, zone, tray)] == ["spot:3:banker", "payout:S2", "tray"]
    assert [p.is_spot for p in (spot, zone, tray)] == [True, False, False]
    assert ChipPlace("spot", "1", "tie").kind is PlaceKind.SPOT  # type: ignore[arg-type]
    places = [tray, zone, ChipPlace.payout("1"), ChipPlace.spot("10", "tie"), spot, ChipPlace.spot("S1", "player")]
    assert [str(p) for p in sorted(places, key=ChipPlace.order)] == [
        "spot:3:banker", "spot:10:tie", "spot:S1:player", "payout:1", "payout:S2", "tray"]
    assert sorted(["S1", "10", "2", "x"], key=box_order) == ["2", "10", "S1", "x"]
    assert [box_words(b) for b in ("3", "S2")] == ["Box 3", "Standing 2"]


@pytest.mark.parametrize(("kind", "box", "region"), [
    (PlaceKind.SPOT, "3", ""), (PlaceKind.SPOT, "", "banker"), (PlaceKind.PAYOUT, "", ""),
    (PlaceKind.PAYOUT, "3", "banker"), (PlaceKind.TRAY, "3", ""),
])
def test_a_place_names_what_its_kind_needs(kind: PlaceKind, box: str, region: str) -> None:
    with pytest.raises(ValueError):
        ChipPlace(kind, box, region)


def test_a_uid_is_sixteen_hexadecimal_digits_in_capitals() -> None:
    assert uid_problem("04A1B2C3D4E5F601") is None
    assert uid_problem("04a1b2c3d4e5f601") is not None and uid_problem("04A1") is not None
    assert uid_problem(0x04A1B2C3D4E5F601) == f"a UID is text, not {0x04A1B2C3D4E5F601!r}"


def _imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_module_imports_only_what_pure_logic_needs(path: Path) -> None:
    allowed = ALLOWED | ({"pathlib"} if path.name in PATHLIB else set())
    imported = _imports(ast.parse(path.read_text()))
    assert {m for m in imported if m not in allowed and not m.startswith("station.chips.")} == set()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_float_anywhere(path: Path) -> None:
    tree = ast.parse(path.read_text())
    floats = [node.lineno for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, float)]
    named = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "float"]
    divided = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)]
    assert (floats, named, divided) == ([], [], [])
