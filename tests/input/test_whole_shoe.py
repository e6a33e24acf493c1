"""A commodity foot switch deals a whole shoe on the simulated table: ``station demo`` with the
dealer's pedals a foot switch sending F13-F15, read through the real evdev driver (grabbed,
debounced) in the station's process. The dealer calls no more bets and clears the table with
the pedals in every round.

The foot switch is a real uinput device where ``/dev/uinput`` exists (``sim:?hid=footswitch&
uinput=true``); where it does not (this machine, CI), the stand-in at python-evdev's
``InputDevice`` boundary (drivers/simulators/footswitch.py) takes its place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.simulators.footswitch import uinput_available

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]

CONFIG = """
[station]
name = "Foot switch table"
[table]
game = "baccarat"
variant = "mini"
decks = 4
[devices.shoe]
url = "sim:"
[devices.display]
url = "sim:"
[devices.pedals]
url = "{url}"
[dealer]
simulated = true
pace_ms = 1
bets = {{ banker = 2000 }}
[dealer.buttons]
left = "no_more_bets"
centre = "reveal"
right = "next_round"
"""


@pytest.mark.parametrize("kind", ["stand-in", "uinput"])
def test_a_foot_switch_deals_a_whole_shoe(tmp_path: Path, kind: str) -> None:
    url = "sim:?hid=footswitch"
    if kind == "uinput":
        if not uinput_available():
            pytest.skip("no writable /dev/uinput here: the stand-in deals the shoe instead")
        url += "&uinput=true"
    config = tmp_path / "station.toml"
    config.write_text(CONFIG.format(url=url))
    run = subprocess.run([sys.executable, "-m", "station", "demo", "-c", str(config), "--shoes", "1", "--json", "-v"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    out = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    end = next(line for line in out if line["type"] == "shoe_end")
    assert end["rounds"] >= 30
    logged = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    connected = [e for e in logged if e.get("event") == "device_connected" and e.get("device") == "pedals"]
    assert connected and connected[0]["grabbed"] is True and connected[0]["vid_pid"] == "0c45:7403"
    presses = [e["button"] for e in logged if e.get("event") == "footswitch.press"]
    # every round closed by the left pedal and cleared by the right one (the last round's
    # clearing ends the shoe)
    assert presses.count("left") == end["rounds"] and presses.count("right") >= end["rounds"] - 1
    assert not [e for e in logged if e.get("event") == "device_link_fault"]
