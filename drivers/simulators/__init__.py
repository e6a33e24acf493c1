"""Simulated devices speaking the real protocols from the device side, with fault injection.

The serial devices (``shoe``, ``shuffler``, ``display``, ``buttonbox``, ``sign``, ``chipreader``)
run over ptys or TCP sockets; the USB ``pedals`` (``pedals/``) sit on a simulated pyusb bus, in-process
or served on a Unix socket. ``start_simulator(kind, options)`` (``launch.py``) starts any of them and
says where a driver opens it; ``options.py`` merges a ``sim:`` device's options from the
configuration; ``station simulate`` starts one by hand.
"""

from __future__ import annotations

from drivers.simulators.base import SimStats, SimulatedDevice
from drivers.simulators.buttonbox import ButtonBoxSimulator
from drivers.simulators.chipreader import ChipReaderSimulator
from drivers.simulators.display import DisplaySimulator
from drivers.simulators.launch import SERIAL_SIMULATORS, RunningSimulator, start_simulator
from drivers.simulators.options import parse_sim_url, simulator_options
from drivers.simulators.pool import CUT_CARD, CardPool, CutCardMarker, shuffled_shoe
from drivers.simulators.shoe import EmptyShoeError, ShoeSimulator
from drivers.simulators.shuffler import ShufflerSimulator
from drivers.simulators.sign import SignSimulator

SIMULATORS = SERIAL_SIMULATORS  # the serial simulators by kind (the pedals are in pedals/)

__all__ = [
    "CUT_CARD",
    "SERIAL_SIMULATORS",
    "SIMULATORS",
    "ButtonBoxSimulator",
    "CardPool",
    "ChipReaderSimulator",
    "CutCardMarker",
    "DisplaySimulator",
    "EmptyShoeError",
    "RunningSimulator",
    "ShoeSimulator",
    "ShufflerSimulator",
    "SignSimulator",
    "SimStats",
    "SimulatedDevice",
    "parse_sim_url",
    "shuffled_shoe",
    "simulator_options",
    "start_simulator",
]
