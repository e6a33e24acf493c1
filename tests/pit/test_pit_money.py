"""The pit page with money, as a pit manager sees it (docs/pit.md, docs/tray.md): twelve tables
on one real mosquitto, the real ``station pit``, Debian's Chromium. BAC-01 is a real station on
simulated hardware whose supervisor counts an opener, rates a player and takes a buy-in on
``station ctl``, then pauses the table and counts its closer and drop; eleven more tables come
from a replayer of a real station's feed (tests/pit/feeds.py).

Shown: the table's limits and average bet, OPEN then CLOSED (not its last state), its drop, win
by inventory and hold, the players rated, the pit's total row; the floor of one pit showing its
tables (no overview of one pit); every tile on one screen without scrolling or pages, nothing
under 14 px, the layout sound at 1280x800 and 1920x1080 (screenshots in tests/artifacts/)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from station.service.control import hash_token, request

from ..browser import BROWSER_MARKS, launched_chromium, screenshot
from ..floor.helpers import Broker, floor_config, run_station, station_env
from ..layout import assert_layout_sound
from ..waiting import wait_until
from .helpers import PitProcess, pit_config, start_replayer

pytestmark = BROWSER_MARKS
TOKEN = "pit-money-supervisor-token"


def _station_config(folder: Path, broker_url: str) -> Path:
    config = floor_config(folder / "station.toml", broker_url, table="BAC-01", pace_ms=150,
                          extra='pit = "A"\nnumber = 1\nkeepalive_s = 5')
    text = config.read_text().replace("[console]\nenabled = true", "[console]\nenabled = false")
    text = text.replace('[[control.users]]\nname = "dana"', f'[[control.users]]\nname = "sue"\nrole = "supervisor"\n'
                                                             f'token_sha256 = "{hash_token(TOKEN)}"\n'
                                                             '[[control.users]]\nname = "dana"', 1)
    config.write_text(text)
    return config


def _tile(page: Any, table: str, selector: str) -> str:
    found = page.locator(f'.tile[data-table="{table}"] {selector}')
    return str(found.first.inner_text()) if found.count() else ""


def test_a_pit_with_money(broker: Broker, recorded_journal: Path, tmp_path: Path,
                          processes: list[subprocess.Popen[Any]]) -> None:
    page_process = PitProcess(pit_config(tmp_path / "pit.toml", broker.url, title="Pit money"), tmp_path / "pit.log")
    page_process.start()
    assert page_process.process is not None
    processes.append(page_process.process)  # stopped with the others, however the test ends
    processes.append(start_replayer(recorded_journal, broker.url, first=2, tables=11, round_s=10, pit_size=12,
                                    log=tmp_path / "replay.log"))
    folder = tmp_path / "BAC-01"
    folder.mkdir()
    env = station_env(folder)
    processes.append(run_station(_station_config(folder, broker.url), folder / "journal.sqlite3", env,
                                 folder / "log"))
    socket = folder / "run" / "control.sock"

    def ctl(command: str, args: dict[str, Any] | None = None) -> Any:
        reply = request(socket, TOKEN, command, args or {})
        assert reply.get("ok"), reply
        return reply.get("result")

    wait_until(lambda: socket.exists() and bool(ctl("status")), 60, "BAC-01's control socket", poll=0.1,
               ignoring=(OSError, AssertionError))
    opener = [[100, 1000], [500, 400], [1000, 200], [2500, 100], [10_000, 40], [50_000, 10]]
    ctl("tray", {"what": "opener", "chips": opener, "witness": "dana"})
    ctl("rate", {"box": "1", "player": "P1", "card": "4000123456789"})
    ctl("buy-in", {"box": "1", "player": "P1", "amount": 100_000})

    with launched_chromium() as chromium:
        page = chromium.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
        page.goto(page_process.url)  # the floor: one pit, so every table
        wait_until(lambda: page.locator(".tile").count() == 12, 90, "twelve tiles", poll=0.25)
        assert page.evaluate("document.body.dataset.view") == "floor-tables"
        wait_until(lambda: _tile(page, "BAC-01", ".status") == "ONLINE" and _tile(page, "BAC-01", ".rated")
                   == "1 rated", 60, "BAC-01 open, with its rated player", poll=0.1)
        assert _tile(page, "BAC-01", ".limits") == "10–5,000"
        wait_until(lambda: _tile(page, "BAC-01", ".avg-bet") not in ("", "—"), 60, "an average bet", poll=0.1)

        # The table's day ends: paused between rounds, the closer counted, the drop entered.
        ctl("unrate", {"box": "1", "player": "P1"})
        ctl("pause", {"reason": "table closes"})
        wait_until(lambda: ctl("status")["state"] == "paused", 60, "BAC-01 paused", poll=0.1)
        house = ctl("status")["tray"]["house"]
        # the buy-in's chips left the tray, and a 1.00 chip went missing
        value = sum(d * n for d, n in opener) + house - 100_000 - 100
        ctl("tray", {"what": "closer", "chips": [[100, value // 100]], "witness": "dana"})
        ctl("drop", {"amount": 100_000, "note": "count room"})
        wait_until(lambda: _tile(page, "BAC-01", ".status") == "CLOSED" and _tile(page, "BAC-01", ".drop") == "1,000",
                   30, "BAC-01 closed, its drop counted", poll=0.1)
        assert _tile(page, "BAC-01", ".state") == "CLOSED"
        win = house - 100  # closer - opener + drop: what the rounds won, less the missing chip
        assert _tile(page, "BAC-01", ".win") == f"{'-' if win < 0 else ''}{abs(win) // 100:,}" + (
            f".{abs(win) % 100:02d}" if abs(win) % 100 else "")
        assert _tile(page, "BAC-01", ".hold") == f"{round(win * 100 / 100_000, 1):g}%"
        chip = '.chip[data-code="integrity_tray_variance"]'
        wait_until(lambda: _tile(page, "BAC-01", chip).startswith("TRAY VARIANCE"), 30,
                   "the tray variance alarm on BAC-01's tile", poll=0.1)
        total = page.locator("#totals .pit-total").first.inner_text()
        assert total.startswith("A: 11 of 12 open · drop 1,000 · win"), total
        label = str(page.locator('.tile[data-table="BAC-01"]').get_attribute("aria-label"))
        assert "; closed;" in label and "paused" not in label.split("warning", maxsplit=1)[0], label
        assert "drop 1,000" in label and "variance -1;" in label and "; 0 rated" in label, label
        assert _tile(page, "BAC-01", ".rated") == ""  # the player left: nobody rated

        for width, height in ((1920, 1080), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)
            assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
            assert page.locator(".tile").count() == 12 and page.is_hidden("#pages")
            small = page.evaluate("""() => [...document.querySelectorAll('.tile *')]
                .filter(e => e.getClientRects().length
                             && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
                .map(e => [parseFloat(getComputedStyle(e).fontSize), e.className, e.textContent])
                .filter(([size]) => size < 14)""")
            assert small == [], small
            assert_layout_sound(page, f"the pit page with money, {width}x{height}")
            screenshot(page, f"pit-money-12-tables-{width}x{height}.png")
