"""The floor feed and the metrics are consumers (docs/architecture.md, "Monitors subscribe"):
they read the journal and hear the core loop's outputs, and never reach the simulation, the
command line, a device driver or the web pages. Every import counts, lazy ones included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("station.sim", "drivers", "station.cli", "station.web", "station.diag")


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            found.append((node.lineno, node.module or ""))
    return found


def test_the_floor_and_the_metrics_only_listen() -> None:
    offending = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                 for package in ("station/floor", "station/metrics") for path in sorted((ROOT / package).rglob("*.py"))
                 for line, module in _imports(path)
                 if any(module == f or module.startswith(f + ".") for f in FORBIDDEN)]
    assert offending == []


def test_the_journal_side_of_anchors_stands_alone() -> None:
    modules = [module for _, module in _imports(ROOT / "station" / "journal" / "anchors.py")]
    assert not [m for m in modules if m.startswith("station.") and not m.startswith("station.journal")]
