"""Simulated devices speaking the real wire protocols over ptys or TCP sockets.

``start_simulator(kind, **options)`` starts one in-process (for the service when the
configuration asks for simulated hardware, and for tests); ``station simulate`` starts one
by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drivers.simulators.base import SimulatedDevice, SimStats
from drivers.simulators.pool import CUT_CARD, CardPool, CutCardMarker, shuffled_shoe
from drivers.simulators.buttonbox import ButtonBoxSimulator
from drivers.simulators.display import DisplaySimulator
from drivers.simulators.shoe import EmptyShoeError, ShoeSimulator
from drivers.simulators.shuffler import ShufflerSimulator

SIMULATORS: dict[str, type[SimulatedDevice]] = {
    "shoe": ShoeSimulator,
    "shuffler": ShufflerSimulator,
    "display": DisplaySimulator,
    "buttonbox": ButtonBoxSimulator,
}


@dataclass
class RunningSimulator:
    """A started simulator: hand ``url`` to the driver, script ``device``, ``stop()`` at the end."""

    kind: str
    device: SimulatedDevice

    @property
    def url(self) -> str:
        return self.device.url

    def stop(self) -> None:
        self.device.stop()

    def __enter__(self) -> RunningSimulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_simulator(kind: str, **options: Any) -> RunningSimulator:
    """Start a simulated ``shoe``, ``shuffler``, ``display`` or ``buttonbox``.

    Common options: ``transport`` ("pty" or "socket"), ``name``, ``serial``, ``firmware``,
    ``ack_timeout`` (seconds before an unacknowledged event is resent), ``directory``
    (where the pty symlink goes), ``tcp_port``. Device options are listed on each class.
    """
    try:
        cls = SIMULATORS[kind]
    except KeyError:
        raise ValueError(f"unknown simulator {kind!r}; choose from {sorted(SIMULATORS)}") from None
    device = cls(**options)
    device.start()
    return RunningSimulator(kind, device)


__all__ = [
    "ButtonBoxSimulator", "DisplaySimulator", "ShufflerSimulator", "CUT_CARD", "CardPool", "CutCardMarker", "EmptyShoeError", "RunningSimulator", "SIMULATORS",
    "ShoeSimulator", "SimStats", "SimulatedDevice", "shuffled_shoe", "start_simulator",
]
