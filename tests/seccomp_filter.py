"""A systemd unit's system call filter, applied outside systemd (no systemd runs as PID 1 here).

:func:`unit_filter` reads a unit's ``SystemCallFilter=`` lines in order, expands their groups
with ``systemd-analyze syscall-filter`` exactly as this system's systemd knows them, and
applies them the way systemd does: the first line an allow-list starting from ``@default``,
each later line adding to it or, with ``~``, taking away. :func:`filtered` is the command that
runs a program under the result: Debian's Python loads it with libseccomp (Debian's
``python3-seccomp``) and ``exec``\\s the program, so the filter holds for it and for every
process it starts. Its default action is systemd's: the whole process is killed (SIGSYS), or
with ``SystemCallErrorNumber=EPERM`` the call fails with EPERM.
"""

from __future__ import annotations

import errno
import functools
import json
import shutil
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

DEBIAN_PYTHON = Path("/usr/bin/python3")

#: Run by Debian's Python: load the filter (a JSON file: allowed calls, default action), then exec.
LAUNCHER = textwrap.dedent(
    """
    import json, os, sys
    import seccomp
    spec = json.load(open(sys.argv[1]))
    default = seccomp.KILL_PROCESS if spec["errno"] is None else seccomp.ERRNO(spec["errno"])
    fltr = seccomp.SyscallFilter(defaction=default)
    for name in spec["allowed"]:
        try:
            fltr.add_rule(seccomp.ALLOW, name)
        except (RuntimeError, ValueError, OSError):
            pass  # a call this architecture does not have (systemd skips those too)
    fltr.load()
    os.execv(sys.argv[2], sys.argv[2:])
    """
)


@functools.cache
def has_debian_seccomp() -> bool:
    if not DEBIAN_PYTHON.exists():
        return False
    probe = subprocess.run([str(DEBIAN_PYTHON), "-c", "import seccomp"], capture_output=True, timeout=30)
    return probe.returncode == 0


NEEDS_SECCOMP = [
    pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze (Debian's systemd)"),
    pytest.mark.skipif(not has_debian_seccomp(),
                       reason="needs Debian's python3-seccomp (`apt-get install python3-seccomp`, as .ci/run does)"),
]


def needs_seccomp(test: Callable[..., None]) -> Callable[..., None]:
    """Skip ``test``, saying why, where the filter cannot be applied."""
    for mark in NEEDS_SECCOMP:
        test = mark(test)
    return test


@functools.cache
def expand(name: str) -> frozenset[str]:
    """A system call, or every call of a ``@group`` (nested groups included)."""
    if not name.startswith("@"):
        return frozenset({name})
    shown = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True,
                           timeout=60, check=True)
    calls: set[str] = set()
    for line in shown.stdout.splitlines()[1:]:
        entry = line.strip()
        if entry and not entry.startswith("#") and entry != name:
            calls |= expand(entry)
    return frozenset(calls)


def filter_lines(unit: Path) -> list[str]:
    return [line.strip() for line in unit.read_text().splitlines() if line.startswith("SystemCallFilter=")]


def unit_filter(lines: list[str]) -> set[str]:
    """The calls a unit's ``SystemCallFilter=`` lines allow, applied in order as systemd does."""
    allowed: set[str] | None = None
    for line in lines:
        value = line.split("=", 1)[1].strip()
        deny = value.startswith("~")
        if allowed is None:
            assert not deny, "the unit's filter starts with an allow-list"
            allowed = set(expand("@default"))
        for name in value.lstrip("~").split():
            allowed = allowed - expand(name) if deny else allowed | expand(name)
    assert allowed is not None, "the unit has no SystemCallFilter="
    return allowed


def error_number(unit: Path) -> int | None:
    """The unit's ``SystemCallErrorNumber=`` (None: a forbidden call kills the process)."""
    for line in unit.read_text().splitlines():
        if line.startswith("SystemCallErrorNumber="):
            return int(getattr(errno, line.split("=", 1)[1].strip()))
    return None


def filtered(folder: Path, allowed: set[str], command: list[str], errno_value: int | None = None) -> list[str]:
    """``command`` run under a filter allowing ``allowed`` (files for it are written in ``folder``)."""
    spec = folder / "seccomp-filter.json"
    spec.write_text(json.dumps({"allowed": sorted(allowed), "errno": errno_value}))
    launcher = folder / "seccomp-launcher.py"
    launcher.write_text(LAUNCHER)
    return [str(DEBIAN_PYTHON), str(launcher), str(spec), *command]
