"""The publisher keeps the board's picture as state (issue 13), against the display simulator
over a real pseudo-terminal and the real driver: banners (a supervisor's pause among them)
are raised and taken down by the events that end them, a rebooted board is painted again, a
silent board holds up neither the page nor the publisher, and an idle publisher sleeps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from drivers.codec import display as wire
from drivers.devices import DisplayDriver
from drivers.devices.link import BOOT_RESEND_WINDOW_S, LinkSettings
from drivers.simulators import RunningSimulator, start_simulator
from station.cards import parse_cards
from station.core import outputs as out
from station.core.rounds import RoundId
from station.service.board import PAUSED, TABLE_PAUSED, VOID
from station.service.publisher import Publisher, TableView
from station.web import Snapshot, TableInfo

from ..waiting import stays_false, wait_until

FAST = LinkSettings(reply_timeout=0.2, retries=1, reconnect_initial=0.05, reconnect_max=0.2, heartbeat=0.3)
LIMITS = wire.ShowLimits(1000, 500000, 500, 50000, 0, 0, "EUR", 2)


class Page:
    """A stand-in for the scoreboard's process: keeps what it is published."""

    def __init__(self) -> None:
        self.snapshots: list[Snapshot] = []

    def publish(self, snapshot: Snapshot) -> int:
        self.snapshots.append(snapshot)
        return len(self.snapshots)


class SteppedClock:
    """The display link's clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def publishing(clock: SteppedClock) -> Iterator[tuple[Publisher, RunningSimulator, Page]]:
    """The publisher painting a simulated board (on the stepped clock) and a stand-in page."""
    board = start_simulator("display", ack_timeout=0.05)
    driver = DisplayDriver("display", board.url, lambda event: None, settings=FAST, clock=clock)
    assert driver.start(5)
    page = Page()
    publisher = Publisher("baccarat", driver, web=page, table_info=TableInfo("T", currency="EUR", decimals=2),
                          limits=LIMITS, view=lambda: TableView(1, 3, 400))
    publisher.start()
    yield publisher, board, page
    publisher.stop()
    driver.stop()
    board.stop()


def result(round_no: int) -> out.RoundSettled:
    player, banker = tuple(parse_cards("4H 5C")), tuple(parse_cards("KD 7S"))
    return out.RoundSettled(RoundId(1, round_no), "baccarat", (("player", player), ("banker", banker)),
                            (("player", 9), ("banker", 7)), "player", True, False, False, (), 0)


def test_banners_come_down_with_the_event_that_ends_them(publishing: Any) -> None:
    publisher, board, page = publishing
    screen = lambda: board.simulator.screen  # noqa: E731
    steps: list[tuple[out.Output, str]] = [
        (out.IrregularityRaised(1, "card_when_stand", "8S drawn when the rules say stand", "1-3",
                                ("burn", "dummy", "void")), PAUSED),
        (out.IrregularityResolved(1, "card_when_stand", "burn", "supervisor", "sam"), ""),
        (out.DeviceFaulted("shoe", "link lost"), "Shoe offline"),
        (out.IrregularityRaised(2, "device_fault", "shoe lost", "1-3", ("resume", "void")), "Shoe offline"),
        (out.DeviceBack("shoe"), PAUSED),
        (out.RoundVoided(RoundId(1, 3), "supervisor", ()), VOID),
        (out.StateChanged("betting", "paying"), ""),
        (out.StateChanged("paused", "betting"), TABLE_PAUSED),  # a supervisor's pause between rounds
        (out.StateChanged("betting", "paused"), ""),  # resumed
        (out.DeviceFaulted("pedals", "unplugged"), ""),  # the dealer's business, not the players'
    ]
    def showing(banner: str) -> bool:
        return bool(screen().message == banner)

    for output, banner in steps:
        publisher.on_output(output)
        assert publisher.wait_idle()
        # The publisher has sent it; the board's process shows it once it has read the frame.
        wait_until(partial(showing, banner), 10, f"the board's banner {banner!r} after {output}",
                   detail=lambda: screen().message)
        assert page.snapshots[-1].message == banner
        if banner == TABLE_PAUSED:  # players are told to wait, as a notice: nothing has gone wrong
            assert (page.snapshots[-1].state, page.snapshots[-1].message_kind) == ("paused", "notice")
    assert page.snapshots[-1].message_kind == ""
    texts = [m.text for m in board.simulator.commands(wire.ShowMessage)]
    assert not any("SUPERVISOR" in t.upper() for t in texts)


def test_a_rebooted_board_is_painted_again_with_everything(publishing: Any, clock: SteppedClock) -> None:
    publisher, board, _ = publishing
    publisher.on_output(out.ExpectationChanged("place your bets"))
    publisher.on_output(result(3))
    publisher.on_output(out.IrregularityRaised(1, "supervisor_called", "called", "1-4", ("resume",)))
    assert publisher.wait_idle()
    clock.step(BOOT_RESEND_WINDOW_S + 0.1)  # past the window in which a Boot with the last one's SEQ is its resend
    board.simulator.reboot()
    screen = lambda: board.simulator.screen  # noqa: E731
    wait_until(lambda: screen().limits == LIMITS and screen().result is not None and screen().roads is not None
               and screen().expected == "place your bets" and screen().message == PAUSED, 1.0,
               "the whole picture painted again", poll=0.01)
    assert screen().result.round_no == 3 and len(screen().roads.bead_plate) == 1
    assert publisher.repaints >= 2  # at start, and after the Boot


def test_a_silent_board_holds_up_neither_the_page_nor_the_table(publishing: Any) -> None:
    publisher, board, page = publishing
    assert publisher.wait_idle()
    board.simulator.mute(True)
    before = len(page.snapshots)
    started = time.monotonic()
    publisher.on_output(result(1))  # on_output only queues: it returns at once
    assert time.monotonic() - started < 0.05
    wait_until(lambda: len(page.snapshots) > before, 1.0, "the page's picture", poll=0.01)
    for number in (2, 3):
        publisher.on_output(result(number))
    wait_until(lambda: page.snapshots[-1].last_round_no == 3, 3.0, "round 3 on the page", poll=0.01)
    board.simulator.mute(False)
    wait_until(lambda: board.simulator.screen.result is not None and board.simulator.screen.result.round_no == 3,
               10.0, "round 3 on the board once it answers again", poll=0.01)


def test_an_idle_publisher_sleeps(publishing: Any) -> None:
    publisher, _, _ = publishing
    publisher.on_output(out.ExpectationChanged("place your bets"))
    assert publisher.wait_idle()
    # Once the board has taken the picture, nothing is left to send: the worker waits for the
    # next output (before the board's answer a resend may still be due).
    wait_until(lambda: publisher._until_due() is None, 10, "the board to have taken the picture")
    repaints = publisher.repaints
    # Something due with nothing new is a worker that spins. On a loaded machine the board's
    # link may time out and come back meanwhile: a whole repaint is then due, rightly.
    stays_false(lambda: publisher._until_due() is not None and not publisher._repaint
                and publisher.repaints == repaints, 0.2, "the idle publisher found something due")
