"""The pedal simulator in another process, reached through ``usb-sim:///socket``.

These tests start real processes (``python -m drivers.simulators.pedals.console`` and the ``station
simulate pedals`` console command), talk to them over real Unix sockets, and kill them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.devices import PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.console import execute
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from station.events import DeviceFault, DeviceRecovered

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

MakeDriver = Callable[..., PedalDriver]
STATION = Path(sys.executable).with_name("station")


class SimProcess:
    """A simulator process: its connect URL, and a way to type commands into it."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
        )
        self.banner: list[str] = []
        self.url = ""
        while not self.url:
            line = self.proc.stdout.readline() if self.proc.stdout else ""
            if not line:
                raise AssertionError(f"simulator exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
            self.banner.append(line)
            if line.startswith("Connect the station to: "):
                self.url = line.split(": ", 1)[1].strip()
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # "Type commands ..."

    def command(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def sim_process(tmp_path: Path) -> Iterator[Callable[..., SimProcess]]:
    started: list[SimProcess] = []

    def start(*extra: str, command: list[str] | None = None) -> SimProcess:
        argv = command or [sys.executable, "-m", "drivers.simulators.pedals.console"]
        process = SimProcess([*argv, "--socket", str(tmp_path / "pedals.sock"), *extra])
        started.append(process)
        return process

    yield start
    for process in started:
        process.close()


def test_station_against_a_simulator_it_did_not_start(
    sim_process: Callable[..., SimProcess], make_driver: MakeDriver, events: Any
) -> None:
    sim = sim_process("--serial", "PED-X-7", "--buttons", "left,right")
    assert sim.url.startswith("usb-sim:///") and sim.url.endswith("?serial=PED-X-7")
    driver = make_driver(sim.url, buttons=("left", "right"))
    assert driver.connected and driver.identify().serial == "PED-X-7"
    assert sim.command("click left") == "ok"
    assert sim.command("long 2") == "ok"
    assert events.wait_presses(2) == [("left", False), ("right", True)]
    assert sim.command("unplug") == "ok"
    assert events.wait_kind(DeviceFault)[-1].code == "disconnected"
    assert sim.command("replug") == "ok"
    assert sim.command("click right 2") == "ok"
    assert events.wait_presses(4)[2:] == [("right", False), ("right", False)]
    events.wait_kind(DeviceRecovered)
    assert sim.command("press centre").startswith("error: no button 'centre'")
    assert sim.proc.stdin is not None
    sim.proc.stdin.write("quit\n")
    sim.proc.stdin.flush()
    assert sim.proc.wait(10) == 0
    assert not Path(sim.url.split("usb-sim://", 1)[1].split("?")[0]).exists()


@pytest.mark.skipif(not STATION.exists(), reason="the station console script is not installed")
def test_station_simulate_pedals_command(
    sim_process: Callable[..., SimProcess], make_driver: MakeDriver, events: Any
) -> None:
    sim = sim_process(command=[str(STATION), "simulate", "pedals"])
    make_driver(sim.url)
    assert sim.command("long centre") == "ok"
    assert events.wait_presses(1) == [("centre", True)]


def test_killed_simulator_is_a_fault_and_a_new_one_recovers(
    sim_process: Callable[..., SimProcess], make_driver: MakeDriver, events: Any
) -> None:
    first = sim_process()
    make_driver(first.url)
    first.proc.kill()
    first.proc.wait(10)
    fault = events.wait_kind(DeviceFault)[-1]
    assert fault.code == "disconnected" and "not reachable" in fault.reason
    second = sim_process()  # the same socket path: the stale socket file is replaced
    events.wait_kind(DeviceRecovered)
    assert second.command("click left") == "ok"
    assert events.wait_presses(1) == [("left", False)]


def test_a_killed_station_does_not_leave_the_pedals_claimed(
    sim_process: Callable[..., SimProcess], make_driver: MakeDriver, events: Any
) -> None:
    sim = sim_process()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import signal
                from drivers.devices import PedalDriver
                driver = PedalDriver("pedals", {sim.url!r}, lambda event: None)
                driver.start()
                print("connected" if driver.connected else "not connected", flush=True)
                signal.pause()  # holds the claim until the test kills it
                """
            ),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert holder.stdout
        lines = iter(holder.stdout.readline, "")
        verdict = next(line.strip() for line in lines if line.strip() in ("connected", "not connected"))
        assert verdict == "connected"
        assert '"claimed": true' in sim.command("status")
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    finally:
        if holder.poll() is None:
            holder.kill()
    # The simulator frees the dead session's claim once it sees its connections close.
    wait_until(lambda: '"claimed": false' in sim.command("status"), 10, "the simulator to free the dead claim",
               detail=lambda: sim.command("status"))
    driver = make_driver(sim.url)
    assert driver.connected and events.events == []
    assert sim.command("click right") == "ok"
    assert events.wait_presses(1) == [("right", False)]


def test_script_file_runs_before_standard_input(
    sim_process: Callable[..., SimProcess], tmp_path: Path, make_driver: MakeDriver, events: Any
) -> None:
    script = tmp_path / "script.txt"
    script.write_text(
        "# buttons pressed before the station connects are buffered by the device\nclick left\nlong right\n"
    )
    sim = sim_process("--script", str(script))
    make_driver(sim.url)
    assert events.wait_presses(2) == [("left", False), ("right", True)]


def test_simulator_refuses_a_socket_in_use(tmp_path: Path) -> None:
    path = str(tmp_path / "busy.sock")
    server = PedalSimServer(path, SimulatedBackend([SimulatedPedal()])).start()
    try:
        with pytest.raises(OSError, match="already serving"):
            PedalSimServer(path, SimulatedBackend([SimulatedPedal()]))
    finally:
        server.stop()
    assert not os.path.exists(path)


def test_command_parser() -> None:
    pedal = SimulatedPedal(timed_long_press=False)
    assert execute(pedal, "click left 3") == "ok" and pedal.pending_reports == 6
    assert execute(pedal, "  # a comment") == ""
    assert execute(pedal, "click") == "error: expected a button name or number"
    assert execute(pedal, "click left zero") == "error: 'zero' is not a positive whole number"
    assert (execute(pedal, "click 4") or "").startswith("error: no button '4'")
    assert execute(pedal, "corrupt 2 semantic") == "ok"
    assert (execute(pedal, "corrupt sideways") or "").startswith("error: unknown corruption 'sideways'")
    assert execute(pedal, "slow -1") == "error: seconds cannot be negative"
    assert execute(pedal, "release left") == "error: button left is not down"
    assert execute(pedal, "switch-fault wobbly") == "error: switch-fault takes stuck, open or none"
    assert execute(pedal, "replug") == "error: the pedals are already plugged in"
    assert execute(pedal, "frobnicate") == "error: unknown command 'frobnicate' (try: help)"
    assert execute(pedal, "quit") is None
    assert "corruptions:" in (execute(pedal, "help") or "")
