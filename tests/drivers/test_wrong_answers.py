"""A device that answers a command with the wrong kind of message (firmware with a bug,
another device behind the port) is refused, never taken for the answer the driver asked for:
each driver against its simulator on a pseudo-terminal, the simulator told to answer wrongly
once (``answer_wrongly``). And a different unit or firmware behind the same port is said."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import structlog

from drivers.codec import buttonbox as box_wire
from drivers.codec import shoe as shoe_wire
from drivers.codec import shuffler as shuffler_wire
from drivers.codec.protocol import Ack, IdentityReport
from drivers.devices import ButtonBoxDriver, ShoeDriver, ShufflerDriver
from drivers.devices.errors import DeviceProtocolError
from drivers.simulators import start_simulator
from station.events import DeviceRecovered

from .helpers import FAST, WAIT, Recorder


@pytest.fixture
def started(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any, Recorder]]:
    """(driver, simulator, what the driver emitted) of ``request.param``'s device, started."""
    kind, driver_class = request.param
    emitted = Recorder()
    with start_simulator(kind, ack_timeout=0.05) as running:
        driver = driver_class(kind, running.url, emitted, settings=FAST)
        try:
            assert driver.start(WAIT)
            yield driver, running.simulator, emitted
        finally:
            driver.stop()


@pytest.mark.parametrize("started", [("shoe", ShoeDriver)], indirect=True)
def test_a_status_answered_by_an_ack_is_refused(started: tuple[ShoeDriver, Any, Recorder]) -> None:
    driver, simulator, _ = started
    simulator.answer_wrongly(shoe_wire.ShoeGetStatus, Ack())
    with pytest.raises(DeviceProtocolError, match="expected ShoeStatus, device answered Ack"):
        driver.status()
    assert driver.status() is not None  # the next answer is right again


@pytest.mark.parametrize("started", [("shuffler", ShufflerDriver)], indirect=True)
def test_a_shuffle_answered_by_a_status_did_not_start(started: tuple[ShufflerDriver, Any, Recorder]) -> None:
    driver, simulator, _ = started
    report = shuffler_wire.StatusReport(shuffler_wire.WireShufflerState.IDLE, 0, shuffler_wire.ShufflerMode.BATCH,
                                        "red", 0)
    simulator.answer_wrongly(shuffler_wire.StartShuffle, report)
    with pytest.raises(DeviceProtocolError, match="StartShuffle answered by"):
        driver.start_shuffle()


@pytest.mark.parametrize("started", [("buttonbox", ButtonBoxDriver)], indirect=True)
def test_a_long_press_setting_answered_by_a_status_is_not_taken_as_set(
        started: tuple[ButtonBoxDriver, Any, Recorder]) -> None:
    driver, simulator, _ = started
    simulator.answer_wrongly(box_wire.SetLongPress, box_wire.BoxStatus(4, (), 800))
    with pytest.raises(DeviceProtocolError, match="SetLongPress answered by"):
        driver.set_long_press(1200)


@pytest.mark.parametrize("started", [("shoe", ShoeDriver)], indirect=True)
def test_another_unit_behind_the_same_port_is_said_and_the_same_one_is_not(
        started: tuple[ShoeDriver, Any, Recorder]) -> None:
    _, simulator, emitted = started
    first: IdentityReport = simulator.identity
    with structlog.testing.capture_logs() as logged:
        simulator.power_cycle()  # the same unit comes back
        emitted.wait_kind(DeviceRecovered, 1)
    assert not [e for e in logged if e["event"] == "device_identity_changed"], logged
    simulator.identity = IdentityReport(first.model, "SN-OTHER", first.firmware, first.protocol_version)
    with structlog.testing.capture_logs() as logged:
        simulator.power_cycle()
        emitted.wait_kind(DeviceRecovered, 2)
    changed = [e for e in logged if e["event"] == "device_identity_changed"]
    assert len(changed) == 1 and "SN-OTHER" in changed[0]["after"], logged
