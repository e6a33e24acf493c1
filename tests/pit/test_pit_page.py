"""The pit page as a pit manager sees it: 20 tables on one real mosquitto, the real
``station pit``, Debian's Chromium.

Four tables are real stations on simulated hardware (``station run`` with [floor] on, each its
own processes, its journal, its outbox): BAC-01 to BAC-03 deal at a quick human pace, BAC-04
deals a shoe in new-deck order, so its integrity monitor raises the alarm ``shoe_unshuffled``
and stops the table while the station stays online. Sixteen more (BAC-05 to BAC-20) come from
two replayer processes publishing a real station's recorded feed (tests/pit/feeds.py): on two
shared CPUs twenty whole stations would be the test's bottleneck, not the page.

Shown, on the page of every table (``?all=1``: the floor has two pits, A and B): 20 tiles in
pit and number order; a real station's result on its tile within 1 s of the round's journal
time; a station killed (SIGKILL) turning its tile offline, in red, within the broker's
keepalive; the alarm in red; nothing under 14 px, the layout sound at 1920x1080 and 3840x2160
(screenshots in tests/artifacts/); an accessible name for every tile and every control; the
floor's page showing the two pits; the pit process talking to nobody but the broker.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from station.cards import Card, Rank, Suit

from ..browser import BROWSER_MARKS, launched_chromium, screenshot
from ..floor.helpers import Broker, Subscriber, check_schemas, floor_config, run_station, station_env
from ..layout import assert_layout_sound
from ..waiting import wait_until
from .helpers import Pictures, PitProcess, pit_config, start_replayer

pytestmark = BROWSER_MARKS
KEEPALIVE_S = 5
REAL = ("BAC-01", "BAC-02", "BAC-03")
ALARMED = "BAC-04"
STACKED = Path(__file__).with_name("stacked_station.py")


def _epoch(journal_time: str) -> float:
    return datetime.fromisoformat(journal_time.replace("Z", "+00:00")).timestamp()


def _new_deck_order_shoe(path: Path) -> Path:
    deck = [Card(rank, suit).code for suit in (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS) for rank in Rank]
    codes = deck * 8
    codes.insert(len(codes) - 15, "CUT")
    path.write_text(" ".join(codes) + "\n")
    return path


def tcp_peers(pid: int) -> set[tuple[str, int, int]]:
    """(remote address, remote port, local port) of every connected TCP socket of ``pid``."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    peers = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if inode in inodes and state == "01":  # ESTABLISHED
                address, port = remote.split(":")
                peers.add((address, int(port, 16), int(local.split(":")[1], 16)))
    return peers


def _tiles(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".tile", "ts => ts.map(t => t.dataset.table)"))


def _tile(page: Any, table: str, what: str) -> Any:
    return page.eval_on_selector(f'.tile[data-table="{table}"]', what)


#: Every control (link, button, field) shown, without an accessible name.
UNNAMED = """() => [...document.querySelectorAll('a, button, input, select, textarea, [role=button], [role=link],'
    + ' [tabindex]')].filter(e => e.getClientRects().length).filter(e => !(e.getAttribute('aria-label')
    || e.textContent.trim() || e.title || (e.labels && e.labels.length))).map(e => e.outerHTML)"""


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", css)[:3])


WATCH_RESULTS = """
table => {
  window.seenResults = [];
  const tile = document.querySelector(`.tile[data-table="${table}"]`);
  const note = () => {
    const round = tile.querySelector('.outcome')?.dataset.round;
    if (round && !window.seenResults.some(r => r.round === round)) window.seenResults.push({round, at: Date.now()});
  };
  new MutationObserver(note).observe(tile, {childList: true, subtree: true});
  note();
}
"""


def test_a_pit_of_twenty_tables(broker: Broker, recorded_journal: Path, tmp_path: Path,
                                processes: list[subprocess.Popen[Any]]) -> None:
    page_process = PitProcess(pit_config(tmp_path / "pit.toml", broker.url, title="Pit test"), tmp_path / "pit.log")
    page_process.start()
    feed = Subscriber(broker.port, "dealing-station/+/+", client_id="pit-test-watch", persistent=False)
    stream = Pictures(page_process.url)
    try:
        for first in (5, 13):
            processes.append(start_replayer(recorded_journal, broker.url, first=first, tables=8, round_s=10,
                                            log=tmp_path / f"replay-{first}.log"))
        stations: dict[str, subprocess.Popen[Any]] = {}
        for number, table in enumerate(REAL, start=1):
            folder = tmp_path / table
            folder.mkdir()
            config = floor_config(folder / "station.toml", broker.url, table=table, pace_ms=400,
                                  extra=f'pit = "A"\nnumber = {number}\nkeepalive_s = {KEEPALIVE_S}')
            stations[table] = run_station(config, folder / "journal.sqlite3", station_env(folder), folder / "log")
            processes.append(stations[table])
        folder = tmp_path / ALARMED
        folder.mkdir()
        config = floor_config(folder / "station.toml", broker.url, table=ALARMED, pace_ms=100,
                              extra=f'pit = "A"\nnumber = 4\nkeepalive_s = {KEEPALIVE_S}')
        with (folder / "log").open("ab") as log:
            processes.append(subprocess.Popen(
                [sys.executable, str(STACKED), str(config), str(folder / "journal.sqlite3"),
                 str(_new_deck_order_shoe(folder / "shoe.txt"))], stdout=log, stderr=subprocess.STDOUT,
                env=station_env(folder)))

        with launched_chromium() as chromium:
            page = chromium.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
            page.goto(page_process.url + "?all=1")
            wanted = [f"BAC-{i:02d}" for i in range(1, 21)]
            wait_until(lambda: _tiles(page) == wanted, 90, "20 tiles in pit and number order", poll=0.25,
                       detail=lambda: f"have {_tiles(page)}")
            assert page.locator(".tile").count() == 20
            assert _tile(page, "BAC-01", "t => t.querySelector('.where').textContent") == "A · 1"
            assert _tile(page, "BAC-11", "t => t.querySelector('.where').textContent") == "B · 1"

            # A real station's results reach their tile within 1 s of the round's journal time.
            page.evaluate(WATCH_RESULTS, "BAC-01")
            wait_until(lambda: len(page.evaluate("window.seenResults")) >= 4, 180, "three new results of BAC-01",
                       poll=0.05)
            rounds = {m["round_id"]: m for m in feed.kind("round") if m["table"] == "BAC-01"}
            seen = page.evaluate("window.seenResults")[1:]  # the first was on the tile before the watch began
            delays = [r["at"] / 1000 - _epoch(rounds[r["round"]]["time"]) for r in seen]
            heard = {m.payload["round_id"]: m.at for m in feed.messages if m.topic.endswith("BAC-01/round")}
            print("feed lag", [round(heard[r["round"]] - _epoch(rounds[r["round"]]["time"]), 3) for r in seen])
            print("stream lag", [round(stream.seen[("BAC-01", r["round"])] - _epoch(rounds[r["round"]]["time"]), 3)
                                 for r in seen])
            assert all(0 <= d < 1.0 for d in delays), f"journal time to tile, s: {delays}"

            # The alarm: red, on a station still online.
            alarm = f'.tile[data-table="{ALARMED}"] .chip[data-code="integrity_shoe_unshuffled"]'
            wait_until(lambda: page.locator(alarm).count() == 1, 90, "the integrity alarm on BAC-04's tile", poll=0.05)
            chip = page.locator(alarm)
            red, green, blue = _rgb(chip.evaluate("c => getComputedStyle(c).backgroundColor"))
            assert red > 180 and green < 60 and blue < 80, (red, green, blue)
            assert chip.inner_text().startswith("SHOE UNSHUFFLED")
            assert _tile(page, ALARMED, "t => [t.dataset.status, t.dataset.level]") == ["online", "alarm"]
            border = _rgb(_tile(page, ALARMED, "t => getComputedStyle(t).borderTopColor"))
            assert border[0] > 180 and border[1] < 60, border

            # A station killed: its tile offline, in red, within the broker's keepalive.
            stations["BAC-02"].send_signal(signal.SIGKILL)
            killed = time.monotonic()
            wait_until(lambda: _tile(page, "BAC-02", "t => t.dataset.status") == "offline", KEEPALIVE_S * 1.5,
                       "BAC-02's tile offline", poll=0.05)
            offline_after = time.monotonic() - killed
            assert _tile(page, "BAC-02", "t => t.querySelector('.status').textContent") == "OFFLINE"
            assert _tile(page, "BAC-02", "t => t.querySelector('.chip[data-code=offline]').textContent").startswith(
                "LINK LOST ")
            assert _tile(page, "BAC-02", "t => t.dataset.level") == "alarm"
            print(f"\njournal time to tile: {[round(d, 3) for d in delays]} s; killed to offline {offline_after:.2f} s")

            # Readable from 3 m at 1080p, sound at both sizes a pit's screens have.
            assert page.is_hidden("#pages")  # 20 tables: one screen
            sizes = page.evaluate("""() => [...document.querySelectorAll('.tile *')]
                .filter(e => e.getClientRects().length
                             && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
                .map(e => [parseFloat(getComputedStyle(e).fontSize), e.className, e.textContent,
                           e.closest('.tile').dataset.table])""")
            smallest = min(sizes)
            assert smallest[0] >= 14, f"the smallest text on a tile: {smallest}"
            main = [s for s in sizes if s[1].split()[0] in ("name", "state", "outcome", "hour", "chip-label")]
            assert min(main)[0] >= 20, f"the smallest of the main text: {min(main)}"
            assert_layout_sound(page, "the pit page, 20 tables")
            screenshot(page, "pit-20-tables-1920x1080.png")
            page.set_viewport_size({"width": 3840, "height": 2160})
            wait_until(lambda: page.evaluate("getComputedStyle(document.getElementById('tiles'))"
                                             ".gridTemplateColumns.split(' ').length") == 5, 10, "the 4K layout",
                       poll=0.05)
            assert_layout_sound(page, "the pit page, 20 tables")
            screenshot(page, "pit-20-tables-3840x2160.png")

            # Every control has an accessible name; every tile is a named group.
            assert page.evaluate(UNNAMED) == []
            named = re.compile(r"^Table BAC-04; pit A · 4; online;.*; alarm: SHOE UNSHUFFLED \(shoe 1 is in an ordered")
            assert page.get_by_role("group", name=named).count() == 1

            # The floor's page: its two pits, each a link to its tables; pit A's page links pit B's.
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.goto(page_process.url)
            wait_until(lambda: page.locator(".pit-tile").count() == 2, 30, "pits A and B", poll=0.1)
            alarmed = page.locator('.pit-tile[data-pit="A"] .need[data-table="BAC-04"]')
            wait_until(lambda: alarmed.count() == 1, 10, "BAC-04 on pit A's tile", poll=0.1)
            assert alarmed.locator(".need-label").inner_text() == "SHOE UNSHUFFLED"
            assert page.evaluate(UNNAMED) == []
            page.get_by_role("link", name="Open pit A").click()
            wait_until(lambda: _tiles(page) == wanted[:10], 30, "pit A's ten tiles", poll=0.1)
            assert page.get_by_role("link", name="Show pit B only").count() == 1
            assert page.evaluate(UNNAMED) == []
            page.close()

        # The status messages carry the pit and the number, and every message is the feed's.
        statuses = {m["table"]: m for m in feed.kind("status") if m["table"] in (*REAL, ALARMED)}
        assert {t: (m["pit"], m["number"]) for t, m in statuses.items()} == {
            "BAC-01": ("A", 1), "BAC-02": ("A", 2), "BAC-03": ("A", 3), "BAC-04": ("A", 4)}
        check_schemas([m for m in feed.messages if m.payload.get("table") in (*REAL, ALARMED)])

        # The pit process talks to the broker and to its viewers, nobody else (paho's wake-up
        # pair is a loopback connection of the process to itself).
        pit_port = int(page_process.url.rsplit(":", 1)[1].strip("/"))
        peers = tcp_peers(page_process.pid)
        own = {local for _, _, local in peers}
        outside = {(port, local) for _, port, local in peers if port not in own}
        assert any(port == broker.port for port, _ in outside), outside
        assert all(port == broker.port or local == pit_port for port, local in outside), outside
    finally:
        stream.close()
        feed.close()
        assert page_process.stop() == 0
