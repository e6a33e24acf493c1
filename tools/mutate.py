#!/usr/bin/env python3
"""Mutation testing: do the tests notice when the code is changed?

Each *mutant* is the source with one small change a slip of the keyboard could make: a
comparison swapped (``<`` for ``<=``, ``==`` for ``!=``, ``in`` for ``not in``), ``and`` for
``or``, an arithmetic operator swapped, a ``not`` dropped, a whole number one higher, ``True``
for ``False``, ``min`` for ``max``, ``+=`` for ``-=``, an early ``return`` or ``raise`` dropped.
Each mutant is run against the tests that guard its module (:data:`GUARDS`: the pure rules by
``tests/games`` and ``tests/roads``; the state machine's steps and the integrity package by
``tests/core`` and ``tests/integrity``), ``pytest -x``; a mutant the tests fail on is *killed*,
one they pass is a *survivor*: behaviour no test checks.

Only the tests that run the changed line can notice it, so by default each mutant runs against
those alone, fastest first: a first, unmutated run under coverage.py
(``tools/mutation_contexts.py``) notes which test runs which line, and is kept in
``.mutation-cache/`` until a source or test file changes. A mutant on a line no guarding test
runs survives without a run; one in code run at import (a module's constants, a class body)
runs against the guarding tests that run any function of its package. ``--all-tests`` runs
every mutant against the whole folders.

Some mutants cannot change behaviour (``x < 0`` for ``x <= 0`` where ``x`` is never 0, a
cache size one larger). They are listed, with why, in ``tools/mutation_equivalents.txt``
and left out of the score: killed / (all − equivalent).

    nice -n 19 .venv/bin/python tools/mutate.py                     # everything, 2 workers
    nice -n 19 .venv/bin/python tools/mutate.py --guard core --report core.json
    nice -n 19 .venv/bin/python tools/mutate.py --guard core --sample 40 --seed 1
    .venv/bin/python tools/mutate.py --guard core --list             # the mutants, not run
    .venv/bin/python tools/mutate.py --only station/core/bet_steps.py --jobs 1
    .venv/bin/python tools/mutate.py --guard core --resume core.json # rerun what was not killed

Each worker runs in a copy of the checkout in a temporary folder (the checkout is never
touched, so a run stopped at any moment leaves no mutant in it), with ``PYTHONPATH`` pointing
at the copy and its own bytecode cache; every module written gets a modification time no
earlier one had, so a mutant's module is always compiled from its mutated source while the
others are not compiled again. A developer tool: the test suite does not run it. How to run
it and the scores: docs/testing.md.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import importlib.util
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"
CACHE = ROOT / ".mutation-cache"
#: The folders the coverage map measures: every guard's code is in one of them (the drivers'
#: guard found none of its lines run while only ``station`` was measured).
MAPPED_FOLDERS = ("station", "drivers")
NO_MUTATE = "pragma: no mutate"


@dataclass(frozen=True)
class Guard:
    """Source files (patterns relative to the checkout) and the test folders that guard them."""

    name: str
    sources: tuple[str, ...]
    tests: tuple[str, ...]

    def covers(self, rel: str) -> bool:
        return any(fnmatch(rel, pattern) for pattern in self.sources)

    def files(self) -> list[Path]:
        found = {p for pattern in self.sources for p in ROOT.glob(pattern) if p.name != "__init__.py"}
        return sorted(found)


GUARDS = (
    Guard("rules", ("station/games/**/*.py", "station/roads/*.py"), ("tests/games", "tests/roads")),
    Guard("core", ("station/core/*_steps.py", "station/core/machine*.py", "station/integrity/*.py"),
          ("tests/core", "tests/integrity")),
    # Money as people read it and as it is built: amounts written, a currency's digits, payouts
    # in words and chips, the limits a supervisor sets (issue 40).
    Guard("money", ("station/money.py", "station/console/words.py", "station/games/limits.py"),
          ("tests/service/test_money_and_web_config.py", "tests/console/test_console_parts.py",
           "tests/games/test_refusal_money.py", "tests/core/test_limit_changes.py", "tests/test_money_words.py")),
    Guard("meters", ("station/meters/*.py",), ("tests/meters",)),
    Guard("journal", ("station/journal/*.py",),
          ("tests/journal", "tests/floor/test_anchors_verify.py", "tests/service/test_generated_journals.py",
           "tests/service/test_archive.py", "tests/service/test_deep_verify.py",
           "tests/service/test_readers_on_real_journals.py")),
    Guard("drivers", ("drivers/codec/*.py", "drivers/devices/*.py", "drivers/transport/*.py", "drivers/usb/*.py",
                      "drivers/input/*.py"),
          ("tests/drivers", "tests/devices", "tests/usb", "tests/input", "tests/diag")),
    Guard("floor", ("station/floor/outbox.py", "station/floor/cursor.py", "station/floor/resume.py"),
          ("tests/floor",)),
)

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
    first: int = 0  # the lines of the statement (a compound one's header) the change is in
    last: int = 0
    in_function: bool = False  # run when a function is called, not when its module is imported

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies a mutant across edits elsewhere in the file (line numbers move)."""
        return self.path, self.source_line, self.description

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.description}   [{self.source_line}]"


def _header(node: ast.stmt) -> tuple[int, int]:
    """The lines of a statement that run when it starts: a compound statement's header only
    (its body's statements have their own lines)."""
    end: int | None
    if isinstance(node, (ast.If, ast.While)):
        end = node.test.end_lineno
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        end = node.iter.end_lineno
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        end = node.items[-1].context_expr.end_lineno
    elif isinstance(node, (ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        end = node.lineno
    else:
        end = node.end_lineno
    return node.lineno, end or node.lineno


def _tails(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements after which a function returns anyway: a bare ``return`` there is no
    early return."""
    if not body:
        return
    last = body[-1]
    yield last
    if isinstance(last, ast.If):
        yield from _tails(last.body)
        yield from _tails(last.orelse)
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        yield from _tails(last.body)


def _is_not_implemented(node: ast.Raise) -> bool:
    """``raise NotImplementedError``: how a base class says "a subclass provides this"."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


class _Mutator(ast.NodeTransformer):
    """Walks a module in a fixed order, numbering every possible mutation; with ``target``
    set, applies that one mutation and leaves the rest."""

    def __init__(self, lines: list[str], target: int = -1) -> None:
        self.lines = lines
        self.target = target
        self.count = 0
        #: (line, description, first line, last line, in a function) by number
        self.found: list[tuple[int, str, int, int, bool]] = []
        self.applied = False
        self._statement = (0, 0)  # the lines of the statement being walked
        self._depth = 0  # functions around the node being walked
        self._top: set[int] = set()  # ids of the statements of a function's own body
        self._tail: set[int] = set()  # ids of the statements a function ends with

    def visit(self, node: ast.AST) -> Any:
        if not isinstance(node, ast.stmt):
            return super().visit(node)
        outer, self._statement = self._statement, _header(node)
        try:
            return super().visit(node)
        finally:
            self._statement = outer

    # --- what is never mutated --------------------------------------------------------------

    def _skipped(self, node: ast.AST) -> bool:
        line = getattr(node, "lineno", None)
        return line is not None and NO_MUTATE in self.lines[line - 1]

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node  # f-strings are the words of a message, not a rule

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # Annotations and decorators (a cache's size) are not rules: only defaults and body.
        # Defaults are worked out when the module is imported; the body when it is called.
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
        self._top |= {id(s) for s in node.body}
        self._tail |= {id(s) for s in _tails(node.body)}
        self._depth += 1
        try:
            node.body = [self.visit(s) for s in node.body]
        finally:
            self._depth -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]  # same shape

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.args = self.visit(node.args)
        self._depth += 1
        try:
            node.body = self.visit(node.body)
        finally:
            self._depth -= 1
        return node

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
        first, last = self._statement
        self.found.append((getattr(node, "lineno", 0), description, first, last, self._depth > 0))
        if number == self.target:
            self.applied = True
            return True
        return False

    def _drop_exit(self, node: ast.Return | ast.Raise, word: str) -> ast.AST:
        """An early exit dropped: the code after the ``if`` that returns (or raises) runs too.
        A function's own last ``return`` or ``raise`` is not early; neither is a bare
        ``return`` the function ends with anyway."""
        if self._skipped(node) or self._depth == 0 or id(node) in self._top:
            return node
        if isinstance(node, ast.Return) and node.value is None and id(node) in self._tail:
            return node
        if self._offer(node, f"statement at col {node.col_offset}: drop {word}"):
            return ast.copy_location(ast.Pass(), node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        return self._drop_exit(node, "return")

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        if _is_not_implemented(node):
            return node
        self.generic_visit(node)
        return self._drop_exit(node, "raise")

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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
        Mutant(rel, i, line, description, names[line - 1] if line else "", first, last, in_function)
        for i, (line, description, first, last, in_function) in enumerate(mutator.found)
    ]


def mutated_source(path: Path, index: int) -> str:
    source = _source(path)
    mutator = _Mutator(source.splitlines(), target=index)
    tree = mutator.visit(ast.parse(source))
    assert mutator.applied, f"{path}: no mutant {index}"
    return ast.unparse(ast.fix_missing_locations(tree))


def guard_of(rel: str) -> Guard:
    for guard in GUARDS:
        if guard.covers(rel):
            return guard
    raise SystemExit(f"{rel}: no guard in tools/mutate.py names the tests for it")


def source_files(paths: list[str]) -> Iterator[Path]:
    for name in paths:
        p = ROOT / name
        if not p.exists():
            raise SystemExit(f"{name}: no such file or folder")
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


# --- the copies the mutants run in ----------------------------------------------------------


def copied_tests(test_folders: Iterable[str]) -> list[Path]:
    """What of tests/ a run needs: all of it but the artifacts (the guarding tests import
    helpers from beside them: tests/core_table.py, tests/drivers/helpers.py)."""
    return [ROOT / "tests"]


_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache", "artifacts")


def make_copy(into: Path, sources: dict[Path, str], tests: list[Path]) -> Path:
    # docs: tests compare them with the code; bench: tests import its checks (tests/meters);
    # systemd, debian: the floor's tests verify its drop-in with the unit and the package
    for name in ("station", "drivers", "config", "docs", "bench", "systemd", "debian"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, into / name, ignore=_IGNORE)
    for path, text in sources.items():  # the mutated files as the run saw them at its start
        write_source(into / path.relative_to(ROOT), text)
    for test in tests:
        target = into / test.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        if test.is_dir():
            shutil.copytree(test, target, ignore=_IGNORE)
        else:
            shutil.copy2(test, target)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def _is_test_file(rel: Path) -> bool:
    return rel.parts[0] == "tests" and rel.name.startswith("test_") and rel.suffix == ".py"


def base_digest(copy: Path) -> str:
    """What every test's line map depends on: every file of the copy but the test files
    themselves (the code, the helpers, the conftest files), and the plugin that draws it."""
    h = hashlib.sha256()
    files = [p for p in sorted(copy.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
             and not p.name.startswith(".") and not _is_test_file(p.relative_to(copy))]
    plugin = [ROOT / "tools" / "mutation_contexts.py", ROOT / "tools" / "mutation_site" / "sitecustomize.py"]
    for path in [*files, *plugin]:
        h.update(str(path.relative_to(copy) if path.is_relative_to(copy) else path.name).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:20]


def test_files(copy: Path, folders: list[str]) -> dict[str, str]:
    """The test files under ``folders`` in the copy, each with the digest of its text."""
    found: dict[str, str] = {}
    for folder in folders:
        where = copy / folder.split("::")[0]
        for path in [where] if where.is_file() else sorted(where.rglob("test_*.py")):
            found[str(path.relative_to(copy))] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return found


_STAMPS = iter(range(10**9))
_STAMP_LOCK = threading.Lock()


def write_source(target: Path, text: str) -> None:
    """Write a module with a modification time no earlier write had: the bytecode cache
    (which keys on the source's time and size) can then never serve a stale module."""
    target.write_text(text)
    with _STAMP_LOCK:
        stamp = 1_000_000_000 + next(_STAMPS)
    os.utime(target, (stamp, stamp))


# --- running the tests ----------------------------------------------------------------------

_LIVE: set[subprocess.Popen[bytes]] = set()  # the test runs going on, to end if the tool is stopped
_SERVERS: list[WarmPytest] = []
_WORKERS: list[threading.Thread] = []
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _environment(copy: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONPYCACHEPREFIX": str(copy / ".pycache"),
           "OPENBLAS_NUM_THREADS": "1"}  # no thread pool in a process that forks
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _pytest_args(copy: Path, args: list[str], fail_fast: bool = True) -> list[str]:
    plugins = ["-p", "no:cacheprovider", "-p", "no:xdist"]
    if importlib.util.find_spec("pytest_randomly") is not None:
        plugins += ["-p", "no:randomly"]
    return [*(["-x"] if fail_fast else []), "-q", *plugins, "--hypothesis-seed=0",
            "-o", "addopts=--import-mode=importlib",
            "-m", "not soak and not deb",
            f"--basetemp={copy / 't'}",  # the copy's own: no other run's clean-up reaches it
            *args]


def _pytest(copy: Path, args: list[str], timeout: float, env: dict[str, str] | None = None,
            log: Path | None = None, fail_fast: bool = True) -> int | None:
    """Run pytest in ``copy`` in a process of its own; its exit status, or None on timeout.
    Whatever it started is ended with it. Its output goes to ``log``, or nowhere."""
    shutil.rmtree(copy / ".hypothesis", ignore_errors=True)
    with open(log or os.devnull, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", *_pytest_args(copy, args, fail_fast)], cwd=copy,
                                env={**_environment(copy), **(env or {})}, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    with _LIVE_LOCK:
        _LIVE.add(proc)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _end(proc)
        with _LIVE_LOCK:
            _LIVE.discard(proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    _kill_group(proc.pid)  # the process, and anything it left behind
    proc.wait()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class WarmPytest:
    """``tools/mutation_server.py`` in a copy: each run is a fork of a process that has
    imported pytest and the station's libraries already."""

    def __init__(self, copy: Path) -> None:
        self.copy = copy
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "tools" / "mutation_server.py")], cwd=copy,
                                     env=_environment(copy), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     start_new_session=True)
        with _LIVE_LOCK:
            _LIVE.add(self.proc)
            _SERVERS.append(self)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.child = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put({"status": -2})  # the server is gone

    def run(self, args: list[str], timeout: float) -> tuple[int | None, str]:
        """pytest's exit status (None on timeout), and the first test that failed."""
        assert self.proc.stdin is not None
        shutil.rmtree(self.copy / ".hypothesis", ignore_errors=True)
        self.proc.stdin.write((json.dumps({"args": _pytest_args(self.copy, args)}) + "\n").encode())
        self.proc.stdin.flush()
        started = self.lines.get(timeout=120)
        if "pid" not in started:
            raise RuntimeError(f"tools/mutation_server.py in {self.copy} stopped")
        self.child = started["pid"]
        first = ""
        try:
            answer = self.lines.get(timeout=timeout)
            status: int | None = answer["status"]
            first = answer.get("failed", "")
        except queue.Empty:
            status = None
            _kill_group(self.child)
            self.lines.get()  # the status of the child just ended
        _kill_group(self.child)  # anything the tests left running
        self.child = 0
        if status == -2:
            raise RuntimeError(f"tools/mutation_server.py in {self.copy} stopped")
        return status, first

    def close(self) -> None:
        if self.child:
            _kill_group(self.child)
        _end(self.proc)
        with _LIVE_LOCK:
            _LIVE.discard(self.proc)


def run_tests(runner: WarmPytest | Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    """'killed', 'survived' or 'timeout', the seconds it took, and the test that failed first
    (when the run was forked from a :class:`WarmPytest`)."""
    start = time.monotonic()
    first = ""
    if isinstance(runner, WarmPytest):
        status, first = runner.run(tests, timeout)
    else:
        status = _pytest(runner, tests, timeout)
    seconds = time.monotonic() - start
    if status is None:
        return "timeout", seconds, ""
    if status in (4, 5, -2):  # a usage error, or no test collected: the tool's fault, not the mutant's
        if _STOPPING.is_set():
            return "stopped", seconds, ""
        raise RuntimeError(f"pytest exit status {status} for {' '.join(tests[:3])} ...")
    return ("survived" if status == 0 else "killed"), seconds, first


@dataclass
class CoverageMap:
    """Which test runs which line (``tools/mutation_contexts.py``), and how long each test takes."""

    lines: dict[str, dict[str, list[str]]]  # file -> line (as text) -> test ids
    durations: dict[str, float]

    def ordered(self, tests: Iterable[str]) -> list[str]:
        return sorted(set(tests), key=lambda t: (self.durations.get(t, 0.0), t))

    def guarding(self, guard: Guard) -> list[str]:
        return self.ordered(t for t in self.durations if _in_folders(t, guard.tests))

    def tests_for(self, m: Mutant, guard: Guard) -> list[str]:
        """The guarding tests that run the mutant's statement, fastest first; for code run at
        import (a constant, a default, a message's type code), those that run any function of
        its package: a module of constants is read by its neighbours (a codec's message types
        by the package's decoder), so the tests of its own functions alone miss them; every
        guarding test for code run only outside any test; none when no test runs it. A line run
        at import as well as by tests (in a function called while its module loads) takes its
        package's tests too."""
        if not m.in_function:
            return self._package_users(m, guard)
        by_line = self.lines.get(m.path, {})
        found: set[str] = set()
        outside = False
        for line in range(m.first or m.line, (m.last or m.line) + 1):
            for test in by_line.get(str(line), ()):
                if not test:
                    outside = True
                elif _in_folders(test, guard.tests):
                    found.add(test)
        if outside:
            # A function called while its module loads (a table of worked examples built at
            # import): what it returned is read by any user of the package, whichever test
            # happens to call it again besides.
            return self.ordered({*found, *self._package_users(m, guard)})
        return self.ordered(found)

    def _package_users(self, m: Mutant, guard: Guard) -> list[str]:
        """The guarding tests that run any function of the mutant's package (every guarding
        test when none does): the readers of what its modules hold from their import."""
        package = m.path.rsplit("/", 1)[0] + "/"
        users = {t for path, lines in self.lines.items() if path.startswith(package) and "/" not in
                 path[len(package):] for tests in lines.values() for t in tests
                 if t and _in_folders(t, guard.tests)}
        return self.ordered(users) if users else self.guarding(guard)

    def seconds(self, tests: list[str]) -> float:
        return sum(self.durations.get(t, 1.0) for t in tests)


def per_file_sample(mutants: list[Mutant], each: int, seed: int) -> list[Mutant]:
    """``each`` mutants of every file (all of a file with fewer), drawn with ``seed``: a sample
    no file's size can crowd out, as an independent check of a guard's figure draws it."""
    draw = random.Random(seed)
    by_file: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_file.setdefault(m.path, []).append(m)
    chosen = [m for path in sorted(by_file)
              for m in draw.sample(sorted(by_file[path], key=lambda m: m.index), min(each, len(by_file[path])))]
    return sorted(chosen, key=lambda m: (m.path, m.index))


def _in_folders(test: str, folders: Iterable[str]) -> bool:
    """Whether a test id is of one of a guard's folders, or is in one of its test files."""
    return any(test.startswith(f.rstrip("/") + "/") or test.split("::", maxsplit=1)[0] == f for f in folders)


def coverage_map(copy: Path, tests: list[str]) -> CoverageMap:
    """Which test runs which line: kept in ``.mutation-cache/`` per test file, for as long as
    the code and the helpers are the same; the test files that are new or changed since (or
    all of them, the first time) are run once on the unmutated code under coverage."""
    cached = CACHE / f"contexts-{'-'.join(MAPPED_FOLDERS)}-{base_digest(copy)}.json"
    kept: dict[str, dict[str, Any]] = json.loads(cached.read_text()) if cached.exists() else {}
    kept = {f: v for f, v in kept.items() if isinstance(v, dict) and "digest" in v}
    wanted = test_files(copy, tests)
    stale = sorted(f for f, d in wanted.items() if kept.get(f, {}).get("digest") != d)
    kept = {f: v for f, v in kept.items() if f in wanted}
    if stale:
        if importlib.util.find_spec("coverage") is None:
            raise SystemExit("coverage.py is needed to pick each mutant's tests: pip install -e '.[test]' "
                             "(or run with --all-tests)")
        out = copy / "contexts.json"
        print(f"noting which test runs which line: {len(stale)} test file(s) under coverage ...", flush=True)
        start = time.monotonic()
        sources = os.pathsep.join(str(copy / folder) for folder in MAPPED_FOLDERS)
        status = _pytest(copy, ["-p", "mutation_contexts", *stale], timeout=3 * 3600, env={
            "PYTHONPATH": f"{copy}{os.pathsep}{ROOT / 'tools'}", "MUTATION_CONTEXTS": str(out),
            "MUTATION_CONTEXTS_SOURCE": sources}, log=copy / "contexts.log", fail_fast=False)
        failed = json.loads(out.read_text())["failed"] if status == 1 and out.exists() else []
        if failed:  # a test bound by time may fail under the shared load: each is tried once more, alone
            print(f"... {len(failed)} failed; tried again alone: {' '.join(failed)}", flush=True)
            if all(_pytest(copy, [test], timeout=600) == 0 for test in failed):
                status = 0
        if status != 0 or not out.exists():
            tail = (copy / "contexts.log").read_text(errors="replace").splitlines()[-30:]
            raise SystemExit("\n".join([*tail, "the tests fail on the unmutated source: fix that first"]))
        print(f"... {time.monotonic() - start:.0f} s", flush=True)
        data = json.loads(out.read_text())
        for name in stale:  # split by test file: a test's id starts with its file's path
            mine = {t for t in data["durations"] if t.split("::")[0] == name}
            # "" is code run outside any test (at import): kept with every file's map
            lines = {src: {line: [t for t in ts if t in mine or not t] for line, ts in by_line.items()}
                     for src, by_line in data["lines"].items()}
            lines = {src: {line: ts for line, ts in by_line.items() if ts} for src, by_line in lines.items()}
            kept[name] = {"digest": wanted[name], "durations": {t: data["durations"][t] for t in mine},
                          "lines": {src: by_line for src, by_line in lines.items() if by_line}}
        CACHE.mkdir(exist_ok=True)
        cached.write_text(json.dumps(kept))
    merged: dict[str, dict[str, list[str]]] = {}
    durations: dict[str, float] = {}
    for entry in kept.values():
        durations.update(entry["durations"])
        for src, by_line in entry["lines"].items():
            into = merged.setdefault(src, {})
            for line, ts in by_line.items():
                into[line] = sorted({*into.get(line, ()), *ts})
    return CoverageMap(merged, durations)


def tests_nearest_first(path: str, tests: list[str]) -> list[str]:
    """Without a coverage map (``--all-tests``): every guarding test, those nearest the mutated
    module first (``station/games/baccarat/wagers.py`` on ``tests/games/baccarat/test_wagers.py``,
    then the rest of ``tests/games/baccarat``, then everything; pytest collects a file once)."""
    source = Path(path)
    mirror = Path("tests", *source.parts[1:-1])  # station/games/baccarat -> tests/games/baccarat
    first = [str(f.relative_to(ROOT)) for f in [ROOT / mirror / f"test_{source.stem}.py"] if f.exists()]
    if (ROOT / mirror).is_dir() and str(mirror) in {str(Path(t)) for t in tests}:
        first.append(str(mirror))
    return [*first, *(t for t in tests if t not in first)]


# --- the command ----------------------------------------------------------------------------

KILLED = ("killed", "timeout")


def load_report(path: Path) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """The results of an earlier report by mutant and its file's text: a mutant killed there is
    killed here too when its file is the same (tests were only added since)."""
    data = json.loads(path.read_text())
    return {(r["path"], r["source_line"], r["description"], r.get("digest", "")): r for r in data["results"]}


def write_report(path: Path, results: list[dict[str, Any]], mutants: int, equivalent: int,
                 command: list[str], seconds: float) -> None:
    killed = sum(r["verdict"] in KILLED for r in results)
    data = {"command": command, "seconds": round(seconds), "mutants": mutants, "equivalent": equivalent,
            "run": len(results), "killed": killed, "score": killed / len(results) if results else 1.0,
            "results": sorted(results, key=lambda r: (r["path"], r["index"]))}
    partial = path.with_name(path.name + ".part")
    partial.write_text(json.dumps(data, indent=1))
    partial.replace(path)


def summary(results: list[dict[str, Any]]) -> list[str]:
    """One line per file: mutants run, killed, survived, score."""
    rows = []
    for path in sorted({r["path"] for r in results}):
        mine = [r for r in results if r["path"] == path]
        killed = sum(r["verdict"] in KILLED for r in mine)
        rows.append(f"  {path:42} {len(mine):5} run {killed:5} killed {len(mine) - killed:4} survived "
                    f"{killed / len(mine):7.1%}")
    return rows


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # a stopped tool ends its test runs and removes its copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guard", nargs="+", choices=[g.name for g in GUARDS], default=None,
                        help="mutate the files of these guards (default: all)")
    parser.add_argument("--only", nargs="+", default=None, help="mutate only these files or folders (relative paths)")
    parser.add_argument("--jobs", type=int, default=2, help="workers side by side (default 2)")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="run only N mutants, drawn at random")
    parser.add_argument("--per-file", type=int, default=None, metavar="N",
                        help="run only N mutants of each file, drawn at random (the independent sample: with "
                             "--all-tests, each against its area's whole folders)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the draw of --sample (default 0)")
    parser.add_argument("--all-tests", action="store_true",
                        help="run each mutant against every guarding test, not only those that run its line")
    parser.add_argument("--match", nargs="+", default=None, metavar="TEXT",
                        help="only mutants whose line (as --list prints it) holds one of these texts")
    parser.add_argument("--tests", nargs="+", default=None,
                        help="run every mutant against these tests instead (to check new tests on chosen mutants)")
    parser.add_argument("--cold", action="store_true",
                        help="start pytest afresh for each mutant (not forked from tools/mutation_server.py)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--report", type=Path, default=None,
                        help="write every mutant's result here (JSON), after each mutant")
    parser.add_argument("--resume", type=Path, default=None, metavar="REPORT",
                        help="take the kills of an earlier report for unchanged files; run the rest")
    args = parser.parse_args(argv)

    guards = [g for g in GUARDS if args.guard is None or g.name in args.guard]
    files = list(source_files(args.only)) if args.only else [f for g in guards for f in g.files()]
    mutants = [m for f in files for m in mutants_of(f)]
    if args.match:
        mutants = [m for m in mutants if any(text in str(m) for text in args.match)]
    equivalents = load_equivalents()
    if args.list:
        for m in mutants:
            print(("= " if m.key in equivalents else "  ") + str(m))
        print(f"{len(mutants)} mutants, {sum(m.key in equivalents for m in mutants)} listed as equivalent")
        return 0
    stale = set(equivalents) - {m.key for m in mutants}
    if stale and not args.only and args.guard is None and not args.match:
        for key in sorted(stale):
            print(f"note: equivalent no longer found (source changed?): {' | '.join(key)}", file=sys.stderr)

    to_run = [m for m in mutants if m.key not in equivalents]
    if args.per_file is not None:
        to_run = per_file_sample(to_run, args.per_file, args.seed)
    if args.sample is not None and args.sample < len(to_run):
        to_run = sorted(random.Random(args.seed).sample(to_run, args.sample), key=lambda m: (m.path, m.index))
    digests = {str(f.relative_to(ROOT)): digest(_source(f)) for f in files}
    earlier = load_report(args.resume) if args.resume else {}
    results: list[dict[str, Any]] = []
    for m in list(to_run):
        before = earlier.get((*m.key, digests[m.path]))
        if before is not None and before["verdict"] in KILLED:
            results.append({**asdict(m), "digest": digests[m.path], "verdict": before["verdict"],
                            "seconds": before["seconds"], "tests": before.get("tests", 0), "reused": True})
            to_run.remove(m)
    test_folders = args.tests or sorted({t for m in mutants for t in guard_of(m.path).tests})
    command = ["tools/mutate.py", *(argv if argv is not None else sys.argv[1:])]
    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # Started in the background by a shell (`setsid ... &`), SIGINT comes ignored and every
        # process the tests start would inherit it: the tests that end a command with Ctrl-C
        # (station diag monitor, station simulate) would fail on the unmutated code.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    # In memory where there is a tmpfs: the tests' journals fsync every batch, and on a disk
    # shared with other test runs that waiting is much of a mutant's time.
    memory = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    tmp = Path(tempfile.mkdtemp(prefix="mut-", dir=memory))  # short: the tests' sockets live under it
    try:
        return _run(args, mutants, to_run, results, digests, test_folders, tmp, command, started)
    except KeyboardInterrupt:
        _STOPPING.set()
        with _LIVE_LOCK:
            live, servers = list(_LIVE), list(_SERVERS)
        for server in servers:
            server.close()
        for proc in live:
            _end(proc)
        for thread in _WORKERS:
            thread.join(10)  # each notices the stop once its test run has been ended
        print("\nstopped: the checkout is untouched; --resume the report to go on", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args: argparse.Namespace, mutants: list[Mutant], to_run: list[Mutant], results: list[dict[str, Any]],
         digests: dict[str, str], test_folders: list[str], tmp: Path, command: list[str], started: float) -> int:
    tests = copied_tests(test_folders)
    copies = [make_copy(tmp / f"w{i}", _SOURCES, tests) for i in range(max(1, args.jobs))]
    cmap = None if args.all_tests or args.tests else coverage_map(copies[0], test_folders)
    if cmap is None:
        verdict, baseline, _ = run_tests(copies[0], test_folders, timeout=3 * 3600)
        if verdict != "survived":
            print("the tests fail on the unmutated source: fix that first", file=sys.stderr)
            return 2
    equivalent = sum(m.key in load_equivalents() for m in mutants)
    print(f"{len(mutants)} mutants, {equivalent} equivalent; {len(to_run)} to run"
          f"{f' ({args.per_file} of each file, seed {args.seed})' if args.per_file is not None else ''}"
          f"{f' (a sample of {args.sample}, seed {args.seed})' if args.sample is not None else ''}"
          f"{f', {len(results)} killed in the --resume report' if results else ''}; {len(copies)} workers", flush=True)
    work: queue.Queue[Mutant] = queue.Queue()
    # In a random order (the same for the same --seed): a run stopped half-way has measured a
    # fair sample of the whole, not the first files; --resume goes on with the rest.
    for m in random.Random(args.seed).sample(to_run, len(to_run)):
        work.put(m)
    lock = threading.Lock()
    done = 0
    killers: dict[str, list[str]] = {}  # per module, the tests that killed its latest mutants

    def worker(copy: Path, runner: WarmPytest | Path) -> None:
        nonlocal done
        while not _STOPPING.is_set():
            try:
                m = work.get_nowait()
            except queue.Empty:
                return
            guard = guard_of(m.path)
            if cmap is not None:
                chosen = cmap.tests_for(m, guard)
                timeout = 60 + 4 * cmap.seconds(chosen)
            else:
                chosen = args.tests or tests_nearest_first(m.path, list(guard.tests))
                timeout = max(60.0, 5 * baseline)
            with lock:
                recent = [t for t in killers.get(m.path, []) if t in set(chosen)]
            chosen = [*recent, *(t for t in chosen if t not in recent)]
            killer = ""
            if not chosen:
                verdict, seconds = "survived", 0.0  # no guarding test runs this line
            else:
                target = copy / m.path
                write_source(target, mutated_source(ROOT / m.path, m.index))
                try:
                    verdict, seconds, killer = run_tests(runner, chosen, timeout)
                except RuntimeError as fault:
                    if _STOPPING.is_set():
                        return  # the run is being stopped: its test runs were ended
                    # pytest could not run the tests (a usage error: a conftest that no longer
                    # imports, say). The mutant's doing when the same tests run on the code as
                    # it is: then it is killed; otherwise the tool's fault, and the run stops.
                    write_source(target, _source(ROOT / m.path))
                    if run_tests(runner, chosen, timeout)[0] != "survived":
                        raise
                    verdict, seconds, killer = "killed", 0.0, f"(the tests could not run: {fault})"[:200]
                finally:
                    write_source(target, _source(ROOT / m.path))
            if verdict == "stopped":
                return
            with lock:
                if killer:
                    mine = killers.setdefault(m.path, [])
                    killers[m.path] = [killer, *(t for t in mine if t != killer)][:8]
                results.append({**asdict(m), "digest": digests[m.path], "verdict": verdict,
                                "seconds": round(seconds, 1), "tests": len(chosen), "killed_by": killer})
                done += 1
                mark = {"killed": ".", "timeout": "t", "survived": "S" if chosen else "U"}[verdict]
                print(f"[{done}/{len(to_run)}] {mark} {seconds:5.1f}s {len(chosen):3}t {m}", flush=True)
                if args.report is not None:
                    write_report(args.report, results, len(mutants), equivalent, command,
                                 time.monotonic() - started)

    runners: list[WarmPytest | Path] = [c if args.cold else WarmPytest(c) for c in copies]
    threads = [threading.Thread(target=worker, args=(c, r), daemon=True) for c, r in zip(copies, runners, strict=True)]
    _WORKERS.extend(threads)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for runner in runners:
        if isinstance(runner, WarmPytest):
            runner.close()

    survivors = sorted((r for r in results if r["verdict"] not in KILLED), key=lambda r: (r["path"], r["line"]))
    killed = len(results) - len(survivors)
    score = killed / len(results) if results else 1.0
    print()
    for r in survivors:
        how = "SURVIVED" if r["tests"] else "NO TEST RUNS IT"
        print(f"{how} {r['path']}:{r['line']}: {r['description']}   [{r['source_line']}]")
    print("\nby file:")
    print("\n".join(summary(results)))
    minutes = (time.monotonic() - started) / 60
    print(f"\n{len(mutants)} mutants: {equivalent} equivalent, {killed} killed "
          f"({sum(r['verdict'] == 'timeout' for r in results)} by timeout), {len(survivors)} survived "
          f"({sum(not r['tests'] for r in survivors)} run by no guarding test); "
          f"score {killed}/{len(results)} = {score:.1%}; {minutes:.0f} min")
    if args.report is not None:
        write_report(args.report, results, len(mutants), equivalent, command, time.monotonic() - started)
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
