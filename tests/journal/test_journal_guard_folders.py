"""A journal where nothing may be written (issue 40, the journal guard), through
``JournalReader`` and ``Journal`` in this process: an evidence copy in a sealed folder is read
in place when it has no write-ahead log left (no copy of it made anywhere), from a private
copy when its last records are still in the log (the copy gone when the reader closes), and
refused, naming the reason, when that copy cannot be made or read; the writer refuses such a
folder or file before SQLite is asked anything.

Root writes whatever the modes say, so as root the folder and file are sealed with the
immutable attribute (``chattr +i``), which binds root too; otherwise their modes seal them.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from station.journal import Journal, JournalError, JournalReader

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_IMMUTABLE_FL = 0x10


def _immutable(path: Path, on: bool) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("i", 0)))[0]
        flags = flags | FS_IMMUTABLE_FL if on else flags & ~FS_IMMUTABLE_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
    finally:
        os.close(fd)


Seal = Callable[[Path], None]


@pytest.fixture
def seal() -> Iterator[Seal]:
    """Seal a file or folder so that not even this user may write it; undone after the test."""
    sealed: list[tuple[Path, int]] = []

    def close(path: Path) -> None:
        if os.geteuid() == 0:
            try:
                _immutable(path, True)
            except OSError as exc:
                pytest.skip(f"root cannot be kept from writing {path} here (the immutable attribute: {exc.strerror})")
            sealed.append((path, -1))
        else:
            sealed.append((path, path.stat().st_mode))
            path.chmod(0o555 if path.is_dir() else 0o444)

    yield close
    for path, mode in reversed(sealed):
        if mode == -1:
            _immutable(path, False)
        else:
            path.chmod(mode)


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the reader's private copies go (the system's temporary folder, for the test)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _live(path: Path, records: int) -> Journal:
    """A station's journal, open, its last records in the write-ahead log."""
    journal = Journal(path)
    journal.append_many([("Note", {"n": n}) for n in range(records)])
    assert Path(f"{path}-wal").stat().st_size > 0
    return journal


def _copy_with_log(live: Path, folder: Path) -> Path:
    copy = folder / "journal.sqlite3"
    shutil.copyfile(live, copy)
    shutil.copyfile(f"{live}-wal", f"{copy}-wal")
    return copy


def _folder(tmp_path: Path) -> Path:
    """The evidence folder a copy is put in, to be sealed."""
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    return evidence


def _evidence(tmp_path: Path) -> Path:
    """A folder holding a copy of a closed journal of 12 records (its log checkpointed away)."""
    evidence = _folder(tmp_path)
    with Journal(tmp_path / "live.sqlite3") as journal:
        journal.append_many([("Note", {"n": n}) for n in range(12)])
    shutil.copyfile(tmp_path / "live.sqlite3", evidence / "journal.sqlite3")
    return evidence


def test_a_sealed_copy_without_a_log_is_read_in_place(tmp_path: Path, seal: Seal, private_tmp: Path) -> None:
    evidence = _evidence(tmp_path)
    seal(evidence)
    with JournalReader(evidence / "journal.sqlite3") as reader:
        assert reader.count() == 12
        assert list(private_tmp.iterdir()) == []  # no copy of it made
    assert sorted(p.name for p in evidence.iterdir()) == ["journal.sqlite3"]


def test_a_sealed_copy_with_an_empty_log_is_read_in_place(tmp_path: Path, seal: Seal, private_tmp: Path) -> None:
    evidence = _evidence(tmp_path)
    (evidence / "journal.sqlite3-wal").write_bytes(b"")
    seal(evidence)
    with JournalReader(evidence / "journal.sqlite3") as reader:
        assert reader.count() == 12
        assert list(private_tmp.iterdir()) == []


def test_a_sealed_copy_with_records_in_its_log_is_read_from_a_private_copy(tmp_path: Path, seal: Seal,
                                                                          private_tmp: Path) -> None:
    evidence, live = _folder(tmp_path), _live(tmp_path / "live.sqlite3", 30)
    try:
        copy = _copy_with_log(tmp_path / "live.sqlite3", evidence)
    finally:
        live.close()
    seal(evidence)
    with JournalReader(copy) as reader:
        assert reader.count() == 30  # the records still in the log too
        copies = list(private_tmp.iterdir())
        assert len(copies) == 1 and copies[0].name.startswith("station-journal-")
        assert (copies[0] / "journal.sqlite3").exists()
    assert list(private_tmp.iterdir()) == []  # gone with the reader
    assert sorted(p.name for p in evidence.iterdir()) == ["journal.sqlite3", "journal.sqlite3-wal"]


def test_a_sealed_copy_of_a_newer_layout_is_refused_and_its_private_copy_removed(tmp_path: Path, seal: Seal,
                                                                                private_tmp: Path) -> None:
    evidence, live = _folder(tmp_path), _live(tmp_path / "live.sqlite3", 5)
    try:
        other = sqlite3.connect(tmp_path / "live.sqlite3")
        other.execute("UPDATE schema_version SET version = 99")  # in the log, like the records
        other.commit()
        other.close()
        copy = _copy_with_log(tmp_path / "live.sqlite3", evidence)
    finally:
        live.close()
    seal(evidence)
    with pytest.raises(JournalError) as raised:
        JournalReader(copy)
    assert str(raised.value).startswith(f"cannot read journal {copy}: journal ")
    assert "has schema version 99, newer than this station reads" in str(raised.value)
    assert list(private_tmp.iterdir()) == []


def test_a_sealed_copy_whose_log_cannot_be_copied_is_refused(tmp_path: Path, seal: Seal, private_tmp: Path) -> None:
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    with Journal(tmp_path / "live.sqlite3") as journal:
        journal.append("Note", {})
    shutil.copyfile(tmp_path / "live.sqlite3", evidence / "journal.sqlite3")
    (evidence / "journal.sqlite3-wal").mkdir()  # not a file that can be copied
    seal(evidence)
    with pytest.raises(JournalError) as raised:
        JournalReader(evidence / "journal.sqlite3")
    assert str(raised.value) == f"cannot read journal {evidence / 'journal.sqlite3'}: copying it failed: Is a directory"
    assert list(private_tmp.iterdir()) == []


def test_the_writer_refuses_a_sealed_folder_naming_it(tmp_path: Path, seal: Seal) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    seal(folder)
    with pytest.raises(JournalError) as raised:
        Journal(folder / "journal.sqlite3")
    assert str(raised.value) == f"cannot write in the journal's folder {folder}: permission denied"


def test_the_writer_refuses_a_sealed_file_naming_it(tmp_path: Path, seal: Seal) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    seal(path)
    with pytest.raises(JournalError) as raised:
        Journal(path)
    assert str(raised.value) == f"cannot write journal {path}: permission denied"
