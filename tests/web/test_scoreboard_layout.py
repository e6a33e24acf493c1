"""The scoreboard as players see it at every screen size it is used at (1280x800, 1366x768,
1920x1080, 3840x2160): no text drawn over other text and none cut off (:mod:`tests.layout`),
for each game and variant, with the longest table name the configuration allows and limits
in the millions, a table paused by its supervisor, a shoe gone offline, and a Casino War
board whose boxes have more results than fit.

Each picture is what the station publishes: the table's configuration read by the real
configuration loader, rounds dealt by the real state machine, and the snapshot built by the
real publisher from them (rebuilt from the shoe's results, as after a restart, then the
live outputs of the pause or the fault). Screenshots go to ``tests/artifacts/``
(``scoreboard-layout-<table>-<size>.png``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from station.config.options import core_options
from station.core.machine import TableMachine
from station.events import Actor, DealerAction, DeviceFault, Event, PauseRequested
from station.service.board import TABLE_PAUSED, web_limits
from station.service.config import load_config
from station.service.publisher import SHOWN_OUTPUTS, Publisher, TableView
from station.web import ScoreboardServer, Snapshot, TableInfo

from ..browser import BROWSER_MARKS, screenshot
from ..layout import SCREEN_SIZES, assert_layout_sound
from .test_board_picture import Page
from .test_publisher_boards import play

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")

WAIT_MS = 10_000
#: The longest name ``[station] name`` takes (60 characters).
LONG_NAME = "Salon Privé Mini Baccarat Fourteen — High Limit Room Level 2"
assert len(LONG_NAME) == 60


@dataclass(frozen=True)
class Table:
    """A table as configured, how far its shoe has gone, and what happens then."""

    name: str
    toml: str
    rounds: int
    boxes: tuple[str, ...]
    then: str = ""  # "pause" (the supervisor), "fault" (the shoe goes offline), or nothing


TABLES = [
    Table("baccarat-mini", f'''
[station]
name = "{LONG_NAME}"
[table]
variant = "mini"
currency = "EUR"
chips = [10000, 50000, 100000, 500000]
min_bet = 100000
max_bet = 1000000000
tie_min = 50000
tie_max = 100000000
pair_min = 50000
pair_max = 50000000
''', rounds=72, boxes=("1",)),
    Table("baccarat-midi-paused", f'''
[station]
name = "{LONG_NAME.replace("Mini", "Midi")}"
[table]
variant = "midi"
boxes = 9
currency = "KRW"
minor_digits = 0
chips = [100000, 500000, 1000000]
min_bet = 1000000
max_bet = 1000000000
tie_min = 1000000
tie_max = 100000000
''', rounds=33, boxes=("1",), then="pause"),
    Table("baccarat-full-fault", f'''
[station]
name = "{LONG_NAME.replace("Mini", "Full")}"
[table]
variant = "full"
boxes = 14
players_per_box = 1
currency = "EUR"
min_bet = 2500
max_bet = 2500000
pair_min = 2500
pair_max = 250000
''', rounds=70, boxes=("1",), then="fault"),
    Table("baccarat-side-bets", f'''
[station]
name = "{LONG_NAME}"
[table]
variant = "mini"
currency = "EUR"
min_bet = 1000
max_bet = 500000
tie_min = 500
tie_max = 100000
[table.side_bets.player_pair]
min = 500
max = 20000
[table.side_bets.banker_pair]
min = 500
max = 20000
[table.side_bets.either_pair]
min = 500
max = 20000
[table.side_bets.perfect_pair]
min = 500
max = 10000
[table.side_bets.dragon_bonus_player]
min = 500
max = 50000
[table.side_bets.dragon_bonus_banker]
min = 500
max = 50000
[table.side_bets.dragon_7]
min = 500
max = 10000
[table.side_bets.panda_8]
min = 500
max = 10000
[table.side_bets.progressive]
min = 100
max = 500
[table.progressive]
pool = "natural-pairs"
seed = 1000000
share_bp = 1500
''', rounds=40, boxes=("1",)),
    Table("casino-war", f'''
[station]
name = "{LONG_NAME.replace("Mini Baccarat", "Casino War 7")}"
[table]
game = "war"
boxes = 7
currency = "EUR"
chips = [10000, 50000, 100000]
min_bet = 100000
max_bet = 1000000000
tie_min = 100000
tie_max = 10000000
''', rounds=30, boxes=("1", "2", "3", "4", "5", "6", "7")),
]


def table_info(config: Any, machine: TableMachine) -> TableInfo:
    """What the station tells the page of the table (as ``Station._table_info`` does)."""
    rules, table, t = machine.rules, machine.table, config.table
    limits = web_limits(machine.limits_json, rules.limit_lines(table, machine.payout_option))
    return TableInfo(config.station.name, rules.title, rules.variant_of(table), limits, t.currency, t.minor_digits)


def view_of(machine: TableMachine) -> TableView:
    shoe, current = machine.shoe, machine.round
    number = current.round_id.number if current is not None else shoe.rounds
    return TableView(shoe.number, number, len(shoe.composition) if shoe.composition is not None else None)


def published(table: Table, folder: Path) -> Snapshot:
    """The snapshot the station's publisher makes of ``table`` after its rounds (and its pause
    or fault)."""
    path = folder / f"{table.name}.toml"
    path.write_text(table.toml)
    config = load_config(path).config
    options = core_options(config, path)
    stake = config.table.min_bet
    machine, _ = play(options.game, table.rounds, seed=len(table.name), surrender=True, options=options,
                      boxes=table.boxes, stake=stake)
    page = Page()
    publisher = Publisher(options.game, None, web=page, table_info=table_info(config, machine),
                          initial_results=list(machine.shoe_results), view=lambda: view_of(machine))
    publisher.start()

    def apply(event: Event) -> None:
        machine.apply(event)
        for output in machine.take_outputs():
            if isinstance(output, SHOWN_OUTPUTS):
                publisher.on_output(output)

    try:
        apply(DealerAction("next_round"))
        if table.then == "pause":
            apply(PauseRequested(Actor("supervisor", "sam"), "fill the float"))
        elif table.then == "fault":
            apply(DeviceFault("shoe", "link lost", "link"))
        assert publisher.wait_idle()
    finally:
        publisher.stop()
    return page.snapshots[-1]


@pytest.fixture(scope="module")
def board(browser: Any) -> Iterator[tuple[Any, ScoreboardServer]]:
    """One scoreboard page served by the real server, to be shown each table in turn."""
    server = ScoreboardServer("127.0.0.1", 0).start()
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.goto(server.url)
    try:
        yield page, server
    finally:
        page.close()
        server.stop()


def show_at(page: Any, width: int, height: int) -> None:
    """Resize the window and wait until the page has drawn itself for the new size."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(f"document.body.dataset.drawnFor === '{width}x{height}'", timeout=WAIT_MS)


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_no_text_overlaps_or_is_cut_off_at_any_screen_size(board: Any, table: Table, tmp_path: Path) -> None:
    page, server = board
    snapshot = published(table, tmp_path)
    seq = server.publish(snapshot)
    page.wait_for_function(f"document.body.dataset.seq === '{seq}'", timeout=WAIT_MS)
    for width, height in SCREEN_SIZES:
        show_at(page, width, height)
        screenshot(page, f"scoreboard-layout-{table.name}-{width}x{height}.png")
        assert_layout_sound(page, f"the scoreboard of {table.name}")
        check_what_players_see(page, table, snapshot)


def check_what_players_see(page: Any, table: Table, snapshot: Snapshot) -> None:
    """What the layout must not lose while it fits: every limit, the pause, the newest results."""
    limits = page.eval_on_selector_all(".limit", "ls => ls.map(l => l.innerText.replace(/\\s+/g, ' ').trim())")
    assert len(limits) == len(snapshot.table.limits) >= 2
    assert page.inner_text("#table-name") == snapshot.table.name
    if table.then == "pause":
        assert page.is_visible("#banner") and page.inner_text("#banner").upper() == TABLE_PAUSED.upper()
        assert page.inner_text("#state").upper() == "PLEASE WAIT"
    if table.then == "fault":
        assert page.is_visible("#banner") and page.inner_text("#banner").upper() == "SHOE OFFLINE"
    war = snapshot.to_dict()["war"]
    if war is not None:
        for box, outcomes in war["boxes"].items():
            drawn = page.eval_on_selector_all(f'#war-boxes .war-box[data-box="{box}"] .war-result',
                                              "rs => rs.map(r => r.dataset.outcome)")
            assert 1 <= len(drawn) <= len(outcomes)
            assert drawn == outcomes[-len(drawn):], f"box {box}: the newest results, newest on the right"

