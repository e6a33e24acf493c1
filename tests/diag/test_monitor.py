"""``station diag monitor``: the monitor runs as its own process (as a technician runs it beside
a device), the simulator in the test injects noise and a frame with a broken CRC, and the
output must show those as corrupt, never as cards, while the good frames are decoded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from drivers.codec.protocol import Identify
from drivers.simulators.base import SimulatedDevice
from station.cards import parse_cards
from station.cli.main import main

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def _monitor(url: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "station", "diag", "monitor", "--url", url, "--kind", "shoe", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _wait_handshake(device: SimulatedDevice, child: subprocess.Popen[str], timeout: float = 20.0) -> None:
    def identified() -> bool:
        assert child.poll() is None, f"the monitor exited with {child.returncode} before it connected"
        return any(isinstance(m, Identify) for m in list(device.received))

    wait_until(identified, timeout, "the monitor to connect (its Identify)", poll=0.01,
               detail=lambda: f"the device received {list(device.received)!r}")


def test_monitor_shows_decoded_frames_and_corrupt_ones_as_such(sim) -> None:
    shoe = sim("shoe")
    shoe.simulator.load(parse_cards("AS KH 9D"))
    # Ended by time, not by a frame count: the simulator's power-on notice may be retransmitted
    # once more before the monitor's handshake, so the number of frames is not fixed.
    child = _monitor(shoe.url, "--count", "50", "--seconds", "4")
    try:
        _wait_handshake(shoe.simulator, child)
        assert shoe.simulator.wait_idle(10)  # the power-on notice is through
        shoe.simulator.inject_garbage(b"\x00\xffnoise")
        shoe.simulator.corrupt_next_frames(1)
        shoe.simulator.draw()  # sent with a bad CRC, then retransmitted intact
        shoe.simulator.draw()
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert out.startswith(f"monitoring shoe at {shoe.url} until 50 frames or 4 s")
    assert "rx    IdentityReport(model='SIM-SHOE-1'" in out and "tx    Identify()" in out
    assert "rx    CORRUPT noise" in out and "00 ff 6e 6f 69 73 65" in out
    assert "rx    CORRUPT bad_crc" in out
    assert "rx    CardRead(card=AS)" in out and "rx    CardRead(card=KH)" in out
    assert "=> CardDrawn(device=shoe, card=AS)" in out
    assert out.count("=> CardDrawn") == 2  # the corrupt frame never became a card
    assert "2 corrupt" in out.splitlines()[-1]


def test_monitor_raw_shows_hex_only(sim) -> None:
    shoe = sim("shoe")
    child = _monitor(shoe.url, "--raw", "--count", "2", "--seconds", "20")
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    frames = [line.split() for line in out.splitlines()[1:-1]]
    assert frames and all(f[1] in ("rx", "tx") for f in frames)
    assert all(all(len(b) == 2 and int(b, 16) >= 0 for b in f[2:]) for f in frames)
    assert "IdentityReport" not in out


def test_monitor_json_in_process_by_seconds(sim, capsys) -> None:
    display = sim("display")
    assert main(["diag", "monitor", "--url", display.url, "--kind", "display", "--seconds", "0.5", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(entry["decoded"] == "Identify()" and entry["dir"] == "tx" for entry in lines)
    assert any(entry["decoded"].startswith("IdentityReport(model='SIM-DISPLAY-1'") for entry in lines)
    assert all(set(entry) == {"t", "dir", "hex", "decoded", "corrupt"} for entry in lines)
