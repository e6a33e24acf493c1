"""Faults injected from outside a running station into its simulated table, through the
table's fault door (``faults.sock`` in the table's folder), and what the station does about
them, read from its log as a soak reads it: a shoe unplugged and back, a board that reboots, a
board that loses its answers, and requests the door refuses while the table plays on.

One ``station run`` of the shipped default configuration (dealer at full speed) serves the
tests of this module in turn; each looks only at what the log says after its own fault.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.sim import faults
from station.sim.faults import ask

from ..waiting import wait_until
from .fault_table import EVENT_S, FaultTable, raw_lines, start_fault_table

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultTable]:
    running = start_fault_table(tmp_path_factory.mktemp("faults"))
    try:
        yield running
    finally:
        running.stop()


def _event(name: str, **fields: Any) -> Any:
    return lambda r: r.get("event") == name and all(r.get(k) == v for k, v in fields.items())


def test_the_door_is_in_the_tables_folder_for_its_owner_alone(table: FaultTable) -> None:
    assert sorted(p.name for p in table.folder.iterdir()) == ["display", "faults.sock", "shoe", "table.lock"]
    assert table.door_path.stat().st_mode & 0o777 == 0o600
    reply = ask(table.door_path, {"fault": "list"})
    assert reply["ok"] is True and reply["devices"] == ["display", "shoe"], reply


def test_a_shoe_unplugged_for_a_second_is_lost_found_again_and_play_goes_on(tmp_path: Path) -> None:
    """Lost mid-round (at full speed the dealer is always mid-round), the round waits for the
    supervisor, who lets it go on once the shoe is back; then the simulated dealer goes on from
    where the station stands: no card the rules did not call for (it takes back the cards still
    in the shoe when the table stops, and deals the rest as the station asks), and no wait on a
    "paying" the supervisor's decision reached before its settlement did
    (tests/sim/test_dealer_after_an_outage.py plays many such outages)."""
    table = start_fault_table(tmp_path)  # of its own: a dealer gone astray would hold up the rest
    try:
        mark = table.mark()
        assert ask(table.door_path, {"device": "shoe", "fault": "unplug", "seconds": 1}) == {
            "ok": True, "done": "shoe unplugged; plugged back in 1 s"}
        lost, record = table.wait_record(mark, _event("device_link_fault", device="shoe"),
                                         "the station to lose the shoe")
        assert record["code"] == "link_lost", record
        table.wait_record(mark, _event("device_fault", device="shoe"), "the core to hear the shoe is lost")
        back, _ = table.wait_record(lost, _event("device_recovered", device="shoe"), "the shoe to be found again")
        table.wait_record(mark, _event("sim_fault_ended", device="shoe", fault="unplug"), "the table to plug it back")
        table.play_goes_on(back)
        assert table.decided in ([], [("device_fault", "resume")]), table.decided
    finally:
        table.stop()


def test_a_rebooted_board_is_painted_again(table: FaultTable) -> None:
    table.boot_would_be_new("display")
    mark = table.mark()
    reply = ask(table.door_path, {"device": "display", "fault": "reboot"})
    assert reply == {"ok": True, "done": "display rebooted: blank, numbering from 1, Boot sent"}
    boot, _ = table.wait_record(mark, _event("device_boot", device="display", reason=faults.REBOOT_REASON),
                                "the station to hear the board boot")
    table.wait_record(boot, _event("display_repaint", reason="boot"), "the board to be repainted")
    table.play_goes_on(boot)


def test_a_board_that_loses_its_answers_is_given_up_on_after_the_retries(table: FaultTable) -> None:
    """The display is the device the station sends commands to all the time (the expected
    action, the results, and a heartbeat ping when the line is quiet): four answers lost are
    its command and the link's three retries (``retries`` 3), so the station resends three
    times and then gives up on that command, in its log."""
    mark = table.mark()
    reply = ask(table.door_path, {"device": "display", "fault": "drop_replies", "count": 4})
    assert reply["ok"] is True and "next 4 command(s)" in reply["done"], reply

    def gave_up(record: dict[str, Any]) -> bool:
        words = str(record.get("error") or record.get("reason") or "")
        return "display: no answer to" in words and "after 4 attempt(s)" in words

    given_up, record = table.wait_record(mark, gave_up, "the station to give up on a display command")
    resent = [r for at, r in table.records(mark) if at < given_up and r.get("event") == "command_retransmit"
              and r.get("device") == "display"]
    assert [r["attempt"] for r in resent][-3:] == [1, 2, 3], resent
    if record.get("event") == "device_link_fault":  # the lost answers were a heartbeat's: the link is reset
        table.wait_record(given_up, _event("device_recovered", device="display"), "the display to be found again")
    table.play_goes_on(given_up)


@pytest.mark.parametrize(("line", "words"), [
    (b'{"device": "toaster", "fault": "reboot"}', 'no device "toaster"'),
    (b'{"device": "shuffler", "fault": "reboot"}', "this table has no shuffler (it has display, shoe)"),
    (b'{"device": "shoe", "fault": "explode"}', 'no fault "explode"'),
    (b'{"device": "shoe", "fault": "unplug", "seconds": -1}', "seconds must be from 0.05 to 600, not -1"),
    (b'{"device": "shoe", "fault": "corrupt", "count": "2"}', 'count must be a whole number, not "2"'),
    (b"{not json", "not a JSON request: not JSON"),
    (b'{"device": "shoe", "fault": "reboot", "fault": "unplug"}', "not a JSON request: 'fault' given twice"),
    (b'{"fault": "list", "pad": "' + b"x" * 5000 + b'"}', "a line over 4096 bytes"),
], ids=["unknown device", "absent device", "unknown fault", "out of range", "wrong type", "bad JSON",
        "repeated key", "oversized line"])
def test_a_refused_request_changes_nothing_and_the_table_plays_on(table: FaultTable, line: bytes, words: str) -> None:
    mark = table.mark()
    (reply,) = raw_lines(table.door_path, line + b"\n", 1)
    assert reply["ok"] is False and words in reply["error"], reply
    table.wait_record(mark, _event("sim_fault_refused"), "the table to log the refusal")
    assert ask(table.door_path, {"fault": "list"})["ok"], "the door serves on"
    assert not [r for _, r in table.records(mark) if r.get("event") == "sim_fault_injected"]
    table.play_goes_on(mark)


def test_the_door_goes_with_the_table_and_a_killed_tables_is_swept(tmp_path: Path) -> None:
    """An orderly stop removes the table's folder, door and all; a table killed outright
    cannot, and leaves its socket in its folder, which the next table's sweep removes (the
    folder's lock is free: station/sim/table_folder.py)."""
    temp = tmp_path / "tmp"
    first = start_fault_table(tmp_path / "first", temp)
    try:
        os.kill(first.table_pid, signal.SIGKILL)
        wait_until(lambda: first.process.poll() is not None, EVENT_S, "the station to stop without its table")
        assert first.door_path.is_socket(), "a killed table leaves its door behind"
        with pytest.raises(faults.DoorUnreachable, match="is left from a table that ended"):
            ask(first.door_path, {"fault": "list"})
    finally:
        first.kill()
    second = start_fault_table(tmp_path / "second", temp)
    try:
        assert not first.folder.exists(), "the next table removes what the killed one left"
        assert ask(second.door_path, {"fault": "list"})["ok"]
    finally:
        assert second.stop() == 0, second.tail()
    assert list(temp.iterdir()) == [], "an orderly stop leaves nothing"
    records = [json.loads(line) for line in second.log.read_text().splitlines() if line.startswith("{")]
    assert "Traceback" not in second.log.read_text()
    assert any(r.get("event") == "sim_fault_door_open" for r in records)
