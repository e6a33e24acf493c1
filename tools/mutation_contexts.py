"""A pytest plugin for ``tools/mutate.py``: which test runs which line of the code, and how long
each test takes.

A mutant can change the outcome only of tests that run the line it changed, so
``tools/mutate.py`` runs each mutant against those tests alone, fastest first, instead of the
whole folder that guards its module: minutes instead of hours for the core's tree. This plugin
records that map once, on the unmutated code, with coverage.py: each test is a *context*
(``Coverage.switch_context``, as pytest-cov's ``--cov-context=test`` does) and every line
executed while it runs is noted against it. Lines run outside any test (importing a module,
a class body) are noted against the empty context. The processes a test starts (a station,
``station demo``) are measured too, under the test's name (``mutation_site/sitecustomize.py``).

Loaded by ``tools/mutate.py`` only (``-p mutation_contexts`` with this folder on
``PYTHONPATH``, and ``MUTATION_CONTEXTS`` naming the JSON file to write): the suite never loads
it. Coverage starts when the plugin is imported, before any module under test is, so the
import of every module is seen too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest

OUT = os.environ.get("MUTATION_CONTEXTS", "")
#: The folders measured, separated as PATH is: the station's and the drivers' (both are mutated).
SOURCES = os.environ.get("MUTATION_CONTEXTS_SOURCE", "station").split(os.pathsep)

_cov: coverage.Coverage | None = None
if OUT:
    _cov = coverage.Coverage(data_file=f"{OUT}.coverage", source=SOURCES, branch=False, config_file=False)
    _cov.start()
    # The processes the tests start measure themselves (see mutation_site/sitecustomize.py).
    _site = str(Path(__file__).resolve().parent / "mutation_site")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_site, os.environ.get("PYTHONPATH", "")) if p)

_durations: dict[str, float] = {}
_failed: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Every line run during a test's set-up, call and tear-down is that test's."""
    if _cov is not None:
        _cov.switch_context(item.nodeid)
        os.environ["MUTATION_CONTEXT"] = item.nodeid
    yield
    if _cov is not None:
        _cov.switch_context("")
        os.environ.pop("MUTATION_CONTEXT", None)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if report.failed and report.nodeid not in _failed:
        _failed.append(report.nodeid)


def _read(path: Path) -> coverage.CoverageData:
    data = coverage.CoverageData(basename=str(path))
    data.read()
    return data


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _cov is None:
        return
    _cov.stop()
    _cov.save()
    root = Path.cwd()
    found: dict[str, dict[int, set[str]]] = {}
    children = sorted(Path(OUT).parent.glob(Path(OUT).name + ".coverage.*"))
    for data in [_cov.get_data(), *(_read(path) for path in children)]:
        for name in data.measured_files():
            path = Path(name)
            rel = str(path.relative_to(root)) if path.is_relative_to(root) else name
            mine = found.setdefault(rel, {})
            for line, contexts in data.contexts_by_lineno(name).items():
                mine.setdefault(line, set()).update(contexts)
    lines = {rel: {line: sorted(c) for line, c in by_line.items()} for rel, by_line in found.items()}
    Path(OUT).write_text(json.dumps({"lines": lines, "durations": _durations, "failed": _failed,
                                     "exitstatus": int(exitstatus)}))
