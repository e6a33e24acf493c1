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


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import statements under ``if TYPE_CHECKING:`` (they never run)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            guarded.update(id(inner) for part in node.body for inner in ast.walk(part))
    return guarded


def _imports(path: Path, root: Path = ROOT, *, run_only: bool = False) -> Iterator[tuple[int, str]]:
    """(line, module imported) for every import statement in the file, relative ones resolved;
    with ``run_only``, not those under ``if TYPE_CHECKING:`` (annotations only: they never run)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skipped = _type_checking_only(tree) if run_only else set()
    package = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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
    """The files of ``packages`` (a ``*`` in a name matches one level: ``station.games.*.board``)."""
    for package in packages:
        base = ROOT / package.replace(".", "/")
        if "*" in package:
            yield from sorted(ROOT.glob(package.replace(".", "/") + ".py"))
        elif base.with_suffix(".py").is_file():
            yield base.with_suffix(".py")
        else:
            yield from sorted(base.rglob("*.py"))


def _reaches(module: str, forbidden: tuple[str, ...]) -> bool:
    """``module`` is one of ``forbidden`` or inside one; ``pkg.sim*`` names any module of
    ``pkg`` whose name starts with ``sim``."""
    return any(module.startswith(f[:-1]) if f.endswith("*") else (module == f or module.startswith(f + "."))
               for f in forbidden)


def _violations(packages: tuple[str, ...], forbidden: tuple[str, ...],
                allowed: tuple[str, ...] = (), exempt: tuple[str, ...] = ()) -> list[str]:
    found = []
    spared = set(_modules(*exempt))
    for path in _modules(*packages):
        if path in spared:
            continue
        for line, module in _imports(path):
            if _reaches(module, forbidden) and not _reaches(module, allowed):
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return found


SIMULATION = ("station.sim", "drivers.simulators", "drivers.usb.sim*")
#: Each game's own package (``station.games.baccarat``, ...), found, not listed.
GAME_PACKAGES = tuple(f"station.games.{p.name}" for p in sorted((ROOT / "station" / "games").iterdir())
                      if (p / "__init__.py").is_file())
#: A game's board: what the display board and the web page show of its rounds.
BOARDS = ("station.games.*.board",)

RULES: dict[str, tuple[tuple[str, ...], ...]] = {
    "the production path never imports the simulation": (
        ("station.service", "station.core", "drivers.devices"), SIMULATION, ()),
    "the rules are pure: games import no I/O, clock, randomness or other layer": (
        ("station.games",),
        ("os", "io", "time", "datetime", "random", "socket", "sqlite3", "threading", "subprocess", "serial",
         "usb", "structlog", "logging", "station.core", "station.service", "station.journal", "station.web",
         "station.sim", "drivers"), (), BOARDS),
    "a game's board shows its rounds in no device's words (the roads, what is shown), and does no I/O": (
        BOARDS,
        ("os", "io", "time", "datetime", "random", "socket", "sqlite3", "threading", "subprocess", "serial",
         "usb", "structlog", "logging", "station.core", "station.service", "station.journal", "station.web",
         "station.sim", "drivers"), ()),
    "the service asks a game for its board and never imports a game's own package": (
        ("station.service",), GAME_PACKAGES, ()),
    "the core imports no driver, service, web page or simulation": (
        ("station.core",), ("drivers", "station.service", "station.web", "station.sim", "station.cli"), ()),
    "the core imports nothing of integrity, the floor, the metrics, the web or the console": (
        ("station.core",), ("station.integrity", "station.floor", "station.metrics", "station.web",
                            "station.console"), ()),
    "the floor does not import the service's start-up": (
        ("station.floor",), ("station.service.app",), ()),
    "the configuration imports no feature: each declares its section, the service composes them": (
        ("station.config",), ("station.service", "station.console", "station.floor", "station.web",
                              "station.integrity", "station.meters", "station.metrics", "station.pit",
                              "station.sim", "station.cli", "station.significant"), ()),
    "a feature is given what it needs by the service, and imports nothing of it": (
        ("station.console", "station.floor", "station.web", "station.integrity", "station.meters",
         "station.metrics", "station.pit", "station.significant", "station.host", "station.config"),
        ("station.service",), ()),
    "a feature hears and feeds the core loop through its tap (station/core/tap.py), never the loop itself": (
        ("station.console", "station.floor", "station.web", "station.integrity", "station.meters",
         "station.metrics", "station.pit", "station.significant", "station.sim"), ("station.core.loop",), ()),
    "drivers know cards and events, nothing of the station above them": (
        ("drivers",), ("station.core", "station.games", "station.service", "station.journal", "station.sim",
                       "station.web", "station.cli", "station.diag", "station.analysis", "station.roads"), ()),
    "the journal stands alone": (
        ("station.journal",), ("station.core", "station.service", "station.sim", "drivers", "station.web"), ()),
    "the child-process helper stands alone (any child calls it before importing anything of weight)": (
        ("station.child_process",), ("station", "drivers"), ()),
    "the children's supervisor knows only the children's wire and links, nothing of what a child is": (
        ("station.child_supervisor", "station.child_links"), ("station", "drivers"),
        ("station.child_process", "station.child_links")),
    "nothing imports the outbox's entry point back (the old floor.process <-> outbox_main cycle)": (
        ("station", "drivers"), ("station.floor.outbox_main",), ()),
    "the pit page reads the broker only: nothing of a table, its journal or its station": (
        ("station.pit",), ("station.core", "station.journal", "station.sim", "drivers", "station.integrity",
                           "station.service.app", "station.service.control", "station.service.devices",
                           "station.floor.outbox", "station.floor.derive", "station.floor.process",
                           "station.cli"), ()),
    "only the command line reaches the command line": (
        ("station.core", "station.games", "station.service", "station.sim", "station.journal", "drivers",
         "station.web", "station.diag", "station.analysis", "station.pit"), ("station.cli",), ()),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_import_rule(rule: str) -> None:
    packages, forbidden, allowed, *exempt = RULES[rule]
    assert _violations(packages, forbidden, allowed, *exempt) == [], rule


def _graph(*packages: str) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports when it runs (at its top or lazily in a
    function; not under ``if TYPE_CHECKING:``). ``from pkg import name`` runs ``pkg/__init__.py``
    too, so it counts as importing ``pkg``."""
    return _graph_of(list(_modules(*packages)), ROOT)


def _graph_of(paths: list[Path], root: Path, *, run_only: bool = True) -> dict[str, set[str]]:
    modules = {_module_name(path, root): path for path in paths}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for _, imported in _imports(path, root, run_only=run_only):
            target = imported
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Every set of modules that import each other round (strongly connected, Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycle_anywhere() -> None:
    """Every import that runs counts, lazy ones too: a cycle found anywhere in station/ or
    drivers/ fails. Imports under ``if TYPE_CHECKING:`` only name types for the checker and never
    run, so they cannot make an import order matter; the layering rules above count them."""
    found = import_cycles(_graph("station", "drivers"))
    assert [sorted(c) for c in found] == []


def test_the_cycle_finder_finds_a_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def later():\n    from pkg.c import f\n")
    (package / "c.py").write_text("from . import a\n\ndef f():\n    pass\n")
    (package / "d.py").write_text("import pkg.a\n")
    (package / "e.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg import d\n")
    (package / "f.py").write_text("from pkg import e\n")
    graph = _graph_of(sorted(package.glob("*.py")), tmp_path)
    assert graph["pkg.e"] == set()  # a name for the type checker only
    assert import_cycles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """The scanner itself: an import inside a function and a relative import both count."""
    sample = ROOT / "station" / "core" / "__arch_sample__.py"
    sample.write_text("def f():\n    import drivers.simulators\n\nfrom ..sim import plugin\n")
    try:
        found = {m: n for n, m in _imports(sample)}
        assert "drivers.simulators" in found and "station.sim" in found and "station.sim.plugin" in found
    finally:
        sample.unlink()


#: Small modules with one job: no product module (station/, drivers/) over this many lines.
MODULE_LINES = 500
#: Modules over it that a branch is cutting down now (each line goes when that work lands).
BEING_SHRUNK: tuple[str, ...] = ()  # every product module is within the limit


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_product_module_is_over_500_lines() -> None:
    over = {str(path.relative_to(ROOT)): _lines(path) for path in _modules("station", "drivers")
            if _lines(path) > MODULE_LINES}
    assert {name: n for name, n in over.items() if name not in BEING_SHRUNK} == {}
    # An exception is only for as long as it is needed: once cut down, its line goes.
    assert [name for name in BEING_SHRUNK if name not in over] == [], "now under the limit: take it out of BEING_SHRUNK"


def _loop_machine_reads(paths: Iterator[Path]) -> list[str]:
    """Every ``<...>loop.machine`` or ``hooks.machine`` in ``paths``: a read of the core loop's
    machine, which belongs to the loop's thread (station/core/snapshot.py)."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Attribute) and node.attr == "machine"):
                continue
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            if name.endswith("loop") or name == "hooks":
                found.append(f"{path.name}:{node.lineno} reads {name}.machine")
    return found


def test_nothing_outside_the_core_reads_the_loop_s_machine() -> None:
    """Other threads read ``loop.published``; the loop's own thread uses ``loop.inspect``."""
    core = set(_modules("station.core"))
    outside = (path for path in _modules("station", "drivers") if path not in core)
    assert _loop_machine_reads(outside) == []


def test_the_machine_read_finder_finds_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(station):\n    return station.loop.machine.round\n")
    assert len(_loop_machine_reads(iter([sample]))) == 1


def _graph_with_annotations(*packages: str) -> dict[str, set[str]]:
    """Like :func:`_graph`, counting the imports under ``if TYPE_CHECKING:`` too."""
    return _graph_of(list(_modules(*packages)), ROOT, run_only=False)


def _package(module: str) -> str:
    """The package a module belongs to, two levels down (``station.floor``, ``drivers.devices``);
    a module at the top (``station.money``) is its own."""
    return ".".join(module.split(".")[:2])


def test_no_import_cycle_even_for_the_type_checker() -> None:
    """A cycle through an import that only names a type still ties two modules together: a
    reader cannot understand one without the other, and moving one breaks the other."""
    found = import_cycles(_graph_with_annotations("station", "drivers"))
    assert [sorted(c) for c in found] == []


def test_no_two_packages_import_each_other() -> None:
    """Packages are layered: when one imports another, the other imports nothing of it back
    (counting imports under ``if TYPE_CHECKING:``). The failure names each module pair."""
    graph = _graph_with_annotations("station", "drivers")
    reaches: dict[tuple[str, str], list[str]] = {}
    for module, imported in graph.items():
        for other in imported:
            pair = (_package(module), _package(other))
            if pair[0] != pair[1] and pair[0] != pair[0].split(".")[0]:
                reaches.setdefault(pair, []).append(f"{module} -> {other}")
    both_ways = sorted((a, b) for a, b in reaches if a < b and (b, a) in reaches)
    assert [(pair, reaches[pair], reaches[pair[::-1]]) for pair in both_ways] == []


def test_the_package_pair_finder_finds_a_pair(tmp_path: Path) -> None:
    for name, text in {"a/__init__.py": "", "a/x.py": "from b.y import Y\n",
                       "b/__init__.py": "", "b/y.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                                      "    from a.x import X\nY = 1\n"}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    paths = sorted(tmp_path.rglob("*.py"))
    assert import_cycles(_graph_of(paths, tmp_path)) == []  # the running imports make no cycle
    assert import_cycles(_graph_of(paths, tmp_path, run_only=False)) == [frozenset({"a.x", "b.y"})]


def _calls_of(name: str, paths: Iterator[Path]) -> list[str]:
    """Every call of ``name(...)`` in ``paths``, as ``file:line``."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_a_projection_is_made_in_one_place() -> None:
    """Every reader of history starts through ``start_projection`` (before the first record or
    at a checkpoint), so where a reader starts has one rule, not one per reader."""
    made = _calls_of("Projection", _modules("station", "drivers"))
    assert [where.split(":")[0] for where in made] == ["station/core/checkpoints.py"], made
