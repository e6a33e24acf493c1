"""Guard tests of the drivers, twenty-fourth set (the ``drivers`` mutation guard, docs/testing.md): a
protocol's message table through its constructor, and the USB pedals on the simulated pyusb bus.

Each test answers a mutant that survived the guard's tests:

* two messages of one protocol never share a type code: a protocol given a second message with a
  code already taken (by one of its own messages or by a common one) is refused, naming both, and
  never quietly keeps only the later one (``drivers/codec/protocol.py``, ``Protocol.__init__``);
* each loss of reports in the unit is logged with the number lost in that gap alone, not with the
  running total of the connection: a second gap of two reports is logged as two, while the
  driver's ``stats.lost`` adds them up (``drivers/devices/pedals.py``, ``_handle_report``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import pytest
from structlog.testing import capture_logs

from drivers.codec.fields import U8
from drivers.codec.protocol import COMMON_MESSAGES, Message, Protocol
from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.locator import simulated_locator
from tests.devices.rigs import EventLog

from .helpers import WAIT

FAST_BACKOFF = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)
_CURRENT = max(cls.newest_part() for cls in COMMON_MESSAGES)


# --- a protocol's message table -----------------------------------------------------------------


@dataclass(frozen=True)
class _Alpha(Message):
    """A message of the test's own with the code 0x86."""

    TYPE: ClassVar[int] = 0x86
    value: Annotated[int, U8] = 0


@dataclass(frozen=True)
class _Beta(Message):
    """Another message of the test's own, given the same code 0x86 by mistake."""

    TYPE: ClassVar[int] = 0x86
    value: Annotated[int, U8] = 0


def test_two_messages_of_one_protocol_with_one_type_code_are_refused_naming_both() -> None:
    with pytest.raises(TypeError, match=r"^test: type 0x86 used by _Alpha and _Beta$"):
        Protocol("test", [_Alpha, _Beta], current=_CURRENT)
    assert Protocol("test", [_Alpha], current=_CURRENT).by_type[0x86] is _Alpha  # alone it is welcome


def test_a_message_taking_a_common_message_s_type_code_is_refused() -> None:
    common = COMMON_MESSAGES[0]

    @dataclass(frozen=True)
    class _Clash(Message):
        """A device message given the code of a common message."""

        TYPE: ClassVar[int] = common.TYPE

    with pytest.raises(TypeError, match=f"used by {common.WIRE_NAME} and _Clash$"):
        Protocol("test", [_Clash], current=_CURRENT)


# --- the USB pedals -----------------------------------------------------------------------------


def test_each_gap_of_lost_reports_is_logged_with_its_own_count(drivers: list[PedalDriver]) -> None:
    """Two gaps of two reports each: two log lines of 2 each, and stats.lost of 4 in all."""
    events = EventLog()
    pedal = SimulatedPedal("PED-SIM-0001", timed_long_press=False)
    with capture_logs() as logs:
        driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0001"), events,
                             backoff=FAST_BACKOFF, read_timeout_ms=50)
        drivers.append(driver)
        assert driver.start(WAIT)
        pedal.click("centre")  # the first report of a connection sets the sequence baseline
        pedal.drop_next(2)  # a whole press (DOWN and UP) never leaves the unit
        pedal.click("left")
        pedal.click("right")
        assert events.wait_presses(2) == [("centre", False), ("right", False)]
        pedal.drop_next(2)  # a second press lost, after the first loss was counted
        pedal.click("left")
        pedal.click("centre")
        assert events.wait_presses(3) == [("centre", False), ("right", False), ("centre", False)]
        assert pedal.wait_drained(WAIT)
    lost: list[tuple[Any, Any]] = [(entry["count"], entry["log_level"]) for entry in logs
                                   if entry["event"] == "pedals.reports_lost"]
    assert lost == [(2, "warning"), (2, "warning")]
    assert driver.stats.lost == 4
