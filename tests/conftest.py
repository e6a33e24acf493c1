"""Test-wide settings.

Hypothesis runs derandomized by default, so the suite is deterministic: CI and a new clone
try the same examples every time, and a failure reproduces. To explore new examples while
developing, run with ``HYPOTHESIS_PROFILE=explore``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from station.held_lock import held

from .browser import launched_chromium
from .core_table import Table, tables_in

if TYPE_CHECKING:
    from .floor.helpers import Broker

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


#: Finished test runs whose temporary folders are kept (the newest; older ones are removed).
KEPT_RUNS = 3
#: The prefix of a run's folder in the system's temporary folder (``/tmp/dst-k3j4h2x9/``).
RUN_PREFIX = "dst-"
#: The end of the name of the file beside a run's folder that the run holds locked while it
#: lasts (``/tmp/dst-k3j4h2x9.lock``). Beside it, not in it: pytest empties the folder it is
#: given as its base (``--basetemp``) when it first makes a temporary path, which took a lock
#: file inside with it, and a second run then pruned the first's folder as finished.
RUN_LOCK = ".lock"
#: A folder this young with no lock file yet may be a run that is just starting.
STARTING_S = 600.0

_held_locks: list[int] = []  # the lock of this run's folder, held until the process ends


def lock_of(folder: Path) -> Path:
    """The lock file of the run folder ``folder``: beside it (see :data:`RUN_LOCK`)."""
    return folder.with_name(folder.name + RUN_LOCK)


def run_is_live(folder: Path) -> bool:
    """Whether a test run still uses ``folder``: its lock file is held (an ``flock``, which the
    kernel drops when the run's process ends, however it ends). A folder without a lock file is
    a run just starting, if young, or one from before runs locked their folders."""
    live = held(lock_of(folder))
    if live is None:
        try:
            return time.time() - folder.stat().st_mtime < STARTING_S
        except FileNotFoundError:
            return False
    return live


def prune_runs(root: Path, keep: int) -> list[Path]:
    """Remove the folders of finished runs in ``root`` but the newest ``keep``; the folder of a
    run still going is never touched (two checkouts, or a second copy of the suite, may run at
    once). Returns what was removed."""
    mine = [p for p in root.glob(f"{RUN_PREFIX}*") if p.is_dir() and p.stat().st_uid == os.getuid()]
    finished = sorted((p for p in mine if not run_is_live(p)), key=lambda p: p.stat().st_mtime)
    removed = finished[:max(0, len(finished) - keep)]
    for old in removed:
        shutil.rmtree(old, ignore_errors=True)
        lock_of(old).unlink(missing_ok=True)
    return removed


def new_run_folder(root: Path) -> Path:
    """A folder for this run, locked for as long as this process lives."""
    folder = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=root))
    fd = os.open(lock_of(folder), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _held_locks.append(fd)
    return folder


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Temporary folders under a short root, ``/tmp/dst-<random>/``.

    The stations under test put their control socket (``run/dealing-station/control-<id>.sock``),
    and the tests their sd_notify socket, in the test's temporary folder, and a Unix socket's
    path may not exceed 107 bytes. pytest's own root (``/tmp/pytest-of-<user>/pytest-<n>/``),
    plus a worker's folder when the suite runs on several CPUs (``popen-gw0/``) and a test's
    name, leaves too little: the station would refuse its configuration. Each run gets a
    folder of its own, locked while the run lasts (runs may overlap: two checkouts, or a second
    copy of the suite), and, as pytest does, the newest finished ones are kept for a look after
    a failure. ``--basetemp`` still chooses another; xdist gives its workers theirs inside this
    one.
    """
    if config.option.basetemp or hasattr(config, "workerinput"):
        return
    root = Path(tempfile.gettempdir())
    prune_runs(root, KEPT_RUNS - 1)
    config.option.basetemp = str(new_run_folder(root))


# --- the e2e marker: tests that start processes -----------------------------------------------
#
# ``pytest -m "not e2e"`` is the fast inner loop: every test that starts a process (a station,
# a simulator, a broker, a browser, a command) is marked ``e2e``, by module (``pytestmark``)
# or by test, and the browser tests by their ``browser`` mark. So that the mark stays true, a
# test not marked that starts a process anyway fails, naming how (a subprocess, a fork or a
# multiprocessing spawn).


class UnmarkedProcess(AssertionError):
    """A test without the ``e2e`` mark started a process."""


_unmarked_test: list[str] = []  # the node id of the unmarked test running now, if any


def _refusing(how: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if _unmarked_test:
            raise UnmarkedProcess(f"{_unmarked_test[0]} starts a process ({how}) but is not marked e2e: "
                                  "add `pytestmark = pytest.mark.e2e` to its module, or @pytest.mark.e2e")
        return original(*args, **kwargs)

    return guarded


def _guard_process_starts() -> None:
    import multiprocessing.util
    import subprocess

    subprocess.Popen._execute_child = _refusing(  # type: ignore[attr-defined]  # a private method, patched
        "subprocess", subprocess.Popen._execute_child)  # type: ignore[attr-defined]
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            setattr(os, name, _refusing(f"os.{name}", getattr(os, name)))
    multiprocessing.util.spawnv_passfds = _refusing("multiprocessing", multiprocessing.util.spawnv_passfds)


_guard_process_starts()


#: Marks whose tests run only when the ``-m`` expression names them (the default options say
#: ``-m 'not soak and not deb'``; a ``-m`` of one's own replaces that, and ``-m "not e2e"``
#: must not bring in the soak runs or the Debian package's install and purge).
ONLY_WHEN_NAMED = ("soak", "deb")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: absent under -p no:xdist (tools/mutate.py)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the CPUs. A good third of the suite's time its tests
    wait (on pseudo-terminals, stations starting, a browser): with one worker per CPU the CPUs
    idle that long (measured on two CPUs: 588 s with two workers, 486 s with three)."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.e2e)  # a browser is a process
    expression = config.option.markexpr or ""
    unnamed = [mark for mark in ONLY_WHEN_NAMED if mark not in expression]
    left_out = [item for item in items if any(item.get_closest_marker(mark) for mark in unnamed)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in left_out]
    # The longest test first (``long``: the soak's two minutes): started late, it would be all a
    # worker does at the end while the others wait; started first, the rest of the suite is
    # shared out around it.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    unmarked = item.get_closest_marker("e2e") is None
    if unmarked:
        _unmarked_test.append(item.nodeid)
    try:
        yield
    finally:
        if unmarked:
            _unmarked_test.clear()


# --- fixtures shared by several folders -------------------------------------------------------


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A real mosquitto of the test's own, with persistence, on a free local port (see
    tests/floor/helpers.py; the test is skipped where Debian's mosquitto is not installed)."""
    from .floor.helpers import broker_in

    with broker_in(tmp_path / "broker") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one per module of browser tests (tests/browser.py)."""
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def table_kind() -> type[Table]:
    """The kind of table ``make_table`` makes: a folder's conftest.py may name its own."""
    return Table


@pytest.fixture
def make_table(tmp_path: Path, table_kind: type[Table]) -> Iterator[Callable[..., Table]]:
    """Tables of ``table_kind`` on the real core loop, their journals in the test's folder,
    each closed after the test (tests/core_table.py)."""
    yield from tables_in(tmp_path, table_kind)
