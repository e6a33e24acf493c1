"""What a running station offers its extensions (the simulated table, a demo's report).

Apart from the station (:mod:`station.service.app`) so an extension's reach is written down in
one small place: post events, hear outputs, read the state, watch a device's deliveries, ask for
a stop. Nothing else of the station is theirs (:class:`~station.service.extension.StationHooks`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from station.core import outputs as out
from station.core.machine import TableMachine
from station.core.tap import LoopTap
from station.events import Event
from station.service.extension import Subscriber

T = TypeVar("T")


class Delivering(Protocol):
    """A device driver that can say when the device has taken what it was sent."""

    def observe_deliveries(self, callback: Callable[[int], None]) -> None: ...


class StopRequest(Protocol):
    def __call__(self, reason: str, *, failed: bool = False) -> None: ...


class Hooks:
    """The :class:`~station.service.extension.StationHooks` of one station: its loop (the
    journal replayed), its devices by name, and its way to stop."""

    def __init__(self, loop: LoopTap, device: Callable[[str], Delivering | None], stop: StopRequest) -> None:
        self._core_loop, self._device, self._stop = loop, device, stop

    def _loop(self) -> LoopTap:
        return self._core_loop

    def post(self, event: Event) -> None:
        self._loop().post(event)

    def subscribe(self, callback: Subscriber, kinds: tuple[type[out.Output], ...] | None = None) -> None:
        self._loop().subscribe(callback, kinds)

    def view(self) -> tuple[str, str]:
        return self._loop().inspect(lambda machine: (machine.state, machine.announced_expectation))

    def inspect(self, read: Callable[[TableMachine], T]) -> T:
        return self._loop().inspect(read)

    def observe_deliveries(self, device: str, callback: Callable[[int], None]) -> bool:
        driver = self._device(device)
        if driver is None:
            return False
        driver.observe_deliveries(callback)
        return True

    def request_stop(self, reason: str, *, failed: bool = False) -> None:
        self._stop(reason, failed=failed)
