"""Test-wide settings.

Hypothesis runs derandomized by default, so the suite is deterministic: CI and a new clone
try the same examples every time, and a failure reproduces. To explore new examples while
developing, run with ``HYPOTHESIS_PROFILE=explore``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


#: Test runs whose temporary folders are kept (the newest; older ones are removed).
KEPT_RUNS = 3
#: The prefix of a run's folder in the system's temporary folder (``/tmp/dst-k3j4h2x9/``).
RUN_PREFIX = "dst-"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Temporary folders under a short root, ``/tmp/dst-<random>/``.

    The stations under test put their control socket (``run/dealing-station/control-<id>.sock``),
    and the tests their sd_notify socket, in the test's temporary folder, and a Unix socket's
    path may not exceed 107 bytes. pytest's own root (``/tmp/pytest-of-<user>/pytest-<n>/``),
    plus a worker's folder when the suite runs on several CPUs (``popen-gw0/``) and a test's
    name, leaves too little: the station would refuse its configuration. Each run gets a
    folder of its own (runs may overlap: two checkouts), and, as pytest does, the newest three
    are kept for a look after a failure. ``--basetemp`` still chooses another; xdist gives
    its workers theirs inside this one.
    """
    if config.option.basetemp or hasattr(config, "workerinput"):
        return
    root = Path(tempfile.gettempdir())
    mine = [p for p in root.glob(f"{RUN_PREFIX}*") if p.is_dir() and p.stat().st_uid == os.getuid()]
    mine.sort(key=lambda p: p.stat().st_mtime)
    for old in mine[:max(0, len(mine) - (KEPT_RUNS - 1))]:
        shutil.rmtree(old, ignore_errors=True)
    config.option.basetemp = tempfile.mkdtemp(prefix=RUN_PREFIX, dir=root)
