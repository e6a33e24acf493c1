"""The results display board over a pty: every command is ACKed and recorded by the board."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.codec import display as wire
from drivers.codec.protocol import NakCode
from drivers.devices import DeviceRefused, DeviceTimeout, DisplayDriver
from drivers.devices.display import BeadCell, BigRoadCell, Mark, Prediction, WireOutcome
from drivers.simulators import DisplaySimulator, start_simulator
from station import events as ev
from station.cards import parse_cards
from station.games.baccarat.rules import result_of

from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def board(rec: Recorder) -> Iterator[tuple[DisplaySimulator, DisplayDriver]]:
    running = start_simulator("display", ack_timeout=0.05)
    sim: DisplaySimulator = running.simulator
    driver = DisplayDriver("display", sim.url, rec, settings=FAST)
    assert driver.start(WAIT)
    assert sim.wait_idle(WAIT)  # the power-on notice has been delivered
    yield sim, driver
    driver.stop()
    running.stop()


def test_every_command_arrives_decoded_and_in_order(board) -> None:
    sim, display = board
    result = result_of(parse_cards("4H 5C"), parse_cards("4D 4S"))
    display.show_round(result, round_no=12)
    display.show_roads(
        bead_plate=[BeadCell(WireOutcome.PLAYER, natural=True), BeadCell(WireOutcome.TIE, player_pair=True)],
        big_road=[BigRoadCell(0, 0, WireOutcome.PLAYER, ties=1)],
        big_eye_boy=["red", "blue"],
        small_road=[Mark.RED],
        cockroach_pig=[],
        if_banker=Prediction(Mark.BLUE, Mark.RED, Mark.NONE),
        if_player=Prediction(Mark.RED, Mark.BLUE, Mark.NONE),
    )
    display.show_message("Last round of the shoe")
    display.show_limits(10, 5000, tie_min=5, tie_max=500, pair_min=5, pair_max=500, currency="EUR")
    display.show_expected("deal Banker third card")
    display.brightness(40)
    display.clear()
    commands = sim.commands()
    assert [type(c).__name__ for c in commands] == [
        "ShowResult", "ShowRoads", "ShowMessage", "ShowLimits", "ShowExpected", "SetBrightness", "Clear",
    ]
    shown = commands[0]
    assert isinstance(shown, wire.ShowResult)
    assert (shown.round_no, shown.outcome, shown.player_total, shown.banker_total) == (12, WireOutcome.PLAYER, 9, 8)
    assert [c.code for c in shown.player_cards] == ["4H", "5C"] and shown.natural
    roads = commands[1]
    assert isinstance(roads, wire.ShowRoads)
    assert roads.big_eye_boy == (Mark.RED, Mark.BLUE) and roads.if_player.small_road is Mark.BLUE
    assert roads.big_road[0].ties == 1 and roads.bead_plate[1].player_pair
    assert sim.screen.brightness == 40 and sim.screen.result is None  # cleared, brightness kept
    assert display.status().commands_shown == 7


def test_out_of_range_brightness_is_refused(board) -> None:
    _sim, display = board
    with pytest.raises(DeviceRefused) as refused:
        display.brightness(150)
    assert refused.value.code is NakCode.OUT_OF_RANGE


def test_limits_must_be_whole_money_units(board) -> None:
    _, display = board
    with pytest.raises(TypeError):
        display.show_limits(10.5, 100)


def test_lost_ack_is_retransmitted_and_shown_once(board) -> None:
    sim, display = board
    sim.drop_replies(1)
    display.show_message("No more bets")
    assert list(sim.commands()) == [wire.ShowMessage("No more bets")]
    assert sim.stats.duplicate_commands >= 1


def test_corrupted_reply_is_retransmitted(board) -> None:
    sim, display = board
    sim.corrupt_next_frames(1)
    display.show_expected("burn 7 cards")
    assert sim.screen.expected == "burn 7 cards" and display.stats.errors_by_kind["bad_crc"] == 1


def test_a_board_that_does_not_answer_times_out(board) -> None:
    sim, display = board
    sim.drop_replies(10)
    with pytest.raises(DeviceTimeout):
        display.show_message("hello")


def test_panel_fault_is_a_device_fault_and_fails_self_test(board, rec: Recorder) -> None:
    sim, display = board
    assert display.self_test().passed
    sim.panel_fault()
    fault = rec.wait_kind(ev.DeviceFault)[0]
    assert fault.code == "panel_fault"
    assert not display.self_test().passed


def test_board_unplugged_and_back(board, rec: Recorder) -> None:
    sim, display = board
    sim.unplug()
    rec.wait_kind(ev.DeviceFault)
    sim.replug()
    rec.wait_kind(ev.DeviceRecovered)
    assert display.wait_connected(WAIT)
    display.show_message("back")
    assert sim.screen.message == "back"
