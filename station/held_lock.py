"""Whether a lock file is held by a live process: the test for leftovers of the dead.

A process that owns a folder (a simulated table, a test run) holds an ``flock`` on a file in
it for as long as it lives; the kernel drops the lock when the process ends, however it ends
(SIGKILL, a power cut). So a lock nobody holds marks a folder whose owner is gone, and the
folder can be removed without asking anyone.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def held(lock: Path) -> bool | None:
    """True while a live process holds ``lock``, False once none does, None when there is no
    such file. A file that cannot be opened counts as held: hands off what one cannot judge."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
