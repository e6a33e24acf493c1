"""Tests that run a command as ``nobody`` are skipped, saying why, when ``nobody`` cannot reach
the checkout (issue 24): a clone in a folder only root may enter (``mktemp -d`` makes 0700)
made them fail with "No module named station". Real ``setpriv`` and a real copy of the
package in such a folder."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from .as_nobody import ROOT, SETPRIV, closed_folder, why_nobody_cannot_run

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None,
                                reason="runs commands as nobody: needs root and setpriv")]


def test_a_checkout_in_a_folder_closed_to_others_is_a_reason_to_skip() -> None:
    top = Path(tempfile.mkdtemp(prefix="station-closed-"))  # 0700, as mktemp -d makes it
    try:
        checkout = top / "checkout"
        shutil.copytree(ROOT / "station", checkout / "station")
        assert closed_folder(checkout) == top
        reason = why_nobody_cannot_run(checkout)
        assert reason is not None and f"{top} (mode 0700) is closed to other users" in reason
    finally:
        shutil.rmtree(top)


def test_this_checkout_runs_as_nobody_when_nothing_on_its_way_is_closed() -> None:
    if closed_folder(ROOT) is not None:
        pytest.skip(f"this checkout itself sits in a closed folder: {closed_folder(ROOT)}")
    assert why_nobody_cannot_run() is None
