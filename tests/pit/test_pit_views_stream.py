"""The pit's views over real HTTP: the real ``station pit`` on a real mosquitto, 30 tables in
three pits replayed from a real station's feed (tests/pit/feeds.py), three viewers reading
the event stream as screens do (tests/pit/helpers.py's ``Pictures``): every table, the floor
and pit A. Each is whole from its first event and then kept whole by deltas alone (no gap),
the pit's viewer never receives another pit's table and receives fewer bytes than the viewer of
every table, and the floor's viewer holds one summary per pit and every table in its
directory, with the rounds the tables' tiles show. An address that names no pit a person could
have (a name longer than ``[floor] pit`` allows) is refused in one line."""

from __future__ import annotations

import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ..floor.helpers import Broker
from ..waiting import wait_until
from .helpers import Pictures, PitProcess, pit_config, start_replayer

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def test_each_viewer_gets_its_view_whole_then_only_its_changes(
        broker: Broker, recorded_journal: Path, tmp_path: Path, processes: list[subprocess.Popen[Any]]) -> None:
    page = PitProcess(pit_config(tmp_path / "pit.toml", broker.url), tmp_path / "pit.log").start()
    readers = {view: Pictures(page.url, view) for view in ("all", "floor", "pit:A")}
    try:
        processes.append(start_replayer(recorded_journal, broker.url, first=1, tables=30, round_s=2,
                                        log=tmp_path / "replay.log"))
        every, floor, pit_a = readers["all"], readers["floor"], readers["pit:A"]

        def settled_rounds() -> int:
            with every.lock:
                return sum(1 for t in every.model.tables.values() if t["last"] and t["last"]["round_id"])

        wait_until(lambda: len(every.model.tables) == 30 and settled_rounds() == 30, 60,
                   "a result on each of the 30 tables", poll=0.1)
        wait_until(lambda: len(pit_a.seen) >= 30, 60, "pit A's tables dealing on", poll=0.1)
        with pit_a.lock:
            assert {t["pit"] for t in pit_a.model.tables.values()} == {"A"}
            assert len(pit_a.model.tables) == 10 and pit_a.model.head["counts"]["tables"] == 10
            assert {key[0] for key in pit_a.seen} <= set(pit_a.model.tables)
        with floor.lock:
            assert [p["pit"] for p in floor.model.pits.values()] == ["A", "B", "C"]
            assert [p["tables"] for p in floor.model.pits.values()] == [10, 10, 10]
            assert len(floor.model.directory) == 30 and floor.model.head["pits"] == ["A", "B", "C"]
        for reader in readers.values():
            assert reader.gaps == 0 and reader.model.gaps == 0
        assert pit_a.bytes < every.bytes
        # What the floor's directory says of a table's last round is what its tile says.
        with every.lock, floor.lock:
            tiles = {t["table"]: t["last"]["round_id"] for t in every.model.tables.values() if t["last"]}
            rounds = {e["table"]: e["round"] for e in floor.model.directory.values()}
        same = sum(rounds[table] == round_id for table, round_id in tiles.items())
        assert same >= 25, f"{same} of 30 directory entries name the tile's round (a round may be between them)"
    finally:
        for reader in readers.values():
            reader.close()
        page.stop()


def test_a_pit_name_longer_than_a_pit_can_have_is_refused(broker: Broker, tmp_path: Path) -> None:
    page = PitProcess(pit_config(tmp_path / "pit.toml", broker.url), tmp_path / "pit.log").start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(page.url + "events?pit=" + "P" * 41, timeout=5)
        assert refused.value.code == 400
        assert refused.value.read() == b"a pit's name is at most 40 characters\n"
    finally:
        page.stop()
