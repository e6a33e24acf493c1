"""The driver table as a factory, and ``sim:`` options: a simulator is started by whoever wants
it, and the unchanged driver opens its endpoint."""

from __future__ import annotations

import pytest

from drivers.devices import DisplayDriver, PedalDriver, ShoeDriver
from drivers.factory import configured_driver, create_driver
from drivers.simulators import start_simulator
from drivers.simulators.options import parse_sim_url, simulator_options
from station import events as ev

from .helpers import FAST, WAIT, Recorder


def test_sim_url_options_are_typed() -> None:
    assert parse_sim_url("sim:") == {}
    assert parse_sim_url("sim:?decks=6&seed=7&transport=socket&ack-timeout=0.05") == {
        "decks": 6, "seed": 7, "transport": "socket", "ack_timeout": 0.05,
    }
    with pytest.raises(ValueError):
        parse_sim_url("/dev/ttyUSB0")


def test_simulator_options_layer_table_facts_then_section_then_url() -> None:
    table = {"shuffler": {"mode": "continuous", "decks": 6, "seed": 1}}
    options = simulator_options("shuffler", {"decks": 8, "step_delay": 0.0}, "sim:?seed=9", table)
    assert options == {"name": "shuffler", "mode": "continuous", "decks": 8, "step_delay": 0.0, "seed": 9}


def test_a_sim_url_starts_a_simulator_the_unchanged_driver_opens_and_its_starter_stops() -> None:
    rec = Recorder()
    running = start_simulator("shoe", parse_sim_url("sim:?ack_timeout=0.05"))
    try:
        driver = create_driver("shoe", "shoe", running.endpoint, rec, settings=FAST)
        assert isinstance(driver, ShoeDriver)
        try:
            assert driver.start(WAIT)
            running.simulator.load_shuffled(8, seed=5, cut_position=400)
            card = running.simulator.draw()
            assert rec.wait_kind(ev.CardDrawn)[0].card == card
        finally:
            driver.stop()
        assert running.simulator.port.plugged  # a driver never stops a simulator
    finally:
        running.stop()
    assert not running.simulator.port.plugged


def test_create_driver_for_hardware_does_not_open_until_started(tmp_path) -> None:
    driver = create_driver("display", "board", str(tmp_path / "nothing"), Recorder())
    assert isinstance(driver, DisplayDriver) and not driver.connected
    with pytest.raises(ValueError):
        create_driver("toaster", "t", "sim:", Recorder())


def test_every_device_is_built_the_same_way_from_its_configuration(tmp_path) -> None:
    shoe = configured_driver("shoe", "shoe", str(tmp_path / "shoe"), Recorder(), baudrate=9600)
    assert isinstance(shoe, ShoeDriver)
    assert shoe.link.transport.baudrate == 9600  # type: ignore[attr-defined]  # a path url: a serial port
    pedals = configured_driver("pedals", "pedals", "usb://1209:0001?serial=PED-1", Recorder(), baudrate=9600)
    assert isinstance(pedals, PedalDriver) and pedals.locator.serial == "PED-1"
