"""Running a command of this checkout as the unprivileged user ``nobody`` (from root, through
``setpriv``): root reads and writes whatever the modes say, so a test of what an ordinary
user may not do, or of what the service's own user does, runs the command as ``nobody``.

That only works when ``nobody`` can reach this checkout and its Python: a clone in a folder
only its owner may enter (``mktemp -d`` makes them 0700) fails with "No module named
station", which says nothing of the test. :func:`skip_unless_nobody_can_run` tries it once
and skips with the reason (the folder that is closed) instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETPRIV = shutil.which("setpriv")
#: What goes before a command to run it as ``nobody`` (no groups of root's kept).
AS_NOBODY = [SETPRIV or "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def closed_folder(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that other users may not enter, if any."""
    for folder in [*reversed(path.parents), path]:
        try:
            mode = folder.stat().st_mode
        except OSError:
            return folder
        if folder.is_dir() and not mode & stat.S_IXOTH:
            return folder
    return None


@functools.cache
def why_nobody_cannot_run(root: Path = ROOT) -> str | None:
    """Why ``nobody`` cannot run this checkout's ``station`` (None when it can)."""
    if SETPRIV is None:
        return "needs setpriv (util-linux) to run a command as nobody"
    probe = subprocess.run([*AS_NOBODY, sys.executable, "-c", "import station; print(station.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd="/",
                           env={**os.environ, "PYTHONPATH": str(root)})
    found = probe.stdout.strip()
    if probe.returncode == 0 and Path(found).resolve().is_relative_to(root.resolve()):
        return None
    closed = closed_folder(root) or closed_folder(Path(sys.executable))
    where = f"{closed} (mode {stat.S_IMODE(closed.stat().st_mode):04o}) is closed to other users" if closed else (
        f"it imports {found or 'nothing'}: {probe.stderr.strip().splitlines()[-1:] or ''}")
    return f"the user nobody cannot run this checkout ({root}): {where}"


def skip_unless_nobody_can_run() -> None:
    """Skip the calling test, saying why, when ``nobody`` cannot run this checkout."""
    reason = why_nobody_cannot_run()
    if reason is not None:
        pytest.skip(reason)
