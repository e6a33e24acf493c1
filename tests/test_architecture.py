"""The rules of docs/architecture.md, checked on the source: who may import whom.

Every ``import`` statement in a module counts, including those inside functions (a lazy
import is still a dependency), so a rule cannot be dodged by importing late. Each rule names
the packages it governs and the packages they must not reach; a failure lists every
offending module and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module imported) for every import statement in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:  # ``from drivers import simulators`` names a module too
                yield node.lineno, f"{module}.{alias.name}"


def _modules(*packages: str) -> Iterator[Path]:
    for package in packages:
        base = ROOT / package.replace(".", "/")
        if base.with_suffix(".py").is_file():
            yield base.with_suffix(".py")
        else:
            yield from sorted(base.rglob("*.py"))


def _reaches(module: str, forbidden: tuple[str, ...]) -> bool:
    """``module`` is one of ``forbidden`` or inside one; ``pkg.sim*`` names any module of
    ``pkg`` whose name starts with ``sim``."""
    return any(module.startswith(f[:-1]) if f.endswith("*") else (module == f or module.startswith(f + "."))
               for f in forbidden)


def _violations(packages: tuple[str, ...], forbidden: tuple[str, ...],
                allowed: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in _modules(*packages):
        for line, module in _imports(path):
            if _reaches(module, forbidden) and not _reaches(module, allowed):
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return found


SIMULATION = ("station.sim", "drivers.simulators", "drivers.usb.sim*")

RULES = {
    "the production path never imports the simulation": (
        ("station.service", "station.core", "drivers.devices"), SIMULATION, ()),
    "the rules are pure: games import no I/O, clock, randomness or other layer": (
        ("station.games",),
        ("os", "io", "time", "datetime", "random", "socket", "sqlite3", "threading", "subprocess", "serial",
         "usb", "structlog", "logging", "station.core", "station.service", "station.journal", "station.web",
         "station.sim", "drivers"), ()),
    "the core imports no driver, service, web page or simulation": (
        ("station.core",), ("drivers", "station.service", "station.web", "station.sim", "station.cli"), ()),
    "drivers know cards and events, nothing of the station above them": (
        ("drivers",), ("station.core", "station.games", "station.service", "station.journal", "station.sim",
                       "station.web", "station.cli", "station.diag", "station.analysis", "station.roads"), ()),
    "the journal stands alone": (
        ("station.journal",), ("station.core", "station.service", "station.sim", "drivers", "station.web"), ()),
    "only the command line reaches the command line": (
        ("station.core", "station.games", "station.service", "station.sim", "station.journal", "drivers",
         "station.web", "station.diag", "station.analysis"), ("station.cli",), ()),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_import_rule(rule: str) -> None:
    packages, forbidden, allowed = RULES[rule]
    assert _violations(packages, forbidden, allowed) == [], rule


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """The scanner itself: an import inside a function and a relative import both count."""
    sample = ROOT / "station" / "core" / "__arch_sample__.py"
    sample.write_text("def f():\n    import drivers.simulators\n\nfrom ..sim import plugin\n")
    try:
        found = dict((m, n) for n, m in _imports(sample))
        assert "drivers.simulators" in found and "station.sim" in found and "station.sim.plugin" in found
    finally:
        sample.unlink()
