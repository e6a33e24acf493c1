"""The cursor file through its public functions (issue 40, the floor guard): a cursor that
cannot be read is the start and is left where it is; one this code would never write is the
start and is set aside; the start itself is a cursor like any other; a cursor is made durable
(its file and its folder synced) unless asked not to be; a write that fails says so and
leaves nothing behind."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from station.floor.cursor import cursor_path, load_cursor, store_cursor
from station.floor.derive import FeedPosition


def _aside(path: Path) -> Path:
    return path.with_name(path.name + ".unusable")


def test_a_cursor_that_cannot_be_read_is_the_start_and_stays_where_it_is(tmp_path: Path) -> None:
    """A file the station cannot open (here a folder where the file should be) is no reason
    to set anything aside: the feed starts over, and the log says why in words."""
    path = cursor_path(tmp_path / "journal.sqlite3")
    path.mkdir()
    with capture_logs() as logs:
        assert load_cursor(path, "aaaa") == FeedPosition()
    assert path.is_dir() and not _aside(path).exists()
    warned = [entry for entry in logs if entry["event"] == "floor_cursor_unreadable"]
    assert [entry["error"] for entry in warned] == [os.strerror(errno.EISDIR)]  # "Is a directory", not the whole repr


def test_a_cursor_naming_no_kind_of_message_is_set_aside(tmp_path: Path) -> None:
    path = cursor_path(tmp_path / "journal.sqlite3")
    path.write_text(json.dumps({"journal_id": "aaaa", "seq": 5}))
    assert load_cursor(path, "aaaa") == FeedPosition()
    assert not path.exists() and _aside(path).exists()


def test_the_start_is_a_cursor_like_any_other(tmp_path: Path) -> None:
    """A cursor at record 0 (nothing acknowledged yet) is read back, not taken for a damaged
    one: the file stays."""
    path = cursor_path(tmp_path / "journal.sqlite3")
    store_cursor(path, "aaaa", FeedPosition(), fsync=False)
    with capture_logs() as logs:
        assert load_cursor(path, "aaaa") == FeedPosition()
    assert path.exists() and not _aside(path).exists()
    assert not [entry for entry in logs if entry["event"] == "floor_cursor_set_aside"]


@pytest.mark.parametrize(("numbers", "usable"), [
    ({"seq": -1, "round": {"n": 0, "prev": 0}}, False),
    ({"seq": 3, "round": {"n": -1, "prev": 0}}, False),
    ({"seq": 3, "round": {"n": 1, "prev": -1}}, False),
    ({"seq": 3, "round": {"n": 1, "prev": 3}}, True),  # the last round was record 3 itself
    ({"seq": 3, "round": {"n": 1, "prev": 4}}, False),
    ({"seq": 3, "round": {"n": 0, "prev": 0}}, True),
])
def test_a_cursor_with_impossible_numbers_is_set_aside(tmp_path: Path, numbers: dict[str, object],
                                                       usable: bool) -> None:
    path = cursor_path(tmp_path / "journal.sqlite3")
    path.write_text(json.dumps({"journal_id": "aaaa", **numbers}))
    loaded = load_cursor(path, "aaaa")
    assert path.exists() is usable and _aside(path).exists() is not usable
    assert (loaded.seq == 3) is usable


def test_a_cursor_is_made_durable_unless_asked_not_to_be(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The outbox stores with the default: the file's bytes and the folder's new entry are
    both synced before it counts the cursor as stored (a power cut keeps the old or the new)."""
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    path = cursor_path(tmp_path / "journal.sqlite3")
    store_cursor(path, "aaaa", FeedPosition(7))
    assert len(synced) == 2  # the file, then its folder
    synced.clear()
    store_cursor(path, "aaaa", FeedPosition(8), fsync=False)
    assert synced == []
    assert load_cursor(path, "aaaa").seq == 8


def test_a_cursor_that_cannot_be_written_raises_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """The outbox counts a cursor as stored only when ``store_cursor`` returns: a write that
    fails (here a folder in the file's place) must raise, the temporary file gone."""
    path = cursor_path(tmp_path / "journal.sqlite3")
    path.mkdir()
    (path / "in the way").write_text("")
    with pytest.raises(OSError):
        store_cursor(path, "aaaa", FeedPosition(7), fsync=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
