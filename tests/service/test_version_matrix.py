"""The version matrix: every device at version 1 of its protocol and at the current version,
seen from the devices' side of the wire, through a real ``station run`` (issue 25).

For each version the shoe, the display board and the button box (simulators on ptys, each
built to that version: a version-1 simulator decodes only version 1's messages and layouts and
NAKs anything else) deal a whole baccarat shoe with a board reboot, a board outage and a shoe
outage in it, and a whole Casino War shoe; the shuffler and the pedals do the same in
``station demo`` (the simulated table) with a batch shuffler. A version-1 board is never sent a
frame it NAKs. A device announcing a version the station does not speak is one fault line, in
the log, in ``station ctl status`` and in ``station diag probe``. The device contract suite
(tests/devices) runs every device at version 1 too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from drivers.codec import display as wire
from drivers.codec import get_protocol
from drivers.devices.link import BOOT_RESEND_WINDOW_S
from tests.service.test_board_e2e import settled, shoe_done
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
CURRENT = get_protocol("display").current
VERSIONS = sorted({1, CURRENT})


def log_events(table: Any, event: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in table.log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == event]


def undecodable(*simulators: Any) -> dict[str, int]:
    """NAKs the devices sent for frames they could not decode (none, in every version)."""
    found: dict[str, int] = {}
    for sim in simulators:
        for code in ("bad_payload", "unknown_command"):
            if sim.stats.naks.get(code):
                found[f"{sim.name}:{code}"] = sim.stats.naks[code]
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_a_whole_baccarat_shoe_with_every_device_at_the_version(external_table: Any, version: int) -> None:
    table = external_table(decks=4, protocol_version=version)
    board, shoe = table.display.simulator, table.shoe.simulator
    table.start_station()
    started = time.monotonic()
    status = table.status()
    assert status["devices"] == {"shoe": "connected", "display": "connected", "buttonbox": "connected"}
    connected = {e["device"]: e["protocol_version"] for e in log_events(table, "device_connected") if "model" in e}
    assert connected == {"shoe": version, "display": version, "buttonbox": version}
    # The fixture's table is 5.00-1,000.00 (500-100000 in minor units, 2 digits): a version-1
    # board reads whole units.
    limits = wire.ShowLimits(5, 1000) if version == 1 else wire.ShowLimits(500, 100000, minor_digits=2)
    wait_until(lambda: board.screen.limits == limits, 5, "the limits sign at start")

    # The board reboots between rounds: its whole picture comes back. (A Boot within
    # BOOT_RESEND_WINDOW_S of the board's last one is taken for its resend, by the protocol.)
    status = table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-5")
    time.sleep(max(0.0, BOOT_RESEND_WINDOW_S + 0.5 - (time.monotonic() - started)))  # deliberate: past the window
    board.reboot()
    wait_until(lambda: board.screen.limits == limits and board.screen.result is not None
               and board.screen.result.round_no == 4 and board.screen.expected == status["expecting"], 5,
               "the picture again after the board's Boot")

    # The board stops answering mid-round; the table goes on and the board catches up.
    table.play_until(lambda s: s["state"] == "dealing" and s["round"] == "1-8")
    board.mute(True)
    table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-9")
    board.mute(False)
    wait_until(lambda: board.screen.result is not None and board.screen.result.round_no == 8, 20,
               "round 8's result, decided while the board was away")

    # The shoe's cable is out between rounds, and back.
    table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-12")
    shoe.unplug()
    table.wait_for(lambda s: s["devices"]["shoe"] == "not connected")
    shoe.replug()
    table.wait_for(lambda s: s["devices"]["shoe"] == "connected")

    table.play_until(shoe_done)
    rounds = settled(table)
    assert len(rounds) >= 25
    shown = {m.round_no: m for m in table.display_received("ShowResult")}
    assert sorted(shown) == list(range(1, len(rounds) + 1))
    for record in rounds:
        message = shown[int(record["round_id"].split("-")[1])]
        assert [c.code for c in message.player_cards] == record["result"]["player"]
        assert [c.code for c in message.banker_cards] == record["result"]["banker"]
    assert board.screen.limits == limits
    assert undecodable(board, shoe, table.buttons.simulator) == {}
    assert not log_events(table, "display_command_failed") or version == CURRENT  # a mute may fail one
    faults = [(e["device"], e["code"]) for e in log_events(table, "device_link_fault")]
    assert ("shoe", "link_lost") in faults and not [f for f in faults if f[1] == "unsupported_version"]
    assert table.stop_station() == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_a_whole_casino_war_shoe_reaches_a_board_of_the_version(external_table: Any, version: int) -> None:
    table = external_table(game="war", decks=4, boxes=5, protocol_version=version)
    board = table.display.simulator
    table.start_station()
    status = table.status()
    for _ in range(20_000):
        if shoe_done(status):
            break
        table.act(status)
        status = table.wait_change((status["state"], status["expecting"]))
    assert shoe_done(status)
    rounds = settled(table)
    assert len(rounds) >= 10
    assert undecodable(board, table.shoe.simulator) == {}
    if version > 1:
        shown = {m.round_no for m in table.display_received("ShowWarResult")}
        assert sorted(shown) == list(range(1, len(rounds) + 1))
        return
    # Version 1 has no ShowWarResult: every round was a banner line, each naming its dealer card.
    assert not table.display_received("ShowWarResult")
    lines = [m.text for m in table.display_received("ShowMessage") if m.text.startswith("Round ")]
    by_round = {int(line.split()[1]): line for line in lines}
    assert sorted(by_round) == list(range(1, len(rounds) + 1))
    for record in rounds:
        dealt = dict(record["result"]["dealt"])
        assert f"Dealer {dealt['dealer']}" in by_round[int(record["round_id"].split("-")[1])]
    assert board.screen.message.startswith(f"Round {len(rounds)} ")  # the last round stays up
    assert table.stop_station() == 0


@pytest.mark.parametrize(("announced", "which"), [(CURRENT + 1, "newer"), (0, "older")])
def test_a_board_of_a_version_the_station_does_not_speak_is_one_fault_line(
    external_table: Any, announced: int, which: str
) -> None:
    table = external_table(display_options={"announced_version": announced})
    table.start_station()
    expected = (f"speaks display protocol version {announced}, {which} than the versions this station "
                f"speaks (1-{CURRENT})")
    status = table.wait_for(lambda s: s["devices"]["display"].startswith("refused: "))
    assert expected in status["devices"]["display"]
    table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-2")  # the table deals on
    faults = [e for e in log_events(table, "device_link_fault") if e["device"] == "display"]
    assert len(faults) == 1 and expected in faults[0]["reason"] and faults[0]["code"] == "unsupported_version"
    assert table.display.simulator.commands() == []  # never a frame it cannot decode
    assert table.stop_station() == 0

    probe = subprocess.run([sys.executable, "-m", "station", "diag", "probe", "--url", table.display.url,
                            "--kind", "display"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert probe.returncode == 1
    lines = probe.stderr.strip().splitlines()
    assert lines[-1] == f"station diag: display at {table.display.url}: display (SIM-DISPLAY-1 SIM-0001) {expected}"
    # its log may carry the same fault once more, never twice (the probe stops as soon as it is told)
    assert len([line for line in lines if "device_link_fault" in line]) <= 1


@pytest.mark.parametrize("version", VERSIONS)
def test_a_whole_shoe_from_a_batch_shuffler_and_pedals_of_the_version(tmp_path: Path, version: int) -> None:
    """``station demo``: the shuffler, shoe and board in the simulated table's process and the
    pedals in the station's, all built to ``version``, deal a whole eight-deck shoe."""
    config = (REPO / "config" / "examples" / "batch-shuffler.toml").read_text()
    config = config.replace('url = "sim:"', f'url = "sim:?protocol_version={version}"')
    path = tmp_path / "station.toml"
    path.write_text(config)
    run = subprocess.run([sys.executable, "-m", "station", "demo", "-c", str(path), "--shoes", "1", "--fast",
                          "--json", "-v"], capture_output=True, text=True, timeout=240, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    out = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert out[-2]["type"] == "shoe_end" and out[-2]["rounds"] >= 70
    logged = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    versions = {e["device"]: e["protocol_version"] for e in logged
                if e.get("event") == "device_connected" and "protocol_version" in e}
    assert versions == {"shoe": version, "shuffler": version, "display": version, "pedals": version}
    assert [e for e in logged if e.get("event") in ("display_command_failed", "device_link_fault")] == []
