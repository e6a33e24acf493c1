#!/usr/bin/env python3
"""Mutation testing of the pure rules: do the tests notice when a rule is changed?

Each *mutant* is the source with one small change a slip of the keyboard could make: a
comparison swapped (``<`` for ``<=``, ``==`` for ``!=``, ``in`` for ``not in``), ``and`` for
``or``, an arithmetic operator swapped, a ``not`` dropped, a whole number one higher, ``True``
for ``False``, ``min`` for ``max``, ``+=`` for ``-=``. Every mutant of ``station/games`` and
``station/roads`` is run against ``tests/games`` and ``tests/roads`` (``pytest -x``); a mutant
the tests fail on is *killed*, one they pass is a *survivor*: behaviour no test checks.

Some mutants cannot change behaviour (``x < 0`` for ``x <= 0`` where ``x`` is never 0, a
cache size one larger). They are listed, with why, in ``tools/mutation_equivalents.txt``
and left out of the score: killed / (all − equivalent).

    .venv/bin/python tools/mutate.py                 # everything, 2 workers
    .venv/bin/python tools/mutate.py --jobs 4 --report mutation.json
    .venv/bin/python tools/mutate.py --list          # the mutants, without running them
    .venv/bin/python tools/mutate.py --only station/games/war/wagers.py

Each worker runs in a copy of the checkout in a temporary folder (the checkout is never
touched), with ``PYTHONPATH`` pointing at the copy and its own bytecode cache; every module
written gets a modification time no earlier one had, so a mutant's module is always
compiled from its mutated source while the others are not compiled again. A developer
tool: the test suite does not run it (it takes tens of minutes). The score is recorded in
docs/games.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = ("station/games", "station/roads")
DEFAULT_TESTS = ("tests/games", "tests/roads")
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"
NO_MUTATE = "pragma: no mutate"

_COMPARE_SWAPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_SYMBOLS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
    ast.And: "and", ast.Or: "or",
}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the checkout
    index: int  # the mutant's number within its file
    line: int
    description: str
    source_line: str

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies a mutant across edits elsewhere in the file (line numbers move)."""
        return self.path, self.source_line, self.description

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.description}   [{self.source_line}]"


class _Mutator(ast.NodeTransformer):
    """Walks a module in a fixed order, numbering every possible mutation; with ``target``
    set, applies that one mutation and leaves the rest."""

    def __init__(self, lines: list[str], target: int = -1) -> None:
        self.lines = lines
        self.target = target
        self.count = 0
        self.found: list[tuple[int, str]] = []  # (line, description) by number
        self.applied = False

    # --- what is never mutated --------------------------------------------------------------

    def _skipped(self, node: ast.AST) -> bool:
        line = getattr(node, "lineno", None)
        return line is not None and NO_MUTATE in self.lines[line - 1]

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node  # f-strings are the words of a message, not a rule

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # Annotations and decorators (a cache's size) are not rules: only defaults and body.
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
        node.body = [self.visit(s) for s in node.body]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]  # same shape

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = [self.visit(s) for s in node.body]  # not its decorators (``frozen=True``)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return node  # a docstring
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return node
        return self.generic_visit(node)

    # --- the mutations ----------------------------------------------------------------------

    def _offer(self, node: ast.AST, description: str) -> bool:
        """One possible mutation here: True when it is the one to apply."""
        number = self.count
        self.count += 1
        self.found.append((getattr(node, "lineno", 0), description))
        if number == self.target:
            self.applied = True
            return True
        return False

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if self._skipped(node):
            return node
        for i, op in enumerate(node.ops):
            for new in _COMPARE_SWAPS.get(type(op), ()):
                what = f"compare {i + 1} at col {node.col_offset}: {_SYMBOLS[type(op)]} -> {_SYMBOLS[new]}"
                if self._offer(node, what):
                    node.ops[i] = new()
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if self._skipped(node):
            return node
        new: type[ast.boolop] = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._offer(node, f"boolean at col {node.col_offset}: {_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new]}"):
            node.op = new()
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if self._skipped(node):
            return node
        new = _BINOP_SWAPS.get(type(node.op))
        if new is not None and self._offer(
            node, f"arithmetic at col {node.col_offset}: {_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new]}"
        ):
            node.op = new()
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if self._skipped(node):
            return node
        new = {ast.Add: ast.Sub, ast.Sub: ast.Add}.get(type(node.op))
        if new is not None and self._offer(
            node, f"augmented at col {node.col_offset}: {_SYMBOLS[type(node.op)]}= -> {_SYMBOLS[new]}="
        ):
            node.op = new()
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if self._skipped(node):
            return node
        if isinstance(node.op, (ast.Not, ast.USub)):
            word = "not" if isinstance(node.op, ast.Not) else "-"
            if self._offer(node, f"unary at col {node.col_offset}: drop {word}"):
                return node.operand
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if self._skipped(node):
            return node
        value = node.value
        if not isinstance(value, int):
            return node
        new = (not value) if isinstance(value, bool) else value + 1
        if self._offer(node, f"constant at col {node.col_offset}: {value} -> {new}"):
            return ast.copy_location(ast.Constant(new), node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if self._skipped(node) or node.id not in ("min", "max") or not isinstance(node.ctx, ast.Load):
            return node
        new = "max" if node.id == "min" else "min"
        if self._offer(node, f"call at col {node.col_offset}: {node.id} -> {new}"):
            return ast.copy_location(ast.Name(new, ast.Load()), node)
        return node


#: Every source file as it was when the run started: mutants are made from these, so editing
#: the checkout during a run changes nothing in it.
_SOURCES: dict[Path, str] = {}


def _source(path: Path) -> str:
    if path not in _SOURCES:
        _SOURCES[path] = path.read_text()
    return _SOURCES[path]


def mutants_of(path: Path) -> list[Mutant]:
    source = _source(path)
    lines = source.splitlines()
    mutator = _Mutator(lines)
    mutator.visit(ast.parse(source))
    rel = str(path.relative_to(ROOT))
    # A line's text names it in tools/mutation_equivalents.txt; the same text on a later line
    # of the file is told apart by its number: "if total < small - limit:  (#2)".
    seen: dict[str, int] = {}
    names: list[str] = []
    for text in (line.strip() for line in lines):
        seen[text] = seen.get(text, 0) + 1
        names.append(text if seen[text] == 1 else f"{text}  (#{seen[text]})")
    return [
        Mutant(rel, i, line, description, names[line - 1] if line else "")
        for i, (line, description) in enumerate(mutator.found)
    ]


def mutated_source(path: Path, index: int) -> str:
    source = _source(path)
    mutator = _Mutator(source.splitlines(), target=index)
    tree = mutator.visit(ast.parse(source))
    assert mutator.applied, f"{path}: no mutant {index}"
    return ast.unparse(ast.fix_missing_locations(tree))


def source_files(paths: list[str]) -> Iterator[Path]:
    for name in paths:
        p = ROOT / name
        yield from ([p] if p.is_file() else sorted(p.rglob("*.py")))


def load_equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str, str], str]:
    """``path | source line | mutation | why`` per line; ``#`` starts a comment line."""
    out: dict[tuple[str, str, str], str] = {}
    if not path.exists():
        return out
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in raw.split(" | ")]
        if len(parts) != 4:
            raise SystemExit(f"{path}:{number}: want 'path | source line | mutation | why', got {raw!r}")
        out[(parts[0], parts[1], parts[2])] = parts[3]
    return out


# --- running -------------------------------------------------------------------------------


def make_copy(into: Path, sources: dict[Path, str]) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    for name in ("station", "drivers"):
        shutil.copytree(ROOT / name, into / name, ignore=ignore)
    for path, text in sources.items():  # the mutated files as the run saw them at its start
        write_source(into / path.relative_to(ROOT), text)
    (into / "tests").mkdir()
    shutil.copy2(ROOT / "tests" / "conftest.py", into / "tests" / "conftest.py")
    for name in ("games", "roads"):
        shutil.copytree(ROOT / "tests" / name, into / "tests" / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


_STAMPS = iter(range(10**9))
_STAMP_LOCK = threading.Lock()


def write_source(target: Path, text: str) -> None:
    """Write a module with a modification time no earlier write had: the bytecode cache
    (which keys on the source's time and size) can then never serve a stale module."""
    target.write_text(text)
    with _STAMP_LOCK:
        stamp = 1_000_000_000 + next(_STAMPS)
    os.utime(target, (stamp, stamp))


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[str, float]:
    """'killed', 'survived' or 'timeout', and the seconds it took."""
    shutil.rmtree(copy / ".hypothesis", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONPYCACHEPREFIX": str(copy / ".pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0",
             "-o", "addopts=--import-mode=importlib", *tests],
            cwd=copy, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    return ("survived" if done.returncode == 0 else "killed"), time.monotonic() - start


def tests_for(path: str, tests: list[str]) -> list[str]:
    """The same tests, those nearest the mutated module first: ``-x`` stops at the first
    failure, so a mutant is usually killed by its own module's tests within a second or two.
    ``station/games/baccarat/wagers.py`` is tried on ``tests/games/baccarat/test_wagers.py``,
    then the rest of ``tests/games/baccarat``, then everything (pytest collects a file once)."""
    source = Path(path)
    mirror = Path("tests", *source.parts[1:-1])  # station/games/baccarat -> tests/games/baccarat
    first = [str(f.relative_to(ROOT)) for f in [ROOT / mirror / f"test_{source.stem}.py"] if f.exists()]
    if (ROOT / mirror).is_dir():
        first.append(str(mirror))
    return [*first, *(t for t in tests if t not in first)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paths", nargs="+", default=list(DEFAULT_PATHS), help="source folders or files to mutate")
    parser.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS), help="test folders run on each mutant")
    parser.add_argument("--only", nargs="+", default=None, help="mutate only these files (relative paths)")
    parser.add_argument("--jobs", type=int, default=2, help="workers side by side (default 2)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--report", type=Path, default=None, help="write every mutant's result here (JSON)")
    args = parser.parse_args(argv)

    files = list(source_files(args.only or args.paths))
    mutants = [m for f in files for m in mutants_of(f)]
    equivalents = load_equivalents()
    if args.list:
        for m in mutants:
            print(("= " if m.key in equivalents else "  ") + str(m))
        print(f"{len(mutants)} mutants, {sum(m.key in equivalents for m in mutants)} listed as equivalent")
        return 0
    stale = set(equivalents) - {m.key for m in mutants}
    if stale and not args.only:
        for key in sorted(stale):
            print(f"note: equivalent no longer found (source changed?): {' | '.join(key)}", file=sys.stderr)

    to_run = [m for m in mutants if m.key not in equivalents]
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        copies = [make_copy(Path(tmp) / f"w{i}", _SOURCES) for i in range(max(1, args.jobs))]
        verdict, baseline = run_tests(copies[0], args.tests, timeout=1800)
        if verdict != "survived":
            print("the tests fail on the unmutated source: fix that first", file=sys.stderr)
            return 2
        timeout = max(60.0, 5 * baseline)
        print(f"{len(mutants)} mutants ({len(mutants) - len(to_run)} equivalent, skipped); "
              f"unmutated run {baseline:.1f} s; timeout {timeout:.0f} s; {len(copies)} workers", flush=True)
        work: queue.Queue[Mutant] = queue.Queue()
        for m in to_run:
            work.put(m)
        results: list[dict[str, object]] = []
        lock = threading.Lock()

        def worker(copy: Path) -> None:
            while True:
                try:
                    m = work.get_nowait()
                except queue.Empty:
                    return
                target = copy / m.path
                original = _source(ROOT / m.path)
                write_source(target, mutated_source(ROOT / m.path, m.index))
                try:
                    verdict, seconds = run_tests(copy, tests_for(m.path, args.tests), timeout)
                finally:
                    write_source(target, original)
                with lock:
                    results.append({**asdict(m), "verdict": verdict, "seconds": round(seconds, 1)})
                    mark = {"killed": ".", "timeout": "t", "survived": "S"}[verdict]
                    print(f"[{len(results)}/{len(to_run)}] {mark} {m}", flush=True)

        threads = [threading.Thread(target=worker, args=(c,)) for c in copies]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    survivors = sorted((r for r in results if r["verdict"] == "survived"), key=lambda r: (r["path"], r["line"]))
    killed = len(results) - len(survivors)
    score = killed / len(results) if results else 1.0
    print()
    for r in survivors:
        print(f"SURVIVED {r['path']}:{r['line']}: {r['description']}   [{r['source_line']}]")
    print(f"\n{len(mutants)} mutants: {len(mutants) - len(to_run)} equivalent, {killed} killed "
          f"({sum(r['verdict'] == 'timeout' for r in results)} by timeout), {len(survivors)} survived; "
          f"score {killed}/{len(results)} = {score:.1%}")
    if args.report is not None:
        args.report.write_text(json.dumps({"score": score, "killed": killed, "run": len(results),
                                           "equivalent": len(mutants) - len(to_run), "results": results}, indent=1))
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
