"""Every reason a station cannot start is one line on stderr and a documented exit status.

Under systemd a traceback is a restart loop nobody can read; the unit stops restarting on
the statuses that mean "a person must change something" (docs/install.md lists them). Each
case runs the real ``station run`` (and ``station demo``) as a subprocess.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.cli.exits import NO_RESTART, Status
from station.journal import Journal

from ..as_nobody import AS_NOBODY, skip_unless_nobody_can_run
from ..waiting import wait_for_line

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def station(*args: str, env: dict[str, str] | None = None, as_nobody: bool = False,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "station", *args]
    if as_nobody:
        skip_unless_nobody_can_run()
        command = [*AS_NOBODY, *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def one_line(result: subprocess.CompletedProcess[str], command: str = "run") -> str:
    """The refusal: exactly one line on stderr (after the log lines), no traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("{")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"station {command}: "), lines[0]
    return lines[0]


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder any user may enter (for the cases run as ``nobody``)."""
    top = Path(tempfile.mkdtemp(prefix="station-startup-"))
    top.chmod(0o755)
    try:
        yield top
    finally:
        for folder in top.rglob("*"):
            if folder.is_dir():
                folder.chmod(0o755)
        shutil.rmtree(top)


def _foreign_database(folder: Path) -> Path:
    path = folder / "inventory.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE chips (colour TEXT)")
    return path


def _newer_schema(folder: Path) -> Path:
    path = folder / "newer.sqlite3"
    with Journal(path) as journal:
        journal.append("Note", {})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    return path


CASES = {
    "a text file": (lambda folder: ROOT / "README.md", Status.CONFIG, "is not a journal"),
    "a path under /proc": (lambda folder: Path("/proc/nope/j.sqlite3"), Status.CANT_CREATE,
                           "cannot create the journal's directory /proc/nope"),
    "a directory": (lambda folder: folder, Status.CONFIG, "is not a journal: it is not a regular file"),
    "a foreign SQLite file": (_foreign_database, Status.CONFIG, "an SQLite database but not a dealing-station journal"),
    "a newer schema": (_newer_schema, Status.CONFIG, "schema version 99, newer than this station"),
}


@pytest.mark.parametrize("command", ["run", "demo"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_journal_that_cannot_be_used_is_one_line(scratch: Path, case: str, command: str) -> None:
    make, status, text = CASES[case]
    journal = make(scratch)
    extra = ["--rounds", "1", "--fast"] if command == "demo" else []
    result = station(command, "--journal", str(journal), *extra,
                     env={"RUNTIME_DIRECTORY": str(scratch / "run")})
    line = one_line(result, command)
    assert result.returncode == status, result.stderr
    assert text in line


def test_an_unwritable_journal_folder_is_one_line(scratch: Path) -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("as root every folder is writable; needs setpriv to run as nobody")
    sealed = scratch / "sealed"
    sealed.mkdir()
    sealed.chmod(0o555)
    result = station("demo", "--rounds", "1", "--fast", "--journal", str(sealed / "journal.sqlite3"),
                     env={"HOME": str(scratch)}, as_nobody=os.geteuid() == 0)
    line = one_line(result, "demo")
    assert result.returncode == Status.CANT_CREATE, result.stderr
    assert str(sealed) in line


def test_a_web_port_already_in_use_is_one_line(scratch: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        config = scratch / "station.toml"
        config.write_text(f"[web]\nenabled = true\nport = {port}\n[dealer]\nsimulated = false\n")
        result = station("run", "-c", str(config), "--journal", str(scratch / "j.sqlite3"),
                         env={"RUNTIME_DIRECTORY": str(scratch / "run")})
    line = one_line(result)
    assert result.returncode == Status.UNAVAILABLE, result.stderr
    assert str(port) in line


def test_a_control_socket_path_too_long_for_the_kernel_is_one_line(scratch: Path) -> None:
    """A journal in a deep folder puts its socket beside it, or in the runtime folder: when even
    that is too long for a socket's address, the station says so and names the key, in --check
    too, rather than failing inside bind()."""
    deep = scratch / ("folder-of-a-deep-tree-" * 3) / "journals"
    deep.mkdir(parents=True)
    config = scratch / "station.toml"
    config.write_text("[dealer]\nsimulated = false\n")
    env = {"XDG_RUNTIME_DIR": str(deep), "RUNTIME_DIRECTORY": "", "STATION_CONTROL_SOCKET": ""}
    result = station("run", "-c", str(config), "--journal", str(deep / "journal.sqlite3"), env=env)
    line = one_line(result)
    assert result.returncode == Status.CONFIG, result.stderr
    assert "control.socket" in line and "a socket's path holds at most 107" in line, line
    checked = station("run", "-c", str(config), "--journal", str(deep / "journal.sqlite3"), "--check", env=env)
    assert checked.returncode != 0 and "control.socket" in checked.stdout + checked.stderr
    short = {**env, "STATION_CONTROL_SOCKET": str(scratch / "c.sock")}
    assert station("run", "-c", str(config), "--journal", str(deep / "journal.sqlite3"), "--check",
                   env=short).returncode == 0


def test_the_unit_does_not_restart_on_the_statuses_a_person_must_fix() -> None:
    unit = (ROOT / "systemd" / "dealing-station.service").read_text()
    prevent = [line for line in unit.splitlines() if line.startswith("RestartPreventExitStatus=")]
    assert prevent == [f"RestartPreventExitStatus={' '.join(str(int(s)) for s in NO_RESTART)}"]
    documented = (ROOT / "docs" / "install.md").read_text()
    for status in Status:
        assert f"| {int(status)} |" in documented, f"exit status {int(status)} is not in docs/install.md"


def _start(journal: Path, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("w") as out:
        return subprocess.Popen([sys.executable, "-m", "station", "run", "--journal", str(journal)],
                                stdout=out, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def _ready(log: Path, timeout: float = 30) -> None:
    wait_for_line(log, "station_ready", timeout)


def test_a_second_station_on_the_same_journal_is_refused_whatever_its_runtime_folder(scratch: Path) -> None:
    journal = scratch / "journal.sqlite3"
    first = _start(journal, {"RUNTIME_DIRECTORY": str(scratch / "run-a")}, scratch / "a.log")
    try:
        _ready(scratch / "a.log")
        second = station("run", "--journal", str(journal), env={"RUNTIME_DIRECTORY": str(scratch / "run-b")})
        line = one_line(second)
        assert second.returncode == Status.UNAVAILABLE
        assert f"journal {journal} is being written by process {first.pid}" in line
        assert first.poll() is None  # the first is undisturbed
    finally:
        first.terminate()
        assert first.wait(30) == 0


def test_two_stations_with_their_own_journals_run_side_by_side(scratch: Path) -> None:
    """Same user, same environment (no runtime folder of systemd's): the journal's lock, the
    holder file and the control socket are each the station's own."""
    env = {"XDG_RUNTIME_DIR": str(scratch / "xdg"), "XDG_STATE_HOME": str(scratch / "state")}
    stations = [_start(scratch / name / "journal.sqlite3", env, scratch / f"{name}.log") for name in ("a", "b")]
    try:
        for name in ("a", "b"):
            _ready(scratch / f"{name}.log")
        assert all(process.poll() is None for process in stations)
        assert (scratch / "a" / "journal.sqlite3.control.sock").exists()
        assert (scratch / "b" / "journal.sqlite3.control.sock").exists()
    finally:
        for process in stations:
            process.terminate()
        assert [process.wait(30) for process in stations] == [0, 0]
