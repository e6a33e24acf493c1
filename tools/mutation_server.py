"""A warm pytest for ``tools/mutate.py``: the libraries the tests use are imported once, and
each mutant's tests run in a fork of this process.

Starting pytest and importing what the station uses (numpy, pydantic, transitions, structlog,
hypothesis) costs about a second of CPU, often more than the first failing test of a killed
mutant; on a machine shared by several test runs that is most of a mutation run. The server
imports all of it once (the station's own modules too, then forgets them), and for each
request forks: the child forgets the station's and the tests' modules again, so the mutated
module, and every module that imports it, is imported afresh from the copy's files, and runs
``pytest.main``. Nothing under test runs in the server itself.

Protocol, one JSON object a line: ``{"args": [...]}`` on standard input; the server answers
``{"pid": N}`` when the child starts (``tools/mutate.py`` ends its process group on a timeout)
and ``{"status": S, "failed": ID}`` when it ends (pytest's exit status, -1 when a signal ended
it; the id of the first test that failed, or ""). End of input ends the server. Run by
``tools/mutate.py`` only, in the copy it works in.
"""

from __future__ import annotations

import json
import os
import sys

OWN = ("station", "drivers", "tests")


def _forget_own_modules() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in OWN:
            del sys.modules[name]


def _warm() -> None:
    import pytest  # noqa: F401


    _forget_own_modules()


class _FirstFailure:
    """Notes the id of the first test that fails (``tools/mutate.py`` tries it first on the
    next mutants of the same module: the test that kills one mutant often kills its neighbours)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def pytest_runtest_logreport(self, report: object) -> None:
        if getattr(report, "failed", False) and not os.path.exists(self.path):
            with open(self.path, "w") as f:
                f.write(str(getattr(report, "nodeid", "")))


def _child(args: list[str], failed: str) -> None:
    os.setsid()  # its own process group, which a timeout ends whole
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    _forget_own_modules()
    import pytest

    try:
        status = int(pytest.main(args, plugins=[_FirstFailure(failed)]))
    except BaseException:  # a mutant that breaks pytest itself is caught by the tests: killed
        status = 3
    os._exit(status)


def main() -> None:
    _warm()
    out = sys.stdout
    failed = os.path.abspath("first-failure.txt")
    for line in sys.stdin:
        args = json.loads(line)["args"]
        if os.path.exists(failed):
            os.unlink(failed)
        pid = os.fork()
        if pid == 0:
            _child(args, failed)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        first = ""
        if os.path.exists(failed):
            with open(failed) as f:
                first = f.read()
        out.write(json.dumps({"status": code if code >= 0 else -1, "failed": first}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
