"""``station simulate fault``: a technician's or a script's way through a running simulated
table's fault door, as a subprocess. It finds the table by ``--table DIR`` or, with none, the
only live simulated table of this user (in its temporary folder); it prints the door's words
and exits 0 when done, 1 when the table refused or no table answers, 2 for a bad command line,
always in one line and never with a traceback."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.sim.faults import REBOOT_REASON, SOCKET_NAME
from station.sim.table_folder import TableFolder

from .fault_table import FaultTable, run_cli, start_fault_table

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultTable]:
    running = start_fault_table(tmp_path_factory.mktemp("cli"))
    try:
        yield running
    finally:
        running.stop()


def _one_line(result: subprocess.CompletedProcess[str], status: int, words: str) -> None:
    """Exit ``status``, ``words`` in the one line on stderr, nothing on stdout, no traceback."""
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("station simulate: ") and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_fault_by_the_tables_folder(table: FaultTable) -> None:
    table.boot_would_be_new("display")
    mark = table.mark()
    result = run_cli("--table", str(table.folder), "display", "reboot")
    assert result.returncode == 0 and result.stderr == "", result
    assert result.stdout == "display rebooted: blank, numbering from 1, Boot sent\n"
    table.wait_record(mark, lambda r: r.get("event") == "device_boot" and r.get("device") == "display"
                      and r.get("reason") == REBOOT_REASON, "the station to hear the board boot")


def test_the_only_live_table_is_found_without_its_folder(table: FaultTable) -> None:
    result = run_cli("--list", temp=table.temp)
    assert result.returncode == 0 and result.stderr == "", result
    assert result.stdout.startswith("devices: display, shoe; faults: unplug seconds, reboot, ")
    assert result.stdout.count("\n") == 1
    mark = table.mark()
    result = run_cli("shoe", "drop_replies", "--count", "1", temp=table.temp)
    assert result.returncode == 0, result
    assert result.stdout == "shoe loses its answers to the next 1 command(s) (a resent command counts again)\n"
    table.wait_record(mark, lambda r: r.get("event") == "sim_fault_injected" and r.get("fault") == "drop_replies"
                      and r.get("count") == 1, "the table to log the fault")


def test_what_the_table_refuses_exits_1(table: FaultTable) -> None:
    _one_line(run_cli("--table", str(table.folder), "shuffler", "reboot"), 1,
              "refused: this table has no shuffler (it has display, shoe)")
    table.assert_running()


@pytest.mark.parametrize(("args", "words"), [
    ((), "name a DEVICE and a FAULT (e.g. shoe unplug --seconds 1), or --list"),
    (("shoe",), "name a DEVICE and a FAULT"),
    (("--list", "shoe"), "--list takes no DEVICE, FAULT or fault options"),
    (("--list", "--count", "2"), "--list takes no DEVICE, FAULT or fault options"),
    (("toaster", "reboot"), 'no device "toaster"; the serial devices are shoe, shuffler, display, buttonbox'),
    (("shoe", "explode"), 'no fault "explode"; the faults are'),
    (("shoe", "unplug"), "unplug needs seconds (0.05 to 600"),
    (("shoe", "unplug", "--seconds", "soon"), "--seconds soon: not a number"),
    (("shoe", "unplug", "--seconds", "nan"), "seconds must be a number, not NaN"),
    (("shoe", "unplug", "--seconds", "9999"), "seconds must be from 0.05 to 600, not 9999"),
    (("shoe", "corrupt", "--count", "2.5"), "--count 2.5: not a whole number"),
    (("shoe", "reboot", "--count", "2"), 'reboot takes no arguments, not "count"'),
    (("shoe", "garbage", "--bytes", "zz"), 'bytes must be hex digits ("02ff"), not "zz"'),
    (("--table", "/no-such-table-folder", "--list"), "--table /no-such-table-folder: no such folder"),
], ids=lambda value: " ".join(value) if isinstance(value, tuple) else None)
def test_a_bad_command_line_exits_2_before_any_table_is_asked(tmp_path: Path, args: tuple[str, ...],
                                                              words: str) -> None:
    _one_line(run_cli(*args, temp=tmp_path), 2, words)


def test_no_live_table_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "station-sim-standalone").mkdir()  # `station simulate shoe`: no lock, not a table
    _one_line(run_cli("--list", temp=tmp_path), 1, "no simulated table of this user is running")


def test_several_live_tables_are_one_line_naming_them(tmp_path: Path) -> None:
    first, second = TableFolder(tmp_path), TableFolder(tmp_path)  # held by this process: live
    try:
        result = run_cli("shoe", "reboot", temp=tmp_path)
        _one_line(result, 1, "2 simulated tables are running (")
        assert str(first.path) in result.stderr and str(second.path) in result.stderr
        assert "name one with --table DIR" in result.stderr
    finally:
        first.remove()
        second.remove()


def test_a_table_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    live = TableFolder(tmp_path)
    try:
        _one_line(run_cli("--list", temp=tmp_path), 1, f"no fault door at {live.path / SOCKET_NAME}")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as left:
            left.bind(str(live.path / SOCKET_NAME))  # bound, never listened to: what a killed table leaves
        _one_line(run_cli("--table", str(live.path), "--list"), 1, "is left from a table that ended")
    finally:
        live.remove()
