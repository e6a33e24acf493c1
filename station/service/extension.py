"""The one narrow place where something that is not the station plugs into a running station.

The simulated table and dealer (``station.sim``) and ``station demo``'s report and bounds are
extensions: the service never imports them, and the production path runs without any. An
extension may do exactly four things, the way a virtual bus is just another backend of a
bus library and an extra of a printer host loads by its configuration section:

1. **Device endpoints**: say where a configured device is opened instead of its configured
   URL (a simulated shoe's pseudo-terminal, a simulated pyusb backend for the pedals).
2. **An input source**: post events to the core loop, as any device or the control socket
   does (they are journaled and applied like every other input).
3. **An output subscriber**: hear the core loop's outputs, read-only.
4. **A delivery observer**: learn how many events a device's driver has handed over to the
   core loop (the simulated dealer orders its screen actions after its cards with it).

Plus one way out: ask the station to stop, with a reason (a demo's round limit, a simulated
dealer that cannot go on). It never reaches the state machine, the journal or a driver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from station.core import outputs as out
from station.core.machine import TableMachine
from station.events import Event

T = TypeVar("T")

#: A subscriber of the core loop's outputs, called on the loop's thread; it must not block.
Subscriber = Callable[[out.Output], None]


class StationHooks(Protocol):
    """What a running station offers an extension once its journal is replayed and its
    devices are open. Everything here is safe to call from any thread but :meth:`view` and
    :meth:`inspect`, which read the table's machine: when the extension attaches, or on the core
    loop's thread (in a subscriber)."""

    def post(self, event: Event) -> None:
        """Post an input to the core loop (journaled, then applied, in order)."""

    def subscribe(self, callback: Subscriber, kinds: tuple[type[out.Output], ...] | None = None) -> None:
        """Hear the outputs of the given kinds (all when None), on the core loop's thread."""

    def view(self) -> tuple[str, str]:
        """The state and the expectation as they stand now, where the machine may be read (see
        :meth:`inspect`): a subscriber hears them as of the output it is handed."""

    def inspect(self, read: Callable[[TableMachine], T]) -> T:
        """``read(machine)``, to read only, where the machine may be read: when the extension
        attaches (before the loop runs) or in a subscriber (on the loop's thread); from any
        other thread it raises (station/core/snapshot.py)."""

    def observe_deliveries(self, device: str, callback: Callable[[int], None]) -> bool:
        """Call ``callback(count)`` on the device's reader thread each time its driver has
        handed events to the core loop (``count`` in all). False when there is no such device."""

    def request_stop(self, reason: str, *, failed: bool = False) -> None:
        """Ask the station to stop after the batch in hand (logged with the reason).
        ``failed``: the extension cannot go on (the simulated table ended): ``station run``
        then exits with :attr:`~station.cli.exits.Status.FAILED`, so that systemd starts it
        again and a person sees why, rather than 0 as after a stop that was asked for."""


class StationExtension(Protocol):
    """Something plugged into a station; its four steps run in this order.

    ``prepare`` runs first of all, before the station starts a thread or opens a file, so an
    extension may fork a process there cheaply. ``attach`` runs once the journal is replayed,
    the devices are open and the publisher runs. ``halt`` runs when the station begins to
    stop (stop producing inputs); ``close`` after the devices are stopped (release the rest)."""

    def prepare(self) -> Mapping[str, Any]:
        """Start what must run before the station; return device endpoints by device name."""
        ...

    def attach(self, hooks: StationHooks) -> None:
        """Start the input source, subscribe to outputs, observe deliveries."""
        ...

    def halt(self) -> None:
        """Stop producing inputs; devices an extension serves stay up for the drivers."""
        ...

    def close(self) -> None:
        """Release everything the extension started."""
        ...
