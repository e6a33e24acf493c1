"""The scoreboard page in a real headless Chromium, fed snapshots from real dealt rounds.

Needs Debian's ``chromium`` package (``/usr/bin/chromium``) and the ``playwright`` Python
package; Playwright only drives the system browser (no browser download). Screenshots go to
``tests/artifacts/`` for a person to look at.
"""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_card, parse_cards
from station.games.baccarat.rules import result_of
from station.games.war.board import war_round_view
from station.roads.cells import Roads
from station.roads.rules import build_roads
from station.roads.scoreboard import Scoreboard
from station.roads.war_board import WarBoard
from station.web import Limit, ScoreboardServer, Snapshot, TableInfo

from ..browser import ARTIFACTS, BROWSER_MARKS, dealt_rounds

TABLE = TableInfo(
    "Table 12",
    variant="midi",
    limits=(Limit("Banker / Player", 2500, 1000000), Limit("Tie", 500, 100000), Limit("Pairs", 500, 50000)),
    currency="USD",
    decimals=2,
)
RED_RGB = "rgb(255, 59, 59)"
BLUE_RGB = "rgb(61, 139, 255)"
WAIT_MS = 10_000

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")


def open_page(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(url)
    return page


def wait_seq(page: Any, seq: int) -> None:
    """Wait until the page has drawn the snapshot with sequence number ``seq``."""
    page.wait_for_function(f"document.body.dataset.seq === '{seq}'", timeout=WAIT_MS)


def road_marks(page: Any, road: str) -> list[dict[str, Any]]:
    marks: list[dict[str, Any]] = page.eval_on_selector_all(
        f'.road[data-road="{road}"] .mark',
        """marks => marks.map(m => ({
            col: +m.dataset.col, row: +m.dataset.row, result: m.dataset.result || null,
            colour: m.dataset.colour || null, ties: m.dataset.ties ? +m.dataset.ties : null,
            color: getComputedStyle(m).color,
            visible: m.getBoundingClientRect().width > 0,
        }))""",
    )
    return marks


def assert_roads_drawn(page: Any, roads: Roads) -> None:
    bead = road_marks(page, "bead_plate")
    assert [(m["col"], m["row"], m["result"]) for m in bead] == [(c.col, c.row, c.result) for c in roads.bead_plate]
    big = road_marks(page, "big_road")
    assert [(m["col"], m["row"], m["result"], m["ties"]) for m in big] == [
        (c.col, c.row, c.result, c.ties) for c in roads.big_road
    ]
    assert all(m["visible"] for m in bead + big)
    for m in big:
        assert m["color"] == (RED_RGB if m["result"] == "B" else BLUE_RGB)
    for name in ("big_eye_boy", "small_road", "cockroach_pig"):
        marks = road_marks(page, name)
        cells = roads.derived(name)
        assert [(m["col"], m["row"], m["colour"]) for m in marks] == [(c.col, c.row, c.colour) for c in cells], name
        for m in marks:
            assert m["color"] == (RED_RGB if m["colour"] == "red" else BLUE_RGB)
            assert m["visible"]


def test_page_draws_roads_last_result_limits_and_states_from_real_rounds(
    browser: Any, server: ScoreboardServer
) -> None:
    rounds = dealt_rounds(seed=2024, count=32)
    board = Scoreboard(rounds)
    roads = board.roads()
    assert roads == build_roads(rounds)
    assert roads.big_eye_boy and roads.small_road and roads.cockroach_pig
    last = rounds[-1]
    seq = server.publish(Snapshot(TABLE, "betting", roads, last))

    page = open_page(browser, server.url)
    wait_seq(page, seq)  # a new page gets the current snapshot at once, without a new publish
    assert page.get_attribute("#connection", "data-connected") == "true"

    assert_roads_drawn(page, roads)
    assert page.get_attribute('.road[data-road="big_road"]', "data-first-col") == "0"

    # Last result: both hands' cards and totals.
    for side, cards, total in (("player", last.player, last.player_total), ("banker", last.banker, last.banker_total)):
        codes = page.eval_on_selector_all(f"#{side}-cards .card", "cs => cs.map(c => c.dataset.code)")
        assert codes == [card.code for card in cards]
        assert page.inner_text(f"#{side}-total") == str(total)
    assert page.get_attribute("#outcome", "data-outcome") == last.outcome.letter

    # Limits in the table's money, statistics, ask road.
    limits = page.inner_text("#limits")
    assert "25.00 – 10,000.00 USD" in limits and "5.00 – 1,000.00 USD" in limits
    assert page.inner_text("#stat-rounds") == "32"
    assert page.inner_text("#stat-banker") == str(roads.stats.banker)
    assert page.inner_text("#stat-tie") == str(roads.stats.tie)
    for side in ("B", "P"):
        shown = page.eval_on_selector_all(
            f'.ask-row[data-side="{side}"] .mark', "ms => ms.map(m => m.dataset.colour || null)"
        )
        assert shown == list(roads.predictions[side].to_dict().values())

    assert page.get_attribute("#state", "data-state") == "betting"
    assert page.is_hidden("#banner")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "scoreboard-betting.png"))

    # States that must be seen from across the room.
    for state, kind, words in (
        ("shuffling", "shuffling", "SHUFFLING"),
        ("last round", "last round", "LAST ROUND"),
        ("shoe end", "shoe end", "SHOE END"),
        ("fault: card reader lost", "fault", "FAULT: CARD READER LOST"),
    ):
        wait_seq(page, server.publish(Snapshot(TABLE, state, roads, last)))
        assert page.is_visible("#banner")
        assert page.get_attribute("#banner", "data-kind") == kind
        assert page.inner_text("#banner").upper() == words
        if kind == "fault":
            page.screenshot(path=str(ARTIFACTS / "scoreboard-fault.png"))

    # A new result arrives live.
    more = dealt_rounds(seed=2024, count=33)[-1]
    board.add(more)
    seq = server.publish(Snapshot(TABLE, "betting", board.roads(), more))
    wait_seq(page, seq)
    assert_roads_drawn(page, board.roads())
    assert page.is_hidden("#banner")
    page.close()


def test_a_full_shoe_shows_the_newest_columns(browser: Any, server: ScoreboardServer) -> None:
    rounds = dealt_rounds(seed=99, count=72)
    roads = build_roads(rounds)
    page = open_page(browser, server.url)
    wait_seq(page, server.publish(Snapshot(TABLE, "last round", roads, rounds[-1])))
    big = road_marks(page, "big_road")
    first = int(page.get_attribute('.road[data-road="big_road"]', "data-first-col"))
    expected = [(c.col, c.row, c.result) for c in roads.big_road if c.col >= first]
    assert [(m["col"], m["row"], m["result"]) for m in big] == expected
    assert big[-1]["col"] == roads.big_road[-1].col  # the newest result is always on screen
    assert all(m["visible"] for m in big)
    assert page.get_attribute('.road[data-road="big_road"]', "data-count") == str(len(roads.big_road))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "scoreboard-full-shoe.png"))
    page.close()


def test_page_reconnects_after_the_server_restarts(browser: Any) -> None:
    first = ScoreboardServer("127.0.0.1", 0).start()
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    first.publish(Snapshot(TABLE, "betting", build_roads("BPB")))
    page = open_page(browser, first.url)
    wait_seq(page, 1)
    first.stop()
    page.wait_for_function("document.getElementById('connection').dataset.connected === 'false'", timeout=WAIT_MS)

    second = ScoreboardServer("127.0.0.1", port).start()
    try:
        roads = build_roads("BPBBT")
        second.publish(Snapshot(TABLE, "dealing", roads))
        page.wait_for_function("document.getElementById('state').dataset.state === 'dealing'", timeout=WAIT_MS)
        assert page.get_attribute("#connection", "data-connected") == "true"
        assert_roads_drawn(page, roads)
    finally:
        page.close()
        second.stop()


def test_leading_ties_new_shoe_and_casino_war(browser: Any, server: ScoreboardServer) -> None:
    page = open_page(browser, server.url)
    wait_seq(page, server.publish(Snapshot(TABLE, "betting", build_roads("TT"))))
    marks = road_marks(page, "big_road")
    assert [(m["col"], m["row"], m["result"], m["ties"]) for m in marks] == [(0, 0, "T", 2)]

    # Shoe end: the next shoe's snapshot without results clears every road.
    wait_seq(page, server.publish(Snapshot(TABLE, "shuffling")))
    for road in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        assert road_marks(page, road) == []
    assert page.inner_text("#stat-rounds") == "0"
    assert page.eval_on_selector_all("#player-cards .card", "cs => cs.length") == 0

    war = WarBoard([{1: "win", 2: "lose"}, {1: "war-win", 2: "surrender", 5: "tie"}])
    wait_seq(page, server.publish(Snapshot(TableInfo("War 2", game="casino war"), "dealing", war=war)))
    assert page.is_hidden("#baccarat") and page.is_visible("#war")
    boxes = page.eval_on_selector_all(
        ".war-box",
        "bs => bs.map(b => [b.dataset.box, [...b.querySelectorAll('.war-result')].map(r => r.dataset.outcome)])",
    )
    assert boxes == [["1", ["win", "war-win"]], ["2", ["lose", "surrender"]], ["5", ["tie"]]]
    # The last round: box 2's players decided apart (one went to war and won, one surrendered).
    dealt = [(p, parse_card(c)) for p, c in (("box 1", "9S"), ("box 2", "7H"), ("dealer", "7C"), ("war box 2", "KS"),
                                             ("war dealer", "4D"))]
    last = war_round_view(2, dealt, surrendered=["2"])
    assert last is not None
    wait_seq(page, server.publish(Snapshot(TableInfo("War 2", game="casino war"), "dealing",
                                           war={**war.to_dict(), "history": [last.to_dict()]})))
    said = page.eval_on_selector_all("#war-last-boxes .war-hand", "hs => hs.map(h => [h.dataset.box, "
                                     "h.querySelector('.war-result').textContent])")
    assert said == [["1", "WIN"], ["2", "WAR WIN · SURRENDER"]]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "scoreboard-casino-war.png"))
    page.close()


def test_a_dragon_7_and_a_panda_8_are_marked_on_the_bead_plate_and_the_last_result(
    browser: Any, server: ScoreboardServer
) -> None:
    """EZ Baccarat's marks, as its scoreboards draw them: a gold 7 on the bead of a Banker win
    with a three-card 7, a gold 8 on a Player win with a three-card 8, both said in words (the
    bead's label, which a screen reader reads, and the last result's marks)."""
    panda = result_of(parse_cards("2S 3H 3D"), parse_cards("KS 6C"))  # Player 8 of three cards to 6
    dragon = result_of(parse_cards("2S 3H KD"), parse_cards("QD QC 7S"))  # Banker 7 of three cards, a pair
    rounds = [*dealt_rounds(seed=7, count=20), panda, dragon]
    roads = build_roads(rounds)
    page = open_page(browser, server.url)
    wait_seq(page, server.publish(Snapshot(TABLE, "betting", roads, dragon)))
    assert_roads_drawn(page, roads)
    beads = page.eval_on_selector_all(
        '.road[data-road="bead_plate"] .mark',
        """ms => ms.map(m => ({label: m.getAttribute('aria-label'), dragon: m.getAttribute('data-dragon-7') === 'true',
                              panda: m.getAttribute('data-panda-8') === 'true',
                              badges: [...m.querySelectorAll('.ez')].map(b => b.textContent)}))""")
    assert [(b["dragon"], b["panda"]) for b in beads] == [(c.dragon_7, c.panda_8) for c in roads.bead_plate]
    assert beads[-2] == {"label": "Player 8, Panda 8", "dragon": False, "panda": True, "badges": ["8"]}
    assert beads[-1] == {"label": "Banker 7, Banker pair, Dragon 7", "dragon": True, "panda": False, "badges": ["7"]}
    assert all(b["badges"] == [] for b, c in zip(beads, roads.bead_plate, strict=True)
               if not (c.dragon_7 or c.panda_8))
    assert page.get_by_role("img", name="Banker 7, Banker pair, Dragon 7").count() >= 1
    # Each badge is drawn inside its bead, big enough to see.
    inside = page.eval_on_selector_all('.road[data-road="bead_plate"] .mark .ez', """bs => bs.map(b => {
        const r = b.getBoundingClientRect(), m = b.parentElement.getBoundingClientRect();
        return r.width >= 4 && r.left >= m.left - 0.5 && r.right <= m.right + 0.5 && r.top >= m.top - 0.5
            && r.bottom <= m.bottom + 0.5; })""")
    assert inside and all(inside)
    assert page.inner_text("#outcome .marks") == "B PAIR · DRAGON 7"
    wait_seq(page, server.publish(Snapshot(TABLE, "betting", build_roads(rounds[:-1]), panda)))
    assert page.inner_text("#outcome .marks") == "PANDA 8"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "scoreboard-panda-8.png"))
    page.close()
