"""The simulated table's fault door on its own: real simulators on pseudo-terminals and the
door on its socket, in this process (no station, no process started). Every way a request can
be wrong is refused in words and leaves the door serving; the timed faults end by themselves,
and not after the door has closed. The door inside a running station is
``test_table_faults.py``."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators import start_simulator
from station.sim import faults
from station.sim.faults import FaultDoor, FaultRefused, ask, check_request, live_tables
from station.sim.table_folder import TableFolder

from ..waiting import wait_until


class Door:
    """A door on a shoe and a display in a folder of their own, and a client to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.shoe = start_simulator("shoe", directory=str(folder))
        self.display = start_simulator("display", directory=str(folder))
        self.door = FaultDoor(folder, {"shoe": self.shoe.simulator, "display": self.display.simulator})
        assert self.door.start()
        self.path = folder / faults.SOCKET_NAME

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return ask(self.path, request)

    def lines(self, payload: bytes, replies: int) -> list[dict[str, Any]]:
        """Send raw bytes on one connection; the replies, one per line."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.path))
            sock.sendall(payload)
            with sock.makefile("rb") as reader:
                return [json.loads(reader.readline()) for _ in range(replies)]

    def close(self) -> None:
        self.door.close()
        for running in (self.shoe, self.display):
            running.stop()


@pytest.fixture
def door(tmp_path: Path) -> Iterator[Door]:
    made = Door(tmp_path)
    try:
        yield made
    finally:
        made.close()


def _refused(reply: dict[str, Any], words: str) -> None:
    assert reply["ok"] is False and words in reply["error"], reply


def test_the_socket_is_the_owners_alone(door: Door) -> None:
    assert door.path.stat().st_mode & 0o777 == 0o600


def test_list_names_the_devices_present_and_every_fault(door: Door) -> None:
    reply = door.ask({"fault": "list"})
    assert reply["ok"] is True and reply["devices"] == ["display", "shoe"]
    assert set(reply["faults"]) == set(faults.FAULTS)
    assert reply["faults"]["unplug"]["arguments"] == {"seconds": faults.SECONDS.words()}
    assert "devices: display, shoe; faults: unplug seconds, reboot," in reply["done"]


def test_unplug_pulls_the_cable_and_plugs_it_back_after_the_seconds(door: Door) -> None:
    link = door.folder / "shoe"
    reply = door.ask({"device": "shoe", "fault": "unplug", "seconds": 3})
    assert reply == {"ok": True, "done": "shoe unplugged; plugged back in 3 s"}
    assert not link.exists()
    wait_until(link.exists, 10, "the shoe plugged back in")
    # Once back, it can go again; while it is out (a minute: long enough on any machine), a
    # second unplug or a power cycle is refused, saying so.
    assert door.ask({"device": "shoe", "fault": "unplug", "seconds": 60})["ok"], "once back, it can go again"
    _refused(door.ask({"device": "shoe", "fault": "unplug", "seconds": 1}), "the shoe is unplugged already: back in")
    _refused(door.ask({"device": "shoe", "fault": "power_cycle"}), "the shoe is unplugged already")


def test_a_closed_door_plugs_nothing_back(door: Door) -> None:
    """A table that stops cancels its timed faults: nothing is plugged back into it."""
    assert door.ask({"device": "shoe", "fault": "unplug", "seconds": 0.2})["ok"]
    door.door.close()
    replugged = threading.Event()
    door.shoe.simulator.replug = replugged.set  # what the timer would call
    assert not replugged.wait(0.6), "the shoe was plugged back after the door closed"
    assert not door.path.exists()


def test_mute_ends_by_itself(door: Door) -> None:
    display = door.display.simulator
    assert door.ask({"device": "display", "fault": "mute", "seconds": 3}) == {
        "ok": True, "done": "display muted; answers again in 3 s"}
    assert display._mute
    _refused(door.ask({"device": "display", "fault": "mute", "seconds": 1}), "the display is muted already")
    wait_until(lambda: not display._mute, 10, "the display to answer again")


def test_the_counted_faults_reach_the_simulator(door: Door) -> None:
    shoe = door.shoe.simulator
    assert door.ask({"device": "shoe", "fault": "drop_replies", "count": 3})["ok"]
    assert door.ask({"device": "shoe", "fault": "corrupt", "count": 2})["ok"]
    assert door.ask({"device": "shoe", "fault": "lose_acks", "count": 4})["ok"]
    assert (shoe._drop_replies, shoe._corrupt_next, shoe._ignore_acks) == (3, 2, 4)
    reply = door.ask({"device": "shoe", "fault": "garbage", "bytes": "02 ff 00"})
    assert reply == {"ok": True, "done": "3 byte(s) of garbage put on the shoe's line"}


def test_reboot_and_power_cycle_send_a_boot(door: Door) -> None:
    display = door.display.simulator
    before = display.boots
    assert door.ask({"device": "display", "fault": "reboot"})["ok"]
    assert door.ask({"device": "display", "fault": "power_cycle"})["ok"]
    assert display.boots == before + 2
    assert (door.folder / "display").exists()


@pytest.mark.parametrize(("request_", "words"), [
    ({"device": "toaster", "fault": "reboot"}, 'no device "toaster"; the serial devices are shoe, shuffler'),
    ({"device": "shuffler", "fault": "reboot"}, "this table has no shuffler (it has display, shoe)"),
    ({"device": "shoe", "fault": "explode"}, 'no fault "explode"; the faults are collide, corrupt, drop_replies'),
    ({"device": "shoe"}, 'no fault named: give "fault"'),
    ({"fault": "reboot"}, 'no device named: give "device"'),
    ({"device": 7, "fault": "reboot"}, "no device 7"),
    ({"device": "shoe", "fault": ["unplug"]}, "no fault list"),
    ({"device": "shoe", "fault": "unplug"}, "unplug needs seconds (0.05 to 600"),
    ({"device": "shoe", "fault": "unplug", "seconds": "1"}, 'seconds must be a number, not "1"'),
    ({"device": "shoe", "fault": "unplug", "seconds": True}, "seconds must be a number, not true"),
    ({"device": "shoe", "fault": "unplug", "seconds": 0}, "seconds must be from 0.05 to 600, not 0"),
    ({"device": "shoe", "fault": "mute", "seconds": 601}, "seconds must be from 0.05 to 600, not 601"),
    ({"device": "shoe", "fault": "unplug", "seconds": 1, "count": 2}, 'unplug takes seconds, not "count"'),
    ({"device": "shoe", "fault": "reboot", "seconds": 1}, 'reboot takes no arguments, not "seconds"'),
    ({"device": "shoe", "fault": "corrupt", "count": 1.5}, "count must be a whole number, not 1.5"),
    ({"device": "shoe", "fault": "corrupt", "count": 0}, "count must be from 1 to 1000, not 0"),
    ({"device": "shoe", "fault": "drop_replies", "count": 10**9}, "count must be from 1 to 1000"),
    ({"device": "shoe", "fault": "garbage", "bytes": "xyz"}, 'bytes must be hex digits ("02ff"), not "xyz"'),
    ({"device": "shoe", "fault": "garbage", "bytes": 255}, "bytes must be hex digits in a text"),
    ({"device": "shoe", "fault": "garbage", "bytes": ""}, "bytes must be 1 to 1024 bytes, not 0"),
    ({"device": "shoe", "fault": "garbage", "bytes": "00" * 1025}, "bytes must be 1 to 1024 bytes, not 1025"),
    ({"fault": "list", "device": "shoe"}, 'list takes no arguments, not "device"'),
], ids=lambda value: value if isinstance(value, str) else None)
def test_a_wrong_request_is_refused_in_words(door: Door, request_: dict[str, Any], words: str) -> None:
    _refused(door.ask(request_), words)
    assert door.ask({"fault": "list"})["ok"], "the door serves on"


@pytest.mark.parametrize(("line", "words"), [
    (b"{bad json", "not a JSON request: not JSON"),
    (b'{"device": "shoe", "device": "display", "fault": "reboot"}', "not a JSON request: 'device' given twice"),
    (b'{"device": "shoe", "fault": "mute", "seconds": NaN}', "not a JSON request: NaN is not a number"),
    (b'{"device": "shoe", "fault": "corrupt", "count": 1' + b"0" * 20 + b"}", "an integer of 21 digits"),
    (b"[[[[[[[[[[]]]]]]]]]]", "not a JSON request: nested deeper than 2 levels"),
    (b'{"fault": "list", "x": {"y": {}}}', "nested deeper than 2 levels"),
    (b'{"device": "shoe", "fault": "mute", "seconds": 1e400}', "seconds must be a number, not Infinity"),
    (b"\xff\xfe", "the line is not UTF-8 text"),
    (b'"list"', "a request is a JSON object, not a string"),
    (b"[]", "a request is a JSON object, not an array"),
    (b"null", "a request is a JSON object, not null"),
])
def test_a_line_that_is_not_a_request_is_refused(door: Door, line: bytes, words: str) -> None:
    first, then = door.lines(line + b"\n" + b'{"fault": "list"}\n', 2)
    _refused(first, words)
    assert then["ok"] is True, "the same connection goes on after a refusal"


def test_a_line_over_4_kb_is_refused_and_the_connection_closed(door: Door) -> None:
    exactly = json.dumps({"fault": "list", "": ""}).encode()
    padded = exactly[:-1] + b" " * (faults.MAX_LINE - len(exactly)) + b"}"
    assert len(padded) == faults.MAX_LINE
    _refused(door.lines(padded + b"\n", 1)[0], 'list takes no arguments, not ""')  # 4096 bytes: read
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(door.path))
        sock.sendall(padded + b" \n" + b'{"fault": "list"}\n')
        with sock.makefile("rb") as reader:
            _refused(json.loads(reader.readline()), "a line over 4096 bytes")
            assert reader.readline() == b"", "the connection ends: the next line cannot be told apart"
    assert door.ask({"fault": "list"})["ok"]


def test_connections_beyond_the_limit_are_refused(door: Door) -> None:
    held = []
    try:
        for _ in range(faults.MAX_CONNECTIONS):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(door.path))
            held.append(sock)
        wait_until(lambda: door.door._slots._value == 0, 10, "every slot taken")  # the semaphore's count
        _refused(door.ask({"fault": "list"}), f"busy: {faults.MAX_CONNECTIONS} connections are open already")
    finally:
        for sock in held:
            sock.close()
    wait_until(lambda: door.ask({"fault": "list"})["ok"], 10, "a slot free again")


def test_a_silent_connection_is_closed(door: Door, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(faults, "IDLE_S", 0.2)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(door.path))
        assert sock.recv(100) == b"", "the door hung up on a client that said nothing"


def test_closing_ends_the_accepting_thread_and_removes_the_socket(door: Door) -> None:
    door.door.close()
    assert not door.path.exists()
    wait_until(lambda: not any(t.name == "sim-fault-door" and t.is_alive() for t in threading.enumerate()), 10,
               "the door's thread to end")
    with pytest.raises(FaultRefused, match="the table is stopping"):
        door.door.apply(check_request({"fault": "list"}))


def test_a_simulator_that_fails_is_a_refusal_not_a_dead_door(door: Door) -> None:
    def broken(reason: str = "") -> None:
        raise RuntimeError("firmware bug")

    door.display.simulator.reboot = broken  # a bug of the simulator
    _refused(door.ask({"device": "display", "fault": "reboot"}), "the simulator failed: RuntimeError: firmware bug")
    assert door.ask({"fault": "list"})["ok"]


def test_a_path_too_long_for_a_socket_leaves_the_table_without_a_door(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 120)
    deep.mkdir()
    assert FaultDoor(deep, {}).start() is False


def test_live_tables_are_the_folders_whose_lock_is_held(tmp_path: Path) -> None:
    assert live_tables(tmp_path) == []
    live = TableFolder(tmp_path)
    (tmp_path / "station-sim-standalone").mkdir()  # `station simulate shoe`: no lock, not a table
    try:
        assert live_tables(tmp_path) == [live.path]
    finally:
        live.remove()
    assert live_tables(tmp_path) == []
