"""Rigs for the contract suite: every device over its simulator, and over real hardware when the
environment names it.

* ``sim`` - the simulator in this process: a serial device over a pty, the pedals behind the
  simulated pyusb backend (the real pyusb code path runs either way);
* ``remote`` - the pedals' simulator served on a Unix socket, as a simulator in another
  process is reached, over ``usb-sim:///socket`` (the forwarding backend, real socket I/O);
* ``hardware`` - a real device, when ``STATION_CONTRACT_<DEVICE>_URL`` names it (for the
  pedals also ``STATION_USB_PEDALS``, e.g. ``1209:0001`` or ``usb://1209:0001?serial=PED-0001``).
  Checks that need someone to press a pedal, draw a card or pull a cable also need
  ``STATION_CONTRACT_INTERACTIVE=1`` and ``pytest -s``: they print what to do and wait. Checks
  that break a device on purpose run on simulators only.

Run it against one device, e.g.::

    STATION_CONTRACT_SHOE_URL=/dev/serial/by-id/usb-ACME_Shoe-if00 \\
        .venv/bin/python -m pytest tests/devices -k "shoe and hardware"
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.devices.contract import Device

from .rigs import RIGS, EventLog, Rig, rig_id, started_rig


@pytest.fixture(params=RIGS, ids=rig_id)
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    """Every device, every way (test modules about one transport narrow it)."""
    yield from started_rig(*request.param)


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def make_device(rig: Rig, events: EventLog) -> Iterator[Callable[..., Device]]:
    """Build (and start) the rig's driver with the suite's fast options; all stopped at the end."""
    made: list[Device] = []

    def make(start: bool = True, **options: Any) -> Device:
        device = rig.driver(events, **options)
        made.append(device)
        if start:
            device.start(10.0)
        return device

    yield make
    for device in made:
        device.stop()


@pytest.fixture
def device(rig: Rig, make_device: Callable[..., Device]) -> Device:
    """The rig's device, started and connected."""
    started = make_device()
    assert started.connected, f"could not connect to the {rig.device} at {rig.endpoint}"
    return started
