"""The web scoreboard served by a real ``station run``, in a real headless Chromium, while the
test deals rounds through the simulated shoe: the page shows what was dealt, live, a
supervisor's pause and a lost shoe in the players' words."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from typing import Any

import pytest

from ..browser import ARTIFACTS, BROWSER_MARKS
from ..layout import assert_layout_sound
from .conftest import SUPERVISOR_TOKEN

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def settled_rounds(table: Any) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config", str(table.config)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return [r for r in json.loads(out.stdout) if r.get("result")]  # not the round still open


def test_page_follows_the_rounds_dealt_at_the_table(external_table: Any, browser: Any) -> None:
    port = free_port()
    table = external_table(web_port=port)
    table.start_station()
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_function("document.querySelector('#connection').dataset.connected === 'true'", timeout=10_000)

    table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-16")
    rounds = settled_rounds(table)
    assert len(rounds) == 15
    page.wait_for_function("document.querySelector('#stat-rounds').innerText === '15'", timeout=10_000)

    letters = [{"banker": "B", "player": "P", "tie": "T"}[r["result"]["outcome"]] for r in rounds]
    bead = page.eval_on_selector_all('.road[data-road="bead_plate"] .mark', "ms => ms.map(m => m.dataset.result)")
    assert bead == letters
    big = page.eval_on_selector_all('.road[data-road="big_road"] .mark', "ms => ms.map(m => m.dataset.result)")
    assert big == [x for x in letters if x != "T"]
    last = rounds[-1]["result"]
    for side in ("player", "banker"):
        codes = page.eval_on_selector_all(f"#{side}-cards .card", "cs => cs.map(c => c.dataset.code)")
        assert codes == last[side]
    assert page.get_attribute("#outcome", "data-outcome") == letters[-1]
    limits = page.inner_text("#limits")
    assert "1,000" in limits or "10.00" in limits or "500" in limits

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "station-scoreboard-live.png"), full_page=True)
    assert_layout_sound(page, "the live scoreboard")

    # The supervisor pauses the table between rounds: players are told to wait until resumed.
    table.ctl("pause", {"reason": "fill the float"}, token=SUPERVISOR_TOKEN)
    page.wait_for_function("document.querySelector('#banner').dataset.kind === 'notice'", timeout=15_000)
    assert page.inner_text("#banner").upper() == "TABLE PAUSED \u2014 PLEASE WAIT"
    assert page.inner_text("#state").upper() == "PLEASE WAIT"
    page.screenshot(path=str(ARTIFACTS / "station-scoreboard-paused.png"), full_page=True)
    table.ctl("resume", token=SUPERVISOR_TOKEN)
    page.wait_for_function("document.querySelector('#banner').hidden", timeout=15_000)

    # A fault is shown at once: the shoe is unplugged mid-round.
    table.play_until(lambda s: s["state"] == "dealing")
    table.shoe.simulator.unplug()
    page.wait_for_function("document.querySelector('#banner').dataset.kind === 'fault'", timeout=15_000)
    assert page.inner_text("#banner").upper() == "SHOE OFFLINE"  # in the players' words
    page.screenshot(path=str(ARTIFACTS / "station-scoreboard-fault.png"), full_page=True)
    table.shoe.simulator.replug()
    table.stop_station()
