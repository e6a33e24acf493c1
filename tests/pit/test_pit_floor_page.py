"""The pit page at a whole floor's scale (issue 42): 1,035 tables in 40 pits on one real
mosquitto, the real ``station pit``, Debian's Chromium.

The floor stands still (tests/pit/still_floor.py: every table's retained status and state, its
last rounds and open alerts, published from one MQTT client in about a second, derived from a
real station's recorded feed): 39 pits of 25 tables and pit AN of 60, a few tables in each pit
needing a person (a round stopped, an integrity alarm or alert, a device fault, a pause, the
link lost, a station shut down), every other pit keeping chip trays. Two floors serve the
module (per worker: each a broker, a ``station pit`` and a still floor, module-scoped): the
whole floor, its pages never turning by themselves (``page_seconds = 0``), and a floor of pits
A, B and C whose pages turn every 2 s.

Shown: the floor as one tile per pit (what each pit needs, by name, then "+N more"), a pit of
25 tables on one 1080p screen and in pages at 1280x800, a pit of 60 in pages (next page,
``&page=2``, ``&table=`` opening the page that holds the table and marking it, pages turning by
themselves), a table found by its name leading to its pit; at 1280x800 and 1920x1080 the
layout sound (tests/layout.py) and every text in a tile at least 14 px; the pit links never
over the title with 3 pits or 40; every control named; screenshots in tests/artifacts/. And
the picture protocol as the page keeps it, on crafted streams (Playwright's routing, or a
server of the test's own whose streams stay open): a delta for a version the page does not
hold makes it ask for a whole picture; a floor of fewer than two pits is shown as every table
until a second pit comes; deltas that come together are drawn once, and only the tiles that
changed and are on the page shown are drawn again.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from station.pit.service import PIT_FILES
from station.web.server import SAFE_HEADERS

from ..browser import BROWSER_MARKS, screenshot
from ..floor.helpers import Broker, broker_in
from ..layout import assert_layout_sound
from ..waiting import wait_until
from .feeds import record_feed
from .helpers import PitProcess, pit_config
from .still_floor import StillFloor, pit_names, plan_floor, publish_still_floor

pytestmark = BROWSER_MARKS

PITS = pit_names(40)
BIG = PITS[-1]  # "AN": 60 tables
#: The pits as the page orders them (the board's order: by name, A AA AB .. AN B C .. Z).
IN_ORDER = sorted(PITS, key=lambda p: (p.casefold(), p))
#: The marks of the links to the pit before and the pit after (single angle quotation marks).
BEFORE, AFTER = "\u2039", "\u203a"
SIZES = ((1920, 1080), (1280, 800))


@dataclass
class Floor:
    """A floor on a broker of its own, and the ``station pit`` page serving it at ``url``."""

    broker: Broker
    still: StillFloor
    url: str


def _snapshot(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "snapshot", timeout=5) as answer:
        return dict(json.load(answer))


@contextmanager
def standing_floor(folder: Path, journal: Path, pits: list[tuple[str, int]], extra_pit: str) -> Iterator[Floor]:
    """A broker, ``station pit`` with ``extra_pit`` in its [pit], and a still floor of ``pits``."""
    with broker_in(folder / "broker") as broker:
        page = PitProcess(pit_config(folder / "pit.toml", broker.url, title="Floor", extra_pit=extra_pit),
                          folder / "pit.log")
        try:
            page.start()
            # Rounds and alerts are not retained: the page must be subscribed first.
            wait_until(lambda: _snapshot(page.url)["broker"]["connected"], 30, "the page connected to the broker",
                       poll=0.05)
            plan = plan_floor(pits)
            began = time.monotonic()
            still = publish_still_floor(("127.0.0.1", broker.port), record_feed(journal), plan)
            print(f"\nstill floor: {len(still.tables)} tables, {still.messages} messages in "
                  f"{time.monotonic() - began:.2f} s")
            wait_until(lambda: len(_snapshot(page.url)["tables"]) == len(plan), 30, "every table on the page",
                       poll=0.1)
            yield Floor(broker, still, page.url)
        finally:
            page.stop()


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory, recorded_journal: Path) -> Iterator[Floor]:
    """40 pits, 1,035 tables; the pages never turn by themselves."""
    with standing_floor(tmp_path_factory.mktemp("floor"), recorded_journal,
                        [(pit, 60 if pit == BIG else 25) for pit in PITS], "page_seconds = 0") as standing:
        yield standing


@pytest.fixture(scope="module")
def three_pits(tmp_path_factory: pytest.TempPathFactory, recorded_journal: Path) -> Iterator[Floor]:
    """Pits A, B and C of 25 tables; the pages turn every 2 s."""
    with standing_floor(tmp_path_factory.mktemp("three"), recorded_journal, [(pit, 25) for pit in "ABC"],
                        "page_seconds = 2") as standing:
        yield standing


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page at 1920x1080 (the page's own Content-Security-Policy in force)."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        yield context.new_page()
    finally:
        context.close()


# --- what the tests look at -------------------------------------------------------------------

SMALL_TEXT = """(least) => [...document.querySelectorAll('.tile *, .pit-tile *')]
  .filter(e => e.getClientRects().length && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
  .map(e => [parseFloat(getComputedStyle(e).fontSize), e.className, e.textContent.trim()])
  .filter(([size]) => size < least)"""

UNNAMED = """() => [...document.querySelectorAll('a, button, input, select, textarea, [role=button], [role=link]')]
  .filter(e => e.getClientRects().length)
  .filter(e => !(e.getAttribute('aria-label') || e.textContent.trim() || e.title || (e.labels && e.labels.length)))
  .map(e => e.outerHTML.slice(0, 120))"""

BOXES = """() => ['#title', '#pits a', '#find-box', '#pages', '#clock-box', '#counts']
  .flatMap(s => [...document.querySelectorAll(s)]).filter(e => e.getClientRects().length)
  .map(e => { const r = e.getBoundingClientRect();
              return [e.id || e.textContent.trim(), r.left, r.top, r.right, r.bottom]; })"""


def open_view(page: Any, url: str, *, size: tuple[int, int] = (1920, 1080)) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url)
    wait_until(lambda: page.evaluate("document.body.dataset.version") != "", 20, f"a picture at {url}", poll=0.05)
    settle(page)


def settle(page: Any) -> None:
    """Two animation frames: what the page had to draw is drawn and fitted."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def shown_page(page: Any) -> tuple[int, int]:
    where = page.evaluate("[document.body.dataset.page, document.body.dataset.pages]")
    return int(where[0]), int(where[1])


def tiles(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".tile", "ts => ts.map(t => t.dataset.table)"))


def assert_readable(page: Any, where: str) -> None:
    """The layout sound, every text in a tile at least 14 px, every control named."""
    assert_layout_sound(page, where)
    small = page.evaluate(SMALL_TEXT, 14)
    assert small == [], f"{where}: text under 14 px: {small[:5]}"
    assert page.evaluate(UNNAMED) == [], where


def assert_header_clear(page: Any, where: str) -> None:
    """Nothing in the header drawn over anything else in it, the title above all."""
    boxes = page.evaluate(BOXES)
    for i, (a, *ra) in enumerate(boxes):
        for b, *rb in boxes[i + 1:]:
            width = min(ra[2], rb[2]) - max(ra[0], rb[0])
            height = min(ra[3], rb[3]) - max(ra[1], rb[1])
            assert width <= 1 or height <= 1, f"{where}: {a!r} and {b!r} overlap ({width:.0f}x{height:.0f} px)"


def pit_tile(page: Any, pit: str) -> Any:
    return page.locator(f'.pit-tile[data-pit="{pit}"]')


# --- the floor ----------------------------------------------------------------------------------


def test_the_floor_as_its_forty_pits(floor: Floor, page: Any) -> None:
    open_view(page, floor.url)
    wait_until(lambda: page.locator(".pit-tile").count() == 40, 20, "forty pit tiles", poll=0.05)
    assert page.evaluate("document.body.dataset.view") == "floor"
    assert page.locator(".tile").count() == 0  # not a thousand tiles
    assert page.locator("#pits a").count() == 0  # the pit tiles are the links
    assert page.locator('#counts .count[data-kind="pits"]').inner_text() == "40 pits"
    assert page.locator('#counts .count[data-kind="tables"]').inner_text() == "1,035 tables"

    # Pit A: eight tables need a person, the worst first, as many as fit and then "+N more".
    a = pit_tile(page, "A")
    assert a.get_attribute("data-level") == "alarm"
    assert a.locator(".pit-count").inner_text() == "22 of 25 open"
    assert a.locator(".pit-offline").inner_text() == "2 offline"
    assert a.locator(".pit-alarm").inner_text() == "5 alarms"
    needs = a.locator(".need:not(.more) .need-table").all_inner_texts()
    more = a.locator(".need.more").inner_text()
    assert needs and needs[0] == "BAC-01" and more == f"+{8 - len(needs)} more", (needs, more)
    assert a.locator(".drop").inner_text() != "—" and a.locator(".hold").inner_text().endswith("%")
    named = a.get_attribute("aria-label") or ""
    assert named.startswith("Pit A; 25 tables, 22 open, 23 online, 2 offline"), named
    for table in (f"BAC-{n:02d}" for n in range(1, 9)):
        assert table in named, (table, named)
    # A pit of quiet tables says so; a pit without trays shows no money.
    quiet = pit_tile(page, "AJ")
    assert quiet.locator(".quiet").inner_text() == "no alarms" and quiet.locator(".need").count() == 0
    assert pit_tile(page, "B").locator(".pit-money").count() == 0

    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        wait_until(lambda: page.evaluate("document.getElementById('tiles').dataset.kind") == "pit", 5, "pit tiles")
        settle(page)
        assert_readable(page, "the floor, 40 pits")
        assert_header_clear(page, "the floor, 40 pits")
        pages = shown_page(page)
        shown = page.locator(".pit-tile").count()
        assert shown * pages[1] >= 40 and pages[0] == 1, (shown, pages)
        screenshot(page, f"pit-floor-40-pits-{width}x{height}.png")
    assert shown_page(page)[1] == 2, "40 pits on two pages at 1280x800"

    # A tap on a pit's tile opens the pit.
    page.set_viewport_size({"width": 1920, "height": 1080})
    settle(page)
    page.get_by_role("link", name="Open pit C").click()
    wait_until(lambda: page.evaluate("document.body.dataset.view") == "pit" and len(tiles(page)) == 25, 20,
               "pit C's tables")
    assert page.url.endswith("?pit=C")
    assert tiles(page)[0] == "BAC-51"


def test_a_table_found_by_its_name(floor: Floor, page: Any) -> None:
    open_view(page, floor.url)
    wait_until(lambda: page.locator("#directory option").count() == 1035, 20, "the floor's directory", poll=0.05)
    assert page.locator('#directory option[value="BAC-02"]').get_attribute("data-round")
    field = page.get_by_label("Find a table")
    field.fill("bac-102")
    found = page.locator("#found a")
    wait_until(lambda: found.count() == 8, 5, "eight of BAC-102 and BAC-1020 .. BAC-1029", poll=0.05)
    assert found.first.get_attribute("aria-label") == "Open table BAC-102 in pit E"  # the exact name first
    assert page.locator("#found .found-more").inner_text() == "+3 more"
    assert page.get_by_role("link", name="Open table BAC-1020 in pit AN").count() == 1
    screenshot(page, "pit-floor-search-1920x1080.png")
    field.fill("BAC-1020")
    field.press("Enter")
    # The pit's page that holds the table, the table marked.
    wait_until(lambda: page.locator('.tile.sought[data-table="BAC-1020"]').count() == 1, 20,
               "BAC-1020 marked on its pit's page")
    assert "pit=AN" in page.url and "table=BAC-1020" in page.url
    assert shown_page(page) == (3, 3)  # the 45th of 60 tables, 20 a page at 1080p
    border = page.locator(".tile.sought").evaluate("t => getComputedStyle(t).borderTopColor")
    assert border != page.locator(".tile:not(.sought)").first.evaluate("t => getComputedStyle(t).borderTopColor")


# --- a pit ----------------------------------------------------------------------------------------


def test_a_pit_of_twenty_five_tables(floor: Floor, page: Any) -> None:
    open_view(page, floor.url + "?pit=A")
    wanted = [f"BAC-{n:02d}" for n in range(1, 26)]
    wait_until(lambda: tiles(page) == wanted, 20, "pit A's 25 tables on one screen", poll=0.05,
               detail=lambda: tiles(page))
    assert page.is_hidden("#pages") and shown_page(page) == (1, 1)
    assert page.locator("#title").inner_text() == "Floor · A"
    # The links: every pit, and the pits before and after (A is first: the one before is the last).
    links = page.locator("#pits a").all_inner_texts()
    assert links == ["All pits", f"{BEFORE} {IN_ORDER[-1]}", f"{IN_ORDER[1]} {AFTER}"], links
    assert page.get_by_role("link", name="Show pit AA only").count() == 1
    assert page.locator('#totals .pit-total[data-pit="A"]').inner_text().startswith("A: 22 of 25 open · drop ")
    sizes = page.evaluate("""() => ['name', 'state', 'outcome', 'hour', 'chip-label']
        .map(c => parseFloat(getComputedStyle(document.querySelector('.tile .' + c)).fontSize))""")
    assert min(sizes) >= 17, sizes
    assert_readable(page, "pit A, 25 tables")
    assert_header_clear(page, "pit A, 40 pits on the floor")
    screenshot(page, "pit-25-tables-1920x1080.png")

    page.set_viewport_size({"width": 1280, "height": 800})
    wait_until(lambda: shown_page(page)[1] > 1, 5, "pages at 1280x800")
    settle(page)
    assert page.inner_text("#page-of") == f"page 1 of {shown_page(page)[1]}"
    assert tiles(page)[0] == "BAC-01"
    assert_readable(page, "pit A, 25 tables")
    assert_header_clear(page, "pit A, 40 pits on the floor")
    screenshot(page, "pit-25-tables-page-1-1280x800.png")


def test_a_pit_of_sixty_tables_in_pages(floor: Floor, page: Any) -> None:
    numbers = [t.table for t in floor.still.pit(BIG)]
    open_view(page, floor.url + f"?pit={BIG}", size=(1280, 800))
    wait_until(lambda: tiles(page)[:1] == numbers[:1], 20, "the pit's first page")
    first, count = shown_page(page)
    per = len(tiles(page))
    assert first == 1 and count == -(-60 // per) and page.inner_text("#page-of") == f"page 1 of {count}"
    assert_readable(page, "pit AN, 60 tables, page 1")
    page.get_by_role("button", name="Next page").click()
    wait_until(lambda: tiles(page)[:1] == numbers[per:per + 1], 5, "the next page")
    assert page.inner_text("#page-of") == f"page 2 of {count}"
    page.get_by_role("button", name="Previous page").click()
    wait_until(lambda: shown_page(page)[0] == 1, 5, "the page before")
    page.get_by_role("button", name="Previous page").click()  # from the first, the last
    wait_until(lambda: shown_page(page)[0] == count, 5, "the last page")
    assert tiles(page)[-1] == numbers[-1]

    open_view(page, floor.url + f"?pit={BIG}&page=2", size=(1280, 800))
    wait_until(lambda: tiles(page)[:1] == numbers[per:per + 1], 20, "page 2 from the address")
    assert_readable(page, "pit AN, 60 tables, page 2")
    assert_header_clear(page, "pit AN, page 2")
    screenshot(page, "pit-60-tables-page-2-1280x800.png")

    page.set_viewport_size({"width": 1920, "height": 1080})
    wait_until(lambda: shown_page(page)[1] == 3, 5, "three pages at 1080p")
    settle(page)
    assert shown_page(page) == (2, 3) and tiles(page)[0] == numbers[20]
    assert_readable(page, "pit AN, 60 tables, page 2")
    screenshot(page, "pit-60-tables-page-2-1920x1080.png")


def test_pages_turn_by_themselves(three_pits: Floor, page: Any) -> None:
    open_view(page, three_pits.url + "?pit=A", size=(1280, 800))
    assert shown_page(page) == (1, 3)
    wait_until(lambda: shown_page(page)[0] == 2, 6, "page 2 after [pit] page_seconds (2 s)", poll=0.05)
    wait_until(lambda: shown_page(page)[0] == 3, 6, "page 3", poll=0.05)
    wait_until(lambda: shown_page(page)[0] == 1, 6, "then page 1 again", poll=0.05)
    assert tiles(page)[0] == "BAC-01"


def test_the_pit_links_stay_off_the_title(floor: Floor, three_pits: Floor, page: Any) -> None:
    for url, pits in ((three_pits.url, ["A", "B", "C"]), (floor.url, IN_ORDER)):
        open_view(page, url, size=(1280, 800))
        wait_until(lambda: page.locator(".pit-tile").count() > 0, 20, "the floor's pits")
        assert page.locator("#pits a").count() == 0
        before, after = pits[pits.index("B") - 1], pits[pits.index("B") + 1]
        for size in SIZES:
            open_view(page, url + "?pit=B", size=size)
            wait_until(lambda: len(tiles(page)) > 0, 20, "pit B's tables")
            links = page.locator("#pits a").all_inner_texts()
            assert links == ["All pits", f"{BEFORE} {before}", f"{after} {AFTER}"], links
            assert_header_clear(page, f"pit B of {len(pits)} pits at {size}")
            assert_readable(page, f"pit B of {len(pits)} pits")
        screenshot(page, f"pit-B-of-{len(pits)}-pits-1280x800.png")
    page.get_by_role("link", name=f"Show pit {after} only").click()
    wait_until(lambda: page.locator("#title").inner_text() == f"Floor · {after}", 20, f"pit {after}")
    page.get_by_role("link", name="Show all pits").click()
    wait_until(lambda: page.locator(".pit-tile").count() > 0, 20, "the floor again")


# --- the picture protocol as the page keeps it -------------------------------------------------


def _tile(table: str, pit: str, number: int, state: str = "betting") -> dict[str, Any]:
    return {"table": table, "pit": pit, "number": number, "status": "online", "status_reason": "", "game": "baccarat",
            "state": state, "shoe": 1, "round_id": "1-3", "last": None, "dealer": None, "hour_rounds": 2,
            "hour_since": None, "alarms": [], "gaps": [], "open": None, "limits": [1000, 500000], "drop": None,
            "win": None, "win_by": None, "hold_percent": None, "house": None, "variance": None, "average_bet": None,
            "rated": 0, "currency": "EUR", "digits": 2, "version": 1}


def _head(pits: list[str], tables: int) -> dict[str, Any]:
    return {"title": "Crafted", "timezone": "UTC", "hour": "12:00", "page_seconds": 0, "pits": pits,
            "broker": {"connected": True, "note": "", "since": "12:00:00"},
            "counts": {"tables": tables, "online": tables, "offline": 0, "alarms": 0}, "totals": []}


def _summary(pit: str) -> dict[str, Any]:
    return {"pit": pit, "tables": 1, "online": 1, "offline": 0, "open": 1, "closed": 0, "alarms": 0, "warnings": 0,
            "hour_rounds": 2, "partial": False, "needs": [], "kept": False, "drop": None, "win": None,
            "hold_percent": None, "currency": "EUR", "digits": 2}


def _stream(*events: tuple[str, dict[str, Any]]) -> str:
    """A crafted event stream, with a long retry: the browser's own reconnection (when the
    stream ends) stays out of the count."""
    return "retry: 600000\n\n" + "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in events)


CRAFTED = "http://pit.test/"
STATIC = Path(__file__).resolve().parents[2] / "station" / "pit" / "static"


def _serve(page: Any, answers: list[str]) -> list[str]:
    """The page's own files (with its server's headers: its Content-Security-Policy in force),
    and its event streams answered with ``answers`` in turn, at :data:`CRAFTED`; the addresses
    of the streams asked for."""
    asked: list[str] = []

    def stream(route: Any) -> None:
        asked.append(route.request.url.split("/", 3)[3])
        body = answers[min(len(asked), len(answers)) - 1]
        route.fulfill(status=200, headers={**SAFE_HEADERS, "Content-Type": "text/event-stream"}, body=body)

    def file(route: Any) -> None:
        path = "/" + route.request.url.split("/", 3)[3].split("?")[0]
        if path not in PIT_FILES:
            route.fulfill(status=404, headers=SAFE_HEADERS, body="not found\n")
            return
        name, kind = PIT_FILES[path]
        route.fulfill(status=200, headers={**SAFE_HEADERS, "Content-Type": kind}, body=(STATIC / name).read_bytes())

    page.route(f"{CRAFTED}**", file)
    page.route(f"{CRAFTED}events*", stream)
    return asked


def test_a_gap_asks_for_a_whole_picture(page: Any) -> None:
    pit = {"v": 2, "view": "pit", "pit": "A"}
    asked = _serve(page, [
        _stream(("whole", {**pit, "version": 5, "head": _head(["A", "B"], 1), "tables": [_tile("GAP-01", "A", 1)]}),
                ("delta", {**pit, "base": 7, "version": 8, "tables": [_tile("GAP-09", "A", 9)]})),
        _stream(("whole", {**pit, "version": 9, "head": _head(["A", "B"], 2),
                           "tables": [_tile("GAP-01", "A", 1), _tile("GAP-02", "A", 2, "dealing")]})),
    ])
    page.goto(CRAFTED + "?pit=A")
    wait_until(lambda: page.evaluate("document.body.dataset.version") == "9", 10, "the later whole picture held",
               poll=0.05, detail=lambda: asked)
    settle(page)
    assert asked == ["events?pit=A", "events?pit=A"], asked
    assert tiles(page) == ["GAP-01", "GAP-02"]  # never GAP-09: its delta was for a version not held
    assert page.locator('.tile[data-table="GAP-02"] .state').inner_text() == "DEALING"


class CraftedServer:
    """The page's own files (with its server's headers) and event streams the test writes, on
    a thread: each ``/events`` request is a stream that stays open, numbered in the order the
    page opened them (``asked``: their addresses); ``send(n, ...)`` writes events to stream
    ``n``. Unlike a routed answer, a stream never ends by itself: the page is never told it
    lost the server."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.streams: list[queue.Queue[bytes | None]] = []
        crafted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path == "/events":
                    self._stream()
                    return
                if path not in PIT_FILES:
                    self.send_error(404)
                    return
                name, kind = PIT_FILES[path]
                body = (STATIC / name).read_bytes()
                self.send_response(200)
                for header, value in {**SAFE_HEADERS, "Content-Type": kind, "Content-Length": str(len(body))}.items():
                    self.send_header(header, value)
                self.end_headers()
                self.wfile.write(body)

            def _stream(self) -> None:
                events: queue.Queue[bytes | None] = queue.Queue()
                with lock:
                    crafted.asked.append(self.path)
                    crafted.streams.append(events)
                self.send_response(200)
                for header, value in {**SAFE_HEADERS, "Content-Type": "text/event-stream"}.items():
                    self.send_header(header, value)
                self.end_headers()
                try:
                    self.wfile.write(b"retry: 600000\n\n")
                    self.wfile.flush()
                    while (data := events.get()) is not None:
                        self.wfile.write(data)
                        self.wfile.flush()
                except OSError:
                    return

        lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def send(self, stream: int, *events: tuple[str, dict[str, Any]]) -> None:
        wait_until(lambda: len(self.streams) > stream, 10, f"the page's stream {stream + 1}", poll=0.02,
                   detail=lambda: self.asked)
        self.streams[stream].put("".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n"
                                         for kind, data in events).encode())

    def close(self) -> None:
        for events in self.streams:
            events.put(None)
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def crafted() -> Iterator[CraftedServer]:
    server = CraftedServer()
    try:
        yield server
    finally:
        server.close()


def test_a_floor_of_one_pit_shows_its_tables_until_a_second_pit_comes(crafted: CraftedServer, page: Any) -> None:
    every = {"v": 2, "view": "all", "pit": None}
    floor_view = {"v": 2, "view": "floor", "pit": None}
    page.goto(crafted.url)
    crafted.send(0, ("whole", {**floor_view, "version": 2, "head": _head(["A"], 1), "pits": [_summary("A")],
                               "directory": []}))
    crafted.send(1, ("whole", {**every, "version": 3, "head": _head(["A"], 1), "tables": [_tile("ONE-01", "A", 1)]}))
    wait_until(lambda: tiles(page) == ["ONE-01"], 10, "the one pit's tables", poll=0.05)
    assert page.evaluate("document.body.dataset.view") == "floor-tables"
    assert page.locator("#title").inner_text() == "Crafted · A"
    assert page.locator("#pits a").count() == 0 and page.is_hidden("#find-box")
    crafted.send(1, ("delta", {**every, "base": 3, "version": 4, "head": _head(["A", "B"], 2),
                               "tables": [_tile("ONE-02", "B", 1)], "order": ["ONE-01", "ONE-02"]}))
    crafted.send(2, ("whole", {**floor_view, "version": 5, "head": _head(["A", "B"], 2),
                               "pits": [_summary("A"), _summary("B")], "directory": []}))
    wait_until(lambda: page.locator(".pit-tile").count() == 2, 10, "the floor again, of two pits", poll=0.05)
    assert crafted.asked == ["/events", "/events?all=1", "/events"], crafted.asked
    assert page.evaluate("document.body.dataset.version") == "5"


#: Before the page's own script: counts, per table, how often its tile on the page is drawn again.
COUNT_DRAWS = """
window.drawnAgain = {};
new MutationObserver((records) => {
  for (const record of records) {
    const tile = record.target;
    if (tile.nodeType === 1 && tile.matches('.tile') && record.addedNodes.length) {
      window.drawnAgain[tile.dataset.table] = (window.drawnAgain[tile.dataset.table] || 0) + 1;
    }
  }
}).observe(document, {childList: true, subtree: true});
"""


def test_only_what_changed_and_is_shown_is_drawn_again(crafted: CraftedServer, page: Any) -> None:
    pit = {"v": 2, "view": "pit", "pit": "A"}
    tables = [_tile(f"GAP-{n:02d}", "A", n) for n in range(1, 61)]
    three, fifty = tables[2], tables[49]
    page.add_init_script(script=COUNT_DRAWS)
    page.goto(crafted.url + "?pit=A")
    crafted.send(0, ("whole", {**pit, "version": 1, "head": _head(["A", "B"], 60), "tables": tables}))
    wait_until(lambda: page.evaluate("document.body.dataset.version") == "1", 10, "the whole picture", poll=0.05)
    settle(page)
    settle(page)
    assert shown_page(page) == (1, 3) and "GAP-50" not in tiles(page)
    page.evaluate("window.drawnAgain = {}")
    changes = [[{**three, "state": "dealing", "version": 2}], [{**three, "state": "paying", "version": 3}],
               [{**fifty, "state": "dealing", "version": 2}]]
    crafted.send(0, *[("delta", {**pit, "base": n, "version": n + 1, "tables": changed})
                      for n, changed in enumerate(changes, start=1)],
                 ("delta", {**pit, "base": 4, "version": 5, "head": _head(["A", "B"], 60)}))
    wait_until(lambda: page.evaluate("document.body.dataset.version") == "5", 10, "the deltas applied", poll=0.05)
    settle(page)
    assert page.locator('.tile[data-table="GAP-03"] .state').inner_text() == "PAYING"
    # Three deltas for two tables came together: GAP-03 drawn again once, GAP-50 (on page 3)
    # and the tables that did not change not at all.
    assert page.evaluate("window.drawnAgain") == {"GAP-03": 1}
    page.get_by_role("button", name="Next page").click()
    page.get_by_role("button", name="Next page").click()
    wait_until(lambda: "GAP-50" in tiles(page), 5, "page 3")
    assert page.locator('.tile[data-table="GAP-50"] .state').inner_text() == "DEALING"
    assert crafted.asked == ["/events?pit=A"]
