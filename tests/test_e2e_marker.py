"""The ``e2e`` mark stays true (issue 24): this test is not marked, so each way of starting a
process is refused here, before any process starts; ``pytest -m "not e2e"`` is then a loop
that starts none. Browser tests count as e2e by their ``browser`` mark; the soak and
Debian-package tests stay out unless ``-m`` names them."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from .conftest import UnmarkedProcess


def test_an_unmarked_test_cannot_start_a_process() -> None:
    with pytest.raises(UnmarkedProcess, match=r"starts a process \(subprocess\) but is not marked e2e"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    with pytest.raises(UnmarkedProcess, match=r"\(os.fork\)"):
        os.fork()
    with pytest.raises(UnmarkedProcess, match=r"\(multiprocessing\)"):
        multiprocessing.get_context("spawn").Process(target=print).start()


def test_browser_tests_count_as_e2e(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("e2e") is None  # this one is not
    browser_items = [item for item in request.session.items if item.get_closest_marker("browser")]
    if not browser_items:
        pytest.skip("no browser test was collected with this one (run it with the suite)")
    assert all(item.get_closest_marker("e2e") for item in browser_items)
