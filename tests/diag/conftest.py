"""Shared set-up for the ``station diag`` tests: a private runtime directory (so no running
service on this machine can refuse or admit anything), configuration files that point at
simulators started in the test, and a child process that holds devices as the service does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.simulators import RunningSimulator, start_simulator

HOLDER_CHILD = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from station.service.holder import ServiceHolder
    holder = ServiceHolder(Path(sys.argv[1]), journal=Path(sys.argv[4]) if len(sys.argv) > 4 else None)
    holder.acquire(json.loads(sys.argv[2]))
    if sys.argv[3] == "live":
        holder.update(round_live=True, state="dealing")
    print("held", flush=True)
    sys.stdin.readline()
    """
)


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the service's holder lock would be: empty unless a test holds it."""
    directory = tmp_path / "runtime"
    directory.mkdir()
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(directory))
    monkeypatch.delenv("STATION_CONFIG", raising=False)
    return directory


@pytest.fixture
def sim() -> Iterator[Callable[..., RunningSimulator]]:
    """Start simulators by kind: ``sim('display')``; all stopped at the end."""
    started: list[RunningSimulator] = []

    def start(kind: str, **options: object) -> RunningSimulator:
        running = start_simulator(kind, ack_timeout=0.1, **options)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


class Holder:
    """A real ServiceHolder acquired in a child process, as the running service holds it."""

    def __init__(self, directory: Path, devices: dict[str, str], mode: str = "idle",
                 journal: Path | None = None) -> None:
        import json

        self.child = subprocess.Popen(
            [sys.executable, "-c", HOLDER_CHILD, str(directory), json.dumps(devices), mode,
             *([str(journal)] if journal is not None else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self.child.stdout is not None and self.child.stdout.readline().strip() == "held"

    def release(self) -> None:
        self.child.communicate("\n", timeout=10)


@pytest.fixture
def hold(runtime_dir: Path) -> Iterator[Callable[..., Holder]]:
    holders: list[Holder] = []

    def start(devices: dict[str, str], mode: str = "idle", journal: Path | None = None) -> Holder:
        holder = Holder(runtime_dir, devices, mode, journal)
        holders.append(holder)
        return holder

    yield start
    for holder in holders:
        holder.release()
