"""Every card exactly once, in order, through a random mix of line faults and unplugs.

The default run deals a short shoe under a seeded fault schedule; the soak version deals
thousands of cards (``pytest -m soak``).
"""

from __future__ import annotations

import random

import pytest

from drivers.devices import ShoeDriver
from drivers.simulators import ShoeSimulator, start_simulator
from drivers.simulators.pool import shuffled_shoe
from drivers.transport import list_ports
from station import events as ev
from station.cards import Card

from .helpers import FAST, WAIT, Recorder


def deal_through_faults(cards: int, seed: int) -> None:
    rng = random.Random(seed)
    running = start_simulator("shoe", ack_timeout=0.03)
    sim: ShoeSimulator = running.simulator
    rec = Recorder()
    driver = ShoeDriver("shoe", sim.url, rec, settings=FAST)
    try:
        assert driver.start(WAIT)
        order = [c for c in shuffled_shoe(8, seed) if isinstance(c, Card)][:cards]
        sim.load(order)
        faults = {"garbage": 0, "corrupt": 0, "lost_ack": 0, "unplug": 0}
        for _ in order:
            roll = rng.random()
            if roll < 0.05:
                faults["garbage"] += 1
                sim.inject_garbage(rng.randbytes(rng.randint(1, 40)))
            elif roll < 0.10:
                faults["corrupt"] += 1
                sim.corrupt_next_frames(rng.randint(1, 2))
            elif roll < 0.15:
                faults["lost_ack"] += 1
                sim.ignore_acks(rng.randint(1, 2))
            elif roll < 0.18:
                faults["unplug"] += 1
                sim.unplug()
                rec.wait_kind(ev.DeviceFault, faults["unplug"])
                drawn_while_out = rng.random() < 0.5
                if drawn_while_out:
                    sim.draw()  # the dealer goes on while the cable is out
                sim.replug()
                rec.wait_kind(ev.DeviceRecovered, faults["unplug"])
                if drawn_while_out:
                    continue
            sim.draw()
        assert sim.wait_idle(WAIT * 3)
        got = [e.card for e in rec.of(ev.CardDrawn)]
        assert got == order
        assert len(rec.of(ev.DeviceFault)) == len(rec.of(ev.DeviceRecovered)) == faults["unplug"]
        assert all(faults.values()), f"the schedule must exercise every fault: {faults}"
    finally:
        driver.stop()
        running.stop()


@pytest.mark.parametrize("seed", [1, 2])
def test_cards_arrive_exactly_once_through_random_faults(seed: int) -> None:
    deal_through_faults(cards=120, seed=seed)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(5))
def test_soak_exactly_once(seed: int) -> None:
    deal_through_faults(cards=416, seed=100 + seed)


def test_list_ports_describes_each_port() -> None:
    ports = list_ports()
    assert isinstance(ports, list)
    for port in ports:
        assert port.device.startswith("/dev/") and isinstance(port.by_id, tuple)
