"""What a version-1 display board is sent for what version 1 does not have (drivers/devices/display_v1.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.codec import Message
from drivers.codec import display as wire
from drivers.devices.display_v1 import BoardV1, limits_v1
from station.cards import parse_card

WAR = wire.ShowWarResult(
    8, parse_card("7D"),
    (wire.WarBox(2, parse_card("7C"), wire.WarBoxOutcome.WAR_WIN, (parse_card("QS"),)),
     wire.WarBox(4, parse_card("7S"), wire.WarBoxOutcome.SURRENDER),
     wire.WarBox(5, parse_card("AD"), wire.WarBoxOutcome.WIN),
     wire.WarBox(6, parse_card("3C"), wire.WarBoxOutcome.LOSE)),
    (parse_card("5H"),),
)
LINE = "Round 8 · Dealer 7D, war 5H · Win: box 5 · Lose: box 6 · War won: box 2 · Surrender: box 4"


def test_limits_go_in_whole_units_never_wider_than_the_table() -> None:
    v1 = limits_v1(wire.ShowLimits(1050, 499999, 500, 50000, 0, 0, "EUR", 2))
    assert (v1.table_min, v1.table_max, v1.tie_min, v1.tie_max, v1.pair_min, v1.pair_max) == (11, 4999, 5, 500, 0, 0)
    assert v1.currency == "EUR" and v1.minor_digits == 0
    assert limits_v1(wire.ShowLimits(1000, 500000, currency="JPY", minor_digits=0)).table_max == 500000


@given(st.integers(0, 10**9), st.integers(0, 10**9), st.integers(0, 4))
def test_the_whole_unit_limits_lie_inside_the_real_ones(low: int, high: int, digits: int) -> None:
    v1 = limits_v1(wire.ShowLimits(low, high, minor_digits=digits))
    unit = 10**digits
    assert v1.table_min * unit >= low and v1.table_min * unit - low < unit
    assert v1.table_max * unit <= high and high - v1.table_max * unit < unit


def test_a_casino_war_round_is_one_banner_line_grouped_by_outcome() -> None:
    assert wire.war_banner_line(WAR) == LINE
    boxes = tuple(wire.WarBox(n, parse_card("AD"), wire.WarBoxOutcome(1 + n % 6), ()) for n in range(1, 15))
    line = wire.war_banner_line(wire.ShowWarResult(999_999, parse_card("KS"), boxes, (parse_card("QS"),)))
    assert len(line.encode()) <= 255 and "box" in line


def test_the_banner_is_shared_by_the_war_line_and_the_station_s_notices() -> None:
    board = BoardV1()

    def send(message: Message) -> list[Message]:
        out = board.translate(message)
        for m in out:
            board.sent(m, True)
        return out

    assert send(WAR) == [wire.ShowMessage(LINE)]
    assert send(wire.ShowMessage("Shoe offline")) == [wire.ShowMessage("Shoe offline")]
    assert send(wire.ShowMessage("")) == [wire.ShowMessage(LINE)]  # the notice down: the round again
    assert send(wire.ShowMessage("")) == []  # nothing new to show
    result = wire.ShowResult(9, wire.WireOutcome.TIE, 5, 5, tuple(parse_card(c) for c in ("2S", "3S")),
                             tuple(parse_card(c) for c in ("2H", "3H")))
    assert send(result) == [result, wire.ShowMessage("")]  # a baccarat result replaces the war line
    assert send(WAR) == [wire.ShowMessage(LINE)]
    assert send(wire.Clear()) == [wire.Clear()]
    assert send(wire.ShowMessage("")) == []  # Clear left the banner blank


def test_a_banner_that_did_not_reach_the_board_is_sent_again() -> None:
    board = BoardV1()
    [line] = board.translate(WAR)
    board.sent(line, False)
    assert board.translate(wire.ShowMessage("")) == [wire.ShowMessage(LINE)]


def test_what_version_1_has_passes_as_it_is() -> None:
    board = BoardV1()
    for message in (wire.ShowExpected("deal Banker 3rd card"), wire.SetBrightness(60), wire.DisplayGetStatus()):
        assert board.translate(message) == [message]
