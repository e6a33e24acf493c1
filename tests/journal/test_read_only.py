"""An auditor's evidence copy: a journal in a read-only folder, read without writing a byte.

The readers (``journal verify``, ``export``, ``recall``) run as a real subprocess. Root reads
and writes whatever the modes say, so as root the commands run as the unprivileged user
``nobody`` (through ``setpriv``); otherwise the read-only modes alone are enough.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.journal import Journal
from station.journal.store import SCHEMA_VERSION, JournalError, JournalReader

from ..as_nobody import AS_NOBODY, skip_unless_nobody_can_run

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def _as_reader(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "station", *args]
    if os.geteuid() == 0:  # as root the read-only modes do not bind
        skip_unless_nobody_can_run()
        command = [*AS_NOBODY, *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})


@pytest.fixture
def evidence() -> Iterator[Path]:
    """A folder any user may enter (pytest's own are private to their owner), made
    read-only with its files by the test."""
    top = Path(tempfile.mkdtemp(prefix="station-evidence-"))
    top.chmod(0o755)
    folder = top / "evidence"
    folder.mkdir(mode=0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        shutil.rmtree(top)


def _seal(folder: Path) -> set[str]:
    for item in folder.iterdir():
        item.chmod(0o444)
    folder.chmod(0o555)
    return {p.name for p in folder.iterdir()}


def test_a_clean_copy_in_a_read_only_folder_verifies_exports_and_recalls(evidence: Path) -> None:
    path = evidence / "journal.sqlite3"
    with Journal(path) as journal:
        journal.append_many([("Note", {"n": n}) for n in range(12)])
    (evidence / "journal.sqlite3.lock").unlink()  # an auditor receives the journal alone
    before = _seal(evidence)
    verified = _as_reader("journal", "verify", "--journal", str(path))
    assert verified.returncode == 0, verified.stderr
    assert "intact, 12 records" in verified.stdout
    exported = _as_reader("journal", "export", "--journal", str(path))
    assert exported.returncode == 0, exported.stderr
    assert [json.loads(line)["payload"]["n"] for line in exported.stdout.splitlines()] == list(range(12))
    assert {p.name for p in evidence.iterdir()} == before  # nothing was written beside it


def test_records_still_in_the_write_ahead_log_are_read_too(evidence: Path, tmp_path: Path) -> None:
    """A copy taken while the station ran holds its last records in the -wal file: a reader
    that opened the main file alone (immutable) would miss them."""
    live = tmp_path / "live.sqlite3"
    writer = Journal(live)
    try:
        writer.append_many([("Note", {"n": n}) for n in range(30)])
        assert Path(f"{live}-wal").stat().st_size > 0
        shutil.copyfile(live, evidence / "journal.sqlite3")
        shutil.copyfile(f"{live}-wal", evidence / "journal.sqlite3-wal")
    finally:
        writer.close()
    before = _seal(evidence)
    verified = _as_reader("journal", "verify", "--journal", str(evidence / "journal.sqlite3"))
    assert verified.returncode == 0, verified.stderr
    assert "intact, 30 records" in verified.stdout
    assert {p.name for p in evidence.iterdir()} == before


def test_a_newer_schema_is_named_without_advice_to_migrate(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        journal.append("Note", {})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(JournalError) as raised:
        JournalReader(path)
    message = str(raised.value)
    assert f"schema version 99, newer than this station reads ({SCHEMA_VERSION})" in message
    assert "migrate" not in message
    result = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--journal", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_journal_behind_a_folder_the_reader_may_not_enter_is_one_line(evidence: Path) -> None:
    private = evidence / "private"
    private.mkdir(mode=0o700)
    with Journal(private / "journal.sqlite3") as journal:
        journal.append("Note", {})
    result = _as_reader("journal", "verify", "--journal", str(private / "journal.sqlite3"))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert "cannot read journal" in result.stderr and "Permission denied" in result.stderr
