"""Which device a diagnostic talks to, whether it may, and a driver session to do it with.

A technician names a device the way the configuration does (``shoe``) or points at it
directly (``--url /dev/serial/by-id/... --kind shoe``). Either way the diagnostic uses the
very driver the service uses: the one-device driver set is built by
:func:`station.service.devices.build_devices` from a configuration section holding only that
device, and nothing here knows how any driver is constructed. A ``sim:`` device gets its
simulator started here, with the options the simulation plug-in would give it
(:func:`drivers.simulators.simulator_options`), and its endpoint handed to
``build_devices``; the session stops it after the driver.

Before any byte is sent, :func:`check_free` asks the service holder lock whether the
running service holds the device or a round is live (``station.service.holder``).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.devices.contract import Device
from station.config.devices import DeviceSection, DevicesSection
from station.events import DeviceFault, Event
from station.service.devices import SIM, DeviceSet, build_devices
from station.service.holder import read_holders, refuse_if_held

KINDS: tuple[str, ...] = ("shoe", "shuffler", "display", "buttonbox", "pedals", "sign", "chipreader")


class DiagError(Exception):
    """A diagnostic that cannot go on: one line for the technician, and an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Target:
    """One device to diagnose: the name it goes by, its kind (which driver) and its section."""

    name: str
    kind: str
    section: DeviceSection
    configured: bool  # named from the configuration rather than given by --url

    @property
    def url(self) -> str:
        return self.section.url

    @property
    def simulated(self) -> bool:
        return self.section.url.startswith(SIM)


def resolve_target(
    devices: DevicesSection | None,
    name: str | None,
    url: str | None,
    kind: str | None,
    default_kind: str | None = None,
    baudrate: int | None = None,
) -> Target:
    """Turn the command line into a :class:`Target`; errors say what to type instead."""
    if url:
        chosen = kind or name or default_kind
        if chosen not in KINDS:
            raise DiagError(f"with --url, say what the device is: --kind {'|'.join(KINDS)}", 2)
        if name and kind and name != kind and name in KINDS:
            raise DiagError(f"device {name!r} and --kind {kind!r} disagree; give one of them", 2)
        section = DeviceSection(url=url, baudrate=baudrate or 115_200)
        return Target(chosen, chosen, section, configured=False)
    wanted = name or default_kind
    if wanted is None:
        raise DiagError(
            "name a configured device (shoe, shuffler, display, pedals, buttonbox, sign, chipreader) or give --url "
            "and --kind", 2
        )
    if wanted not in KINDS:
        names = [n for n, _ in devices.configured()] if devices is not None else []
        named = f"the configuration names {', '.join(names)}" if names else "the configuration names no device"
        raise DiagError(f"unknown device {wanted!r}: {named} (or give --url URL --kind {'|'.join(KINDS)})", 2)
    if devices is None:
        raise DiagError("no configuration to find the device in; give --url URL --kind KIND", 2)
    section = getattr(devices, wanted)
    if section is None:
        present = ", ".join(n for n, _ in devices.configured()) or "none"
        raise DiagError(
            f"no [devices.{wanted}] in the configuration (configured: {present}); give --url URL --kind {wanted}", 2
        )
    if baudrate is not None:
        section = DeviceSection(url=section.url, baudrate=baudrate, options=section.options)
    return Target(wanted, wanted, section, configured=True)


def _same_port(a: str, b: str) -> bool:
    """Two spellings of one port: a by-id link and the tty it points to are the same device."""
    if a == b:
        return True
    if a.startswith("/") and b.startswith("/"):
        return os.path.realpath(a) == os.path.realpath(b)
    return False


def check_free(target: Target, directory: Path | None = None, journal: Path | None = None) -> None:
    """Raise :class:`~station.service.holder.DeviceBusy` if a station holds it, or a round is
    live on this table (the station writing ``journal``; None: any station counts).

    A device given by ``--url`` is matched against the held devices by port (a by-id link
    and the tty it resolves to count as one), so a bench device on another port is not
    refused just because it is of the same kind as one the service uses.
    """
    if target.configured:
        refuse_if_held(target.name, target.url, directory, journal)
        return
    held_name = next((n for info in read_holders(directory) for n, u in info.devices.items()
                      if u != SIM and _same_port(u, target.url)), None)
    refuse_if_held(held_name or target.url, target.url, directory, journal)


class EventSink:
    """The ``emit`` the driver is given: every event kept, queued, and handed on to a listener.

    A frame tap may put a note (a string, e.g. about a corrupt report) on the same queue, so
    a reader sees notes and events in the order they happened.
    """

    def __init__(self, listener: Callable[[Event], None] | None = None) -> None:
        self.events: list[Event] = []
        self.queue: queue.Queue[Event | str] = queue.Queue()
        self._lock = threading.Lock()
        self._listener = listener

    def __call__(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)
        self.queue.put(event)
        if self._listener is not None:
            self._listener(event)

    def last_fault(self) -> DeviceFault | None:
        with self._lock:
            faults = [e for e in self.events if isinstance(e, DeviceFault)]
        return faults[-1] if faults else None


@dataclass
class Session:
    """A started driver for one target (and the simulator behind it, for ``sim:``)."""

    target: Target
    driver: Device
    url: str  # where the driver actually connects (the simulator's pty for sim:)
    sink: EventSink
    device_set: DeviceSet = field(repr=False)

    def where(self) -> str:
        if self.target.simulated:
            return f"{self.target.name} (simulated: started its simulator at {self.url})"
        return f"{self.target.name} at {self.url}"


def start_simulator_for(target: Target) -> Any:
    """The simulator behind a ``sim:`` target, started as the simulation plug-in would start it."""
    from drivers.simulators import simulator_options, start_simulator

    try:
        return start_simulator(target.kind, simulator_options(target.kind, target.section.options, target.url))
    except (ValueError, TypeError, OSError) as exc:  # bad options in the URL, a simulator that cannot start
        raise DiagError(f"{target.name}: cannot set up {target.url}: {exc}", 2) from None


def build_one(target: Target, sink: EventSink, endpoint: Any = None) -> tuple[DeviceSet, Device]:
    """Build (not start) the service's driver for one device, opened at ``endpoint`` if given."""
    only = {k: None for k in KINDS if k != target.kind}
    section = DevicesSection(**only, **{target.kind: target.section})
    try:
        device_set = build_devices(section, sink, endpoints=None if endpoint is None else {target.kind: endpoint})
    except (ValueError, OSError) as exc:  # a malformed pedal locator
        raise DiagError(f"{target.name}: cannot set up {target.url}: {exc}", 2) from None
    return device_set, device_set.drivers[target.kind]


@contextmanager
def open_session(
    target: Target,
    sink: EventSink | None = None,
    *,
    wait: float = 5.0,
    before_start: Callable[[Device], None] | None = None,
) -> Iterator[Session]:
    """Start the driver, wait for its handshake, and always stop it (and any simulator) after.

    ``before_start`` runs on the built driver before it opens the port, so a monitor's tap
    sees the handshake too. A device that does not answer within ``wait`` seconds raises
    :class:`DiagError` with the driver's own reason (port missing, no answer, wrong device).
    """
    sink = sink or EventSink()
    simulator = start_simulator_for(target) if target.simulated else None
    try:
        device_set, driver = build_one(target, sink, None if simulator is None else simulator.endpoint)
        try:
            if before_start is not None:
                before_start(driver)
            driver.start(wait)  # the pedals return once their first connection attempt is over
            if driver.refused is not None:  # it answered, in a protocol version the station does not speak
                raise DiagError(f"{target.name} at {device_set.urls[target.kind]}: {driver.refused}")
            if not driver.connected:
                fault = sink.last_fault()
                reason = fault.reason if fault is not None else "no answer to the handshake"
                raise DiagError(f"{target.name} at {device_set.urls[target.kind]} is not reachable: {reason}")
            yield Session(target, driver, device_set.urls[target.kind], sink, device_set)
        finally:
            device_set.stop()
    finally:
        if simulator is not None:
            simulator.stop()
