"""``sim:`` URLs select an in-process simulator behind the unchanged driver."""

from __future__ import annotations

import pytest

from drivers.devices import DisplayDriver, ShoeDriver
from drivers.factory import create_driver, parse_sim_url
from station import events as ev

from .helpers import FAST, WAIT, Recorder


def test_sim_url_options_are_typed() -> None:
    assert parse_sim_url("sim:") == {}
    assert parse_sim_url("sim:?decks=6&seed=7&transport=socket&ack-timeout=0.05") == {
        "decks": 6, "seed": 7, "transport": "socket", "ack_timeout": 0.05,
    }
    with pytest.raises(ValueError):
        parse_sim_url("/dev/ttyUSB0")


def test_create_driver_with_a_simulator_and_stop_both() -> None:
    rec = Recorder()
    driver = create_driver("shoe", "shoe", "sim:?ack_timeout=0.05", rec, settings=FAST)
    assert isinstance(driver, ShoeDriver)
    try:
        assert driver.start(wait=WAIT)
        driver.simulator.device.load_shuffled(8, seed=5, cut_position=400)
        card = driver.simulator.device.draw()
        assert rec.wait_kind(ev.CardDrawn)[0].card == card  # type: ignore[attr-defined]
    finally:
        driver.stop()
    assert not driver.simulator.device.port.plugged


def test_create_driver_for_hardware_does_not_open_until_started(tmp_path) -> None:
    driver = create_driver("display", "board", str(tmp_path / "nothing"), Recorder())
    assert isinstance(driver, DisplayDriver) and driver.simulator is None
    with pytest.raises(ValueError):
        create_driver("toaster", "t", "sim:", Recorder())
