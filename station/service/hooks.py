"""What a running station offers its extensions (the simulated table, a demo's report).

Apart from the station (:mod:`station.service.app`) so an extension's reach is written down in
one small place: post events, hear outputs, read the state, watch a device's deliveries, ask for
a stop. Nothing else of the station is theirs (:class:`~station.service.extension.StationHooks`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from station.core import outputs as out
from station.core.loop import CoreLoop
from station.core.machine import TableMachine
from station.events import Event
from station.service.extension import Subscriber

if TYPE_CHECKING:
    from station.service.app import Station

T = TypeVar("T")


class Hooks:
    """The :class:`~station.service.extension.StationHooks` of one station."""

    def __init__(self, station: Station) -> None:
        self._station = station

    def _loop(self) -> CoreLoop:
        assert self._station.loop is not None, "extensions attach after the journal is replayed"
        return self._station.loop

    def post(self, event: Event) -> None:
        self._loop().post(event)

    def subscribe(self, callback: Subscriber, kinds: tuple[type[out.Output], ...] | None = None) -> None:
        self._loop().subscribe(callback, kinds)

    def view(self) -> tuple[str, str]:
        return self._loop().inspect(lambda machine: (machine.state, machine.announced_expectation))

    def inspect(self, read: Callable[[TableMachine], T]) -> T:
        return self._loop().inspect(read)

    def observe_deliveries(self, device: str, callback: Callable[[int], None]) -> bool:
        driver = self._station.devices.get(device) if self._station.devices is not None else None
        if driver is None:
            return False
        driver.observe_deliveries(callback)
        return True

    def request_stop(self, reason: str, *, failed: bool = False) -> None:
        self._station.request_stop(reason, failed=failed)
