"""The pit-ready scoreboard in a real headless Chromium (issue 13): money as players read it
for currencies with and without cents, shoe and round numbers, B/P/T percentages, cards left,
the derived roads at half the Big Road's cell, the last result highlighted, banners in the
players' words, and Casino War's last round and history strip. One screenshot per layout goes
to ``tests/artifacts/``."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import parse_card
from station.games.war.board import WarBoxView, WarRoundView
from station.roads.rules import build_roads
from station.web import Limit, Snapshot, TableInfo
from station.web.server import ScoreboardServer

from ..browser import ARTIFACTS, BROWSER_MARKS, dealt_rounds

WAIT_MS = 10_000

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")

EUR = TableInfo(
    "Mini Baccarat 4", variant="mini", currency="EUR", decimals=2,
    limits=(Limit("Table", 1000, 500_000), Limit("Tie", 500, 50_000), Limit("Pairs", 500, 25_000)),
)
JPY = TableInfo("Baccarat 8", variant="midi", currency="JPY", decimals=0,
                limits=(Limit("Table", 1000, 500_000), Limit("Tie", 1000, 100_000)))


def show(page: Any, server: ScoreboardServer, snapshot: Snapshot) -> None:
    seq = server.publish(snapshot)
    page.wait_for_function(f"document.body.dataset.seq === '{seq}'", timeout=WAIT_MS)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def test_baccarat_pit_screen(browser: Any, server: ScoreboardServer) -> None:
    rounds = dealt_rounds(seed=13, count=40)
    roads = build_roads(rounds)
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(server.url)
    show(page, server, Snapshot(EUR, "betting", roads, rounds[-1], shoe=3, round_no=41, last_round_no=40,
                                cards_left=333))

    # Money from minor units, with the currency, 2 digits.
    limits = page.eval_on_selector_all(
        ".limit", "ls => ls.map(l => [l.dataset.name, l.querySelector('.range').innerText])"
    )
    assert limits == [["Table", "10.00 – 5,000.00 EUR"], ["Tie", "5.00 – 500.00 EUR"], ["Pairs", "5.00 – 250.00 EUR"]]
    # Shoe and round, cards left, the round of the result shown.
    assert page.inner_text("#shoe-no") == "3" and page.inner_text("#round-no") == "41"
    assert page.inner_text("#cards-left") == "333"
    assert page.inner_text("#result-round").upper() == "ROUND 40"
    # B/P/T percentages of the shoe's rounds, rounded half up.
    stats = roads.stats
    for side, count in (("banker", stats.banker), ("player", stats.player), ("tie", stats.tie)):
        assert page.inner_text(f"#pct-{side}") == f"{(200 * count + stats.rounds) // (2 * stats.rounds)}%"
    # The derived roads at half the Big Road's cell: twice the history in the same width.
    big = int(page.get_attribute('.road[data-road="big_road"]', "data-cell"))
    for road in ("big_eye_boy", "small_road", "cockroach_pig"):
        assert int(page.get_attribute(f'.road[data-road="{road}"]', "data-cell")) == big // 2
    assert big >= 40  # readable from 3 m on a 1080p screen
    # The last result is highlighted on the bead plate and the Big Road.
    latest = page.eval_on_selector_all(".road .mark.latest", "ms => ms.map(m => [m.parentElement.dataset.road, "
                                       "+m.dataset.col, +m.dataset.row])")
    bead_last, big_last = roads.bead_plate[-1], roads.big_road[-1]
    assert ["bead_plate", bead_last.col, bead_last.row] in latest
    assert ["big_road", big_last.col, big_last.row] in latest
    assert page.is_hidden("#banner")
    shot(page, "scoreboard-pit-baccarat.png")

    # A banner in the players' words while the round is held; then taken down.
    show(page, server, Snapshot(EUR, "dealing", roads, rounds[-1], shoe=3, round_no=41, last_round_no=40,
                                cards_left=330, message="Round paused \u2014 please wait", message_kind="alert"))
    assert page.is_visible("#banner") and page.get_attribute("#banner", "data-kind") == "fault"
    assert page.inner_text("#banner").upper() == "ROUND PAUSED \u2014 PLEASE WAIT"
    shot(page, "scoreboard-pit-paused.png")
    show(page, server, Snapshot(EUR, "betting", roads, rounds[-1], shoe=3, round_no=42, last_round_no=40,
                                cards_left=330, message="Round void", message_kind="notice"))
    assert page.get_attribute("#banner", "data-kind") == "notice"
    show(page, server, Snapshot(EUR, "betting", roads, rounds[-1], shoe=3, round_no=42, last_round_no=40,
                                cards_left=330))
    assert page.is_hidden("#banner")
    page.close()


def test_a_currency_without_cents(browser: Any, server: ScoreboardServer) -> None:
    rounds = dealt_rounds(seed=5, count=12)
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(server.url)
    show(page, server, Snapshot(JPY, "betting", build_roads(rounds), rounds[-1], shoe=1, round_no=13,
                                last_round_no=12, cards_left=401))
    limits = page.eval_on_selector_all(".limit .range", "rs => rs.map(r => r.innerText)")
    assert limits == ["1,000 – 500,000 JPY", "1,000 – 100,000 JPY"]
    assert page.inner_text("#cards-left") == "401" and page.inner_text("#round-no") == "13"
    shot(page, "scoreboard-pit-jpy.png")
    page.close()


def test_casino_war_last_round_and_history_strip(browser: Any, server: ScoreboardServer) -> None:
    def box(number: int, code: str, outcome: str, war: str | None = None) -> WarBoxView:
        return WarBoxView(number, parse_card(code), outcome, parse_card(war) if war else None)

    history = [
        WarRoundView(1, parse_card("9S"), (box(1, "KH", "win"), box(3, "4C", "lose"))),
        WarRoundView(2, parse_card("7D"), (box(1, "7C", "war-win", "QS"), box(3, "7S", "surrender")),
                     parse_card("5H")),
        WarRoundView(3, parse_card("QD"), (box(1, "QC", "war-lose", "2S"), box(3, "AH", "win")), parse_card("JH")),
    ]
    war = {
        "rounds": 3,
        "boxes": {"1": ["win", "war-win", "war-lose"], "3": ["lose", "surrender", "win"]},
        "history": [r.to_dict() for r in history],
    }
    table = TableInfo("Casino War 2", game="casino war", currency="EUR", decimals=2,
                      limits=(Limit("Table", 500, 100_000), Limit("Tie", 500, 10_000)))
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(server.url)
    show(page, server, Snapshot(table, "betting", war=war, shoe=1, round_no=4, last_round_no=3, cards_left=389))
    assert page.is_hidden("#baccarat") and page.is_visible("#war")
    assert page.inner_text("#war-round").upper() == "ROUND 3"
    dealer = page.eval_on_selector_all("#war-dealer .card", "cs => cs.map(c => c.dataset.code)")
    assert dealer == ["QD", "JH"]
    boxes = page.eval_on_selector_all(
        "#war-last-boxes .war-hand",
        "hs => hs.map(h => [h.dataset.box, h.dataset.outcome, "
        "[...h.querySelectorAll('.card')].map(c => c.dataset.code)])",
    )
    assert boxes == [["1", "war-lose", ["QC", "2S"]], ["3", "win", ["AH"]]]
    strip = page.eval_on_selector_all(
        "#war-history .war-round",
        "rs => rs.map(r => [+r.dataset.round, r.classList.contains('latest'), "
        "[...r.querySelectorAll('.war-chip')].map(c => c.dataset.outcome)])",
    )
    assert strip == [[1, False, ["win", "lose"]], [2, False, ["war-win", "surrender"]], [3, True, ["war-lose", "win"]]]
    assert page.inner_text("#limits").count("EUR") == 2
    shot(page, "scoreboard-pit-war.png")
    page.close()
