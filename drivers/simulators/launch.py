"""Starting a simulated device: one function for all of them, whatever their transport.

``start_simulator(kind, options)`` starts the simulator of a ``shoe``, ``shuffler``,
``display``, ``buttonbox``, ``sign`` (the progressive sign) or ``chipreader`` (the RFID chip
reader) on a pseudo-terminal (or a TCP socket), or simulated USB ``pedals`` behind a simulated
pyusb backend (in this process, or served on a Unix socket), and returns a
:class:`RunningSimulator`: its ``endpoint`` is what a driver opens
(``station.service.devices.build_devices(..., endpoints={kind: running.endpoint})``), its
``simulator`` is the device to script and break, and ``stop()`` ends it. Whoever starts a
simulator stops it: drivers never own one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from drivers.devices.contract import DeviceEndpoint
from drivers.simulators.base import SimulatedDevice
from drivers.simulators.buttonbox import ButtonBoxSimulator
from drivers.simulators.chipreader import ChipReaderSimulator
from drivers.simulators.display import DisplaySimulator
from drivers.simulators.shoe import ShoeSimulator
from drivers.simulators.shuffler import ShufflerSimulator
from drivers.simulators.sign import SignSimulator

SERIAL_SIMULATORS: dict[str, type[SimulatedDevice]] = {
    "shoe": ShoeSimulator,
    "shuffler": ShufflerSimulator,
    "display": DisplaySimulator,
    "buttonbox": ButtonBoxSimulator,
    "sign": SignSimulator,
    "chipreader": ChipReaderSimulator,
}


class RunningSimulator:
    """A started simulator: hand ``endpoint`` to the driver, script ``simulator``, ``stop()`` at the end."""

    def __init__(self, kind: str, simulator: Any, endpoint: DeviceEndpoint, stop: Callable[[], None]) -> None:
        self.kind = kind
        #: The simulated device: a :class:`~drivers.simulators.base.SimulatedDevice` subclass, or a
        #: :class:`~drivers.simulators.pedals.device.SimulatedPedal`.
        self.simulator = simulator
        #: Where a driver opens it: a pty path or ``socket://`` URL, or a pedal locator.
        self.endpoint = endpoint
        self._stop = stop

    def stop(self) -> None:
        self._stop()

    def __enter__(self) -> RunningSimulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningSimulator({self.kind!r}, endpoint={str(self.endpoint)!r})"

    @property
    def url(self) -> str:
        """The endpoint as text: for a configuration file, a message, another process."""
        return str(self.endpoint)



def start_simulator(kind: str, options: Mapping[str, Any] | None = None, /, **more: Any) -> RunningSimulator:
    """Start the simulator of ``kind`` with ``options`` (and keyword options, which win).

    Serial devices take ``transport`` ("pty", the default, or "socket"), ``name``, ``serial``,
    ``firmware``, ``ack_timeout``, ``directory`` (for the pty symlink), ``tcp_port`` and their
    own options (listed on each class). The pedals take ``transport`` ("in-process", the
    default: the endpoint is a locator carrying the simulated backend; or "socket": served on
    a Unix socket, the endpoint a ``usb-sim://`` URL), ``name``, ``directory``, ``socket``
    (the socket's path) and the unit's options (``serial``, ``buttons``, ``firmware``,
    ``long_press_ms``, ``timed_long_press``, ``kernel_driver``, ``seed``, ``protocol_version``).
    With ``hid="footswitch"`` the pedals are a commodity foot switch instead
    (:mod:`drivers.simulators.footswitch`): ``keys`` (key name -> button), and ``uinput`` (true:
    a real virtual device made through /dev/uinput, which must exist; otherwise the stand-in).
    """
    merged = {**(options or {}), **more}
    if kind == "pedals" and merged.get("hid") == "footswitch":
        return _start_footswitch(merged)
    if kind == "pedals":
        return _start_pedals(merged)
    if kind == "cardreader":
        from drivers.simulators.cardreader import StandInCardReader

        if merged.keys() - {"name", "directory"}:
            raise ValueError(f"a simulated card reader takes no options, not {', '.join(sorted(merged))}")
        reader = StandInCardReader()
        return RunningSimulator("cardreader", reader, reader.locator(), lambda: None)
    try:
        cls = SERIAL_SIMULATORS[kind]
    except KeyError:
        raise ValueError(f"unknown simulator {kind!r}; choose from {sorted([*SERIAL_SIMULATORS, 'pedals'])}") from None
    device = cls(**merged)
    device.start()
    return RunningSimulator(kind, device, device.url, device.stop)


def _start_footswitch(options: dict[str, Any]) -> RunningSimulator:
    """A commodity foot switch: a real uinput device where asked (and possible), else the stand-in."""
    from drivers.simulators.footswitch import StandInFootSwitch, UInputFootSwitch

    keys = options.get("keys") or None
    unknown = set(options) - {"hid", "keys", "uinput", "name", "directory"}
    if unknown:
        raise ValueError(f"a simulated foot switch takes keys and uinput, not {', '.join(sorted(unknown))}")
    if options.get("uinput"):
        switch = UInputFootSwitch(keys)
        return RunningSimulator("pedals", switch, switch.url(), switch.close)
    stand_in = StandInFootSwitch(keys)
    return RunningSimulator("pedals", stand_in, stand_in.locator(), lambda: None)


#: What the pedals' launcher takes besides the simulated unit's own options (``hid="footswitch"``
#: and ``uinput`` ask for a simulated commodity foot switch instead).
PEDAL_LAUNCH_OPTIONS = ("transport", "name", "directory", "socket", "hid", "uinput")


def _start_pedals(options: dict[str, Any]) -> RunningSimulator:
    """A pedal unit on a simulated USB bus of its own; pyusb is imported only when one is wanted."""
    from drivers.simulators.pedals.backend import SimulatedBackend
    from drivers.simulators.pedals.device import SimulatedPedal
    from drivers.usb.locator import simulated_locator

    transport = options.pop("transport", "in-process")
    name = str(options.pop("name", "pedals"))
    directory = options.pop("directory", None)
    socket_path = options.pop("socket", None)
    if isinstance(options.get("buttons"), str):  # from a sim: URL, "left,right"
        options["buttons"] = tuple(b.strip() for b in options["buttons"].split(",") if b.strip())
    elif "buttons" in options:
        options["buttons"] = tuple(options["buttons"])
    if transport not in ("in-process", "socket"):
        raise ValueError(f"transport must be 'in-process' or 'socket', not {transport!r}")
    pedal = SimulatedPedal(**options)
    backend = SimulatedBackend([pedal])
    if transport == "in-process":
        return RunningSimulator("pedals", pedal, simulated_locator(backend, serial=pedal.serial), lambda: None)
    from drivers.simulators.pedals.server import PedalSimServer

    own_directory = socket_path is None and directory is None
    if socket_path is None:
        directory = directory or tempfile.mkdtemp(prefix="station-sim-")
        socket_path = os.path.join(directory, f"{name}.sock")
    server = PedalSimServer(str(socket_path), backend).start()

    def stop() -> None:
        server.stop()
        if own_directory and directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    return RunningSimulator("pedals", pedal, f"{server.url}?serial={pedal.serial}", stop)
