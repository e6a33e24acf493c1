"""The mutation tool's choices that decide its figures (tools/mutate.py, docs/testing.md): the
independent sample draws from every file, and a mutant of code run at import is run against
the tests of its whole package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate_tool", ROOT / "tools" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_tool"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


mutate = _tool()


def _mutant(path: str, index: int, line: int = 1, in_function: bool = True) -> object:
    return mutate.Mutant(path, index, line, f"m{index}", "", line, line, in_function)


def test_the_independent_sample_takes_as_many_of_each_file_and_all_of_a_small_one() -> None:
    mutants = [_mutant("drivers/codec/big.py", i) for i in range(40)] + [_mutant("drivers/codec/small.py", 0)]
    chosen = mutate.per_file_sample(mutants, 2, seed=3)
    assert [m.path for m in chosen] == ["drivers/codec/big.py"] * 2 + ["drivers/codec/small.py"]
    assert chosen == mutate.per_file_sample(list(reversed(mutants)), 2, seed=3)  # the seed decides, not the order
    seeds = {tuple(m.index for m in mutate.per_file_sample(mutants, 2, seed=s)) for s in range(10)}
    assert len(seeds) > 1  # another seed, another draw


def test_a_constant_is_run_against_the_tests_of_its_package_and_a_statement_against_its_own() -> None:
    guard = next(g for g in mutate.GUARDS if g.name == "drivers")
    lines = {
        "drivers/codec/display.py": {"10": ["tests/drivers/test_a.py::t_display"]},
        "drivers/codec/protocol.py": {"5": ["tests/drivers/test_docs.py::t_decode"]},
        "drivers/devices/link.py": {"7": ["tests/drivers/test_link.py::t_link"]},
        "drivers/codec/sub/deep.py": {"3": ["tests/drivers/test_deep.py::t_deep"]},
    }
    cmap = mutate.CoverageMap(lines, {t: 1.0 for by_line in lines.values() for ts in by_line.values() for t in ts})
    constant = _mutant("drivers/codec/display.py", 0, line=2, in_function=False)
    assert set(cmap.tests_for(constant, guard)) == {"tests/drivers/test_a.py::t_display",
                                                    "tests/drivers/test_docs.py::t_decode"}
    statement = _mutant("drivers/codec/display.py", 1, line=10)
    assert cmap.tests_for(statement, guard) == ["tests/drivers/test_a.py::t_display"]
    unrun = _mutant("drivers/codec/display.py", 2, line=11)
    assert cmap.tests_for(unrun, guard) == []


def test_a_function_run_at_import_is_run_against_the_tests_of_its_package_too() -> None:
    """A table of examples built by a function called at import: one test calls the function
    again, but every reader of the table (the protocol documents' test) must see its mutants."""
    guard = next(g for g in mutate.GUARDS if g.name == "drivers")
    lines = {
        "drivers/codec/examples.py": {"30": ["", "tests/drivers/test_guard.py::t_calls_it"],
                                      "40": ["tests/drivers/test_guard.py::t_calls_it"]},
        "drivers/codec/protocol.py": {"5": ["tests/drivers/test_docs.py::t_decode"]},
    }
    cmap = mutate.CoverageMap(lines, {t: 1.0 for by_line in lines.values() for ts in by_line.values() for t in ts
                                      if t})
    at_import = _mutant("drivers/codec/examples.py", 0, line=30)
    assert set(cmap.tests_for(at_import, guard)) == {"tests/drivers/test_guard.py::t_calls_it",
                                                     "tests/drivers/test_docs.py::t_decode"}
    only_in_a_test = _mutant("drivers/codec/examples.py", 1, line=40)
    assert cmap.tests_for(only_in_a_test, guard) == ["tests/drivers/test_guard.py::t_calls_it"]
