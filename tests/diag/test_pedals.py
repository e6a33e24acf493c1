"""``station diag pedals``: the press test through the real CLI. The pedals are a simulated USB
device served on a Unix socket (``usb-sim://``), so the driver runs the real pyusb code path
through the forwarding backend; the serial button box runs over a real pty."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from station.cli.main import main

from ..waiting import wait_until
from .helpers import write_config


@pytest.fixture
def pedal(tmp_path: Path) -> Iterator[tuple[SimulatedPedal, str]]:
    device = SimulatedPedal("PED-T-1")
    server = PedalSimServer(str(tmp_path / "pedals.sock"), SimulatedBackend([device])).start()
    yield device, f"{server.url}?serial={device.serial}"
    server.stop()


class _When(threading.Thread):
    """Does ``then`` once ``ready()`` holds (the diagnostic has claimed the device); ``join``
    raises what went wrong in the thread (the diagnostic never got ready, a failed step)."""

    def __init__(self, ready: Callable[[], bool], then: Callable[[], object], what: str) -> None:
        super().__init__()
        self._ready, self._then, self._what = ready, then, what
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            wait_until(self._ready, 20, self._what, poll=0.005)
            self._then()
        except BaseException as exc:  # handed to the test's thread by join
            self.failure = exc

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.failure is not None:
            raise self.failure


def _when(ready: Callable[[], bool], then: Callable[[], object], what: str = "the diagnostic to claim the device"
          ) -> _When:
    """Do ``then`` in a thread once ``ready()`` holds."""
    thread = _When(ready, then, what)
    thread.start()
    return thread


def test_every_press_is_shown_and_the_unpressed_pedal_named(pedal, tmp_path: Path, capsys) -> None:
    device, url = pedal
    config = write_config(tmp_path / "station.toml", {"pedals": url})

    def press() -> None:
        device.click("left")
        device.long_press("centre")
        device.click("left")

    presser = _when(lambda: device.claimed, press)
    code = main(["diag", "-c", str(config), "pedals", "--seconds", "1.2"])
    presser.join()
    out = capsys.readouterr().out
    assert code == 1  # "right" was never pressed
    assert "press test on pedals at usb-sim://" in out
    pressed = [line.split()[1:3] for line in out.splitlines() if line.strip().endswith(")") and "s  " in line]
    assert pressed == [["left", "short"], ["centre", "LONG"], ["left", "short"]]
    assert "(no_more_bets)" in out and "(reveal)" in out  # the dealer actions they are configured for
    assert "left           2     0" in out and "centre         0     1" in out
    assert "NEVER PRESSED: right" in out


def test_until_all_ends_when_every_pedal_was_pressed(pedal, capsys) -> None:
    device, url = pedal
    presser = _when(lambda: device.claimed, lambda: [device.click(b) for b in ("right", "centre", "left")])
    started = time.monotonic()
    code = main(["diag", "pedals", "--url", url, "--seconds", "30", "--until-all", "--json"])
    presser.join()
    assert time.monotonic() - started < 25  # ended by the presses, not the clock
    assert code == 0
    tally = json.loads(capsys.readouterr().out)
    assert tally["never_pressed"] == [] and tally["faults"] == []
    assert [p["button"] for p in tally["presses"]] == ["right", "centre", "left"]
    assert tally["buttons"]["left"] == {"short": 1, "long": 0, "action": "no_more_bets"}  # default configuration


def test_corrupt_reports_and_unplugging_are_shown_not_counted(pedal, capsys) -> None:
    device, url = pedal
    said = io.StringIO()  # what the diagnostic prints, read as it prints it

    def trouble() -> None:
        device.corrupt_next(1, "checksum")
        device.click("left")  # its DOWN report is damaged
        device.click("right")
        # Unplugged once the diagnostic has read every report of the clicks (not after a guess).
        wait_until(lambda: device.pending_reports == 0, 20, "the diagnostic to read the clicks' reports",
                   poll=0.005)
        device.unplug()

    # Only once the test is under way (its header printed): a cable pulled while the
    # diagnostic still opens the device is another test (a device that is not there).
    presser = _when(lambda: "press each button" in said.getvalue(), trouble, "the press test to begin")
    with contextlib.redirect_stdout(said):
        code = main(["diag", "pedals", "--url", url, "--seconds", "5"])
    presser.join()
    out = said.getvalue() + capsys.readouterr().out
    assert code == 1, out
    assert "corrupt report skipped: checksum mismatch" in out
    assert "right      short" in out
    assert "fault: read failed" in out and "No such device" in out
    assert "NEVER PRESSED: centre" in out


def test_button_box_press_test_over_a_pty(sim, capsys) -> None:
    box = sim("buttonbox")
    device = box.simulator
    presser = _when(
        lambda: device.stats.commands >= 1,
        lambda: (device.press(1), device.long_press(2), device.press(3), device.press(4)),
        "the diagnostic's first command to the button box",
    )
    code = main(["diag", "pedals", "--url", box.url, "--kind", "buttonbox", "--seconds", "10", "--until-all"])
    presser.join()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "deal       short" in out and "confirm    LONG" in out
    assert "every configured button was pressed" in out


def test_pedals_of_another_kind_are_refused_as_usage(sim, capsys) -> None:
    display = sim("display")
    assert main(["diag", "pedals", "--url", display.url, "--kind", "display"]) == 2
    assert "needs a pedals or buttonbox" in capsys.readouterr().err


def test_monitor_shows_pedal_reports_and_a_damaged_one_as_corrupt(pedal, capsys) -> None:
    device, url = pedal

    def press() -> None:
        device.click("right")
        device.corrupt_next(1, "checksum")
        device.click("left")

    presser = _when(lambda: device.claimed, press)
    assert main(["diag", "monitor", "--url", url, "--kind", "pedals", "--count", "4", "--seconds", "10"]) == 0
    presser.join()
    out = capsys.readouterr().out
    assert "in    DOWN right" in out and "in    UP right" in out
    assert "in    CORRUPT checksum mismatch" in out
    assert "=> ButtonPressed(device=pedals, button=right, long_press=False)" in out
    assert "4 frame(s) from the device, 1 corrupt" in out
