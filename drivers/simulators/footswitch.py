"""A simulated commodity foot switch: a USB HID keyboard whose pedals send programmed keys.

Two of them, driven by the same calls (``press``, ``release``, ``click``, ``hold``, ``repeat``,
``chatter``, ``unplug``, ``replug``):

* :class:`UInputFootSwitch`: a real virtual input device made with ``evdev.UInput`` where
  ``/dev/uinput`` exists; the kernel gives it an ``/dev/input/eventN`` node, and the driver
  finds, grabs and reads it exactly as it would a foot switch on a USB port (a second reader
  of the node sees nothing while the station holds it).
* :class:`StandInFootSwitch`: where there is no ``/dev/uinput`` (containers, CI), a stand-in
  at python-evdev's ``InputDevice`` boundary. Its :class:`StandInBackend` lists and opens
  nodes; each open is a handle with a real file descriptor to ``select`` on, key events fanned
  out to every open handle unless one has grabbed the device (then only to that one), ``EBUSY``
  for a second grab, ``ENODEV`` on reads once unplugged, and ``PermissionError`` for a node
  the user may not read. Everything above that boundary is the station's real code.

``start_simulator("pedals", hid="footswitch")`` (a ``sim:?hid=footswitch`` pedals device)
starts one (``uinput=true``: the real kind, when /dev/uinput exists) and hands the driver its
locator.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from drivers.input.keys import DEFAULT_KEYS, EV_KEY, key_code
from drivers.input.locator import EvdevLocator

#: PCsensor's FootSwitch (three pedals), one of the units card rooms buy.
VENDOR_ID, PRODUCT_ID = 0x0C45, 0x7403
NAME = "PCsensor FootSwitch"
EV_SYN = 0x00


class DeviceInfo(NamedTuple):
    bustype: int
    vendor: int
    product: int
    version: int


@dataclass(frozen=True)
class KeyEvent:
    """An input event as python-evdev's ``InputEvent`` has it (the fields the driver reads)."""

    type: int
    code: int
    value: int


class FootSwitchBase:
    """What both kinds share: the buttons and the keys they send."""

    def __init__(self, keys: Mapping[str, str] | None = None) -> None:
        self.keys = dict(keys or DEFAULT_KEYS)  # key name -> button
        self._code_of = {button: key_code(name) for name, button in self.keys.items()}
        self.buttons = tuple(self._code_of)

    def code(self, button: str) -> int:
        try:
            return self._code_of[button]
        except KeyError:
            raise ValueError(f"no pedal {button!r}; the pedals are {', '.join(self.buttons)}") from None

    def send(self, code: int, value: int) -> None:
        raise NotImplementedError

    def press(self, button: str) -> None:
        self.send(self.code(button), 1)

    def release(self, button: str) -> None:
        self.send(self.code(button), 0)

    def click(self, button: str) -> None:
        self.press(button)
        self.release(button)

    def repeat(self, button: str, times: int = 5) -> None:
        """The kernel's autorepeat of a held key (value 2), ``times`` times."""
        for _ in range(times):
            self.send(self.code(button), 2)

    def chatter(self, button: str, bounces: int = 3) -> None:
        """A cheap switch closing: down, then up and down again ``bounces`` times at once."""
        code = self.code(button)
        self.send(code, 1)
        for _ in range(bounces):
            self.send(code, 0)
            self.send(code, 1)


# --- the stand-in at the InputDevice boundary -------------------------------------------------


class StandInDevice:
    """One simulated event node: what the kernel keeps for an input device."""

    def __init__(self, path: str, codes: frozenset[int], *, name: str = NAME, vendor: int = VENDOR_ID,
                 product: int = PRODUCT_ID, uniq: str = "", phys: str = "usb-0000:00:14.0-2/input0",
                 readable: bool = True) -> None:
        self.path, self.name, self.uniq, self.phys = path, name, uniq, phys
        self.info = DeviceInfo(0x03, vendor, product, 0x0110)
        self.codes = codes
        self.readable = readable
        self.plugged = True
        self.active: set[int] = set()
        self.handles: list[StandInHandle] = []
        self.grabbed_by: StandInHandle | None = None
        self.lock = threading.Lock()

    def emit(self, code: int, value: int) -> None:
        with self.lock:
            if value == 1:
                self.active.add(code)
            elif value == 0:
                self.active.discard(code)
            for handle in self.handles:
                if self.grabbed_by is None or self.grabbed_by is handle:
                    handle.queue(KeyEvent(EV_KEY, code, value))

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            self.grabbed_by = None
            self.active.clear()
            for handle in self.handles:
                handle.wake()  # a reader in select() sees the node readable, and its read fails


class StandInHandle:
    """An open ``/dev/input/eventN``: ``evdev.InputDevice``'s surface, as the driver uses it."""

    def __init__(self, device: StandInDevice) -> None:
        self._device = device
        self.path, self.name, self.uniq, self.phys, self.info = (device.path, device.name, device.uniq,
                                                                 device.phys, device.info)
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        self._events: deque[KeyEvent] = deque()
        self._closed = False
        self._generation_plugged = device.plugged

    @property
    def fd(self) -> int:
        return self._read_fd

    def fileno(self) -> int:
        return self._read_fd

    def queue(self, event: KeyEvent) -> None:
        self._events.append(event)
        self.wake()

    def wake(self) -> None:
        if not self._closed:
            os.write(self._write_fd, b"\x01")

    def capabilities(self) -> dict[int, list[int]]:
        return {EV_SYN: [0], EV_KEY: sorted(self._device.codes)}

    def active_keys(self) -> list[int]:
        self._alive()
        return sorted(self._device.active)

    def read(self) -> list[KeyEvent]:
        self._alive()
        with contextlib.suppress(BlockingIOError):
            os.read(self._read_fd, 4096)
        if not self._events:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        events = list(self._events)
        self._events.clear()
        return events

    def grab(self) -> None:
        self._alive()
        device = self._device
        with device.lock:
            if device.grabbed_by is not None and device.grabbed_by is not self:
                raise OSError(errno.EBUSY, "Device or resource busy")
            device.grabbed_by = self

    def ungrab(self) -> None:
        device = self._device
        with device.lock:
            if device.grabbed_by is not self:
                raise OSError(errno.EINVAL, "Invalid argument")
            device.grabbed_by = None

    def close(self) -> None:
        if self._closed:
            return
        device = self._device
        with device.lock:
            if device.grabbed_by is self:
                device.grabbed_by = None
            if self in device.handles:
                device.handles.remove(self)
        self._closed = True
        os.close(self._read_fd)
        os.close(self._write_fd)

    def _alive(self) -> None:
        if not self._device.plugged or self._closed:
            raise OSError(errno.ENODEV, "No such device")


class StandInBackend:
    """The nodes of the simulated devices, as :class:`~drivers.input.backend.InputBackend`."""

    def __init__(self, devices: list[StandInDevice] | None = None) -> None:
        self.devices = list(devices or [])

    def list_devices(self) -> list[str]:
        return sorted(d.path for d in self.devices if d.plugged)

    def open(self, path: str) -> StandInHandle:
        for device in self.devices:
            if device.path == path and device.plugged:
                if not device.readable:
                    raise PermissionError(errno.EACCES, "Permission denied", path)
                handle = StandInHandle(device)
                with device.lock:
                    device.handles.append(handle)
                return handle
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)


class StandInFootSwitch(FootSwitchBase):
    """A foot switch on a :class:`StandInBackend` (its own, or one shared with other devices)."""

    def __init__(self, keys: Mapping[str, str] | None = None, *, backend: StandInBackend | None = None,
                 path: str = "/dev/input/event7", **facts: Any) -> None:
        super().__init__(keys)
        self.backend = backend or StandInBackend()
        self._path, self._facts = path, facts
        self.device = self._plug(path)
        self.replugs = 0

    def _plug(self, path: str) -> StandInDevice:
        device = StandInDevice(path, frozenset(self._code_of.values()), **self._facts)
        self.backend.devices.append(device)
        return device

    def locator(self, **match: Any) -> EvdevLocator:
        """Where the driver finds it: by VID:PID (and ``serial``/``phys``/``name``), or ``path=``."""
        info = self.device.info
        if "path" in match:
            return EvdevLocator(match["path"], backend_factory=lambda: self.backend, url=f"evdev://{match['path']}")
        return self.locator_for(self.backend, info.vendor, info.product, **match)

    @staticmethod
    def locator_for(backend: StandInBackend, vendor: int, product: int, **match: Any) -> EvdevLocator:
        """A locator of VID:PID (and ``serial``/``phys``/``name``) on ``backend``."""
        query = "".join(f"?{k}={v}" for k, v in match.items())
        return EvdevLocator(None, vendor, product, match.get("serial"), match.get("phys"), match.get("name"),
                            backend_factory=lambda: backend,
                            url=f"evdev://{vendor:04x}:{product:04x}{query} (stand-in)")

    def send(self, code: int, value: int) -> None:
        if not self.device.plugged:
            raise RuntimeError("the foot switch is unplugged")
        self.device.emit(code, value)

    def unplug(self) -> None:
        self.device.unplug()
        self.backend.devices.remove(self.device)

    def replug(self) -> None:
        """Plugged in again: the kernel makes a new node (the next event number)."""
        self.replugs += 1
        number = int(self._path.rsplit("event", 1)[1]) + self.replugs
        self.device = self._plug(f"/dev/input/event{number}")

    def other_reader(self) -> StandInHandle:
        """Another program opening the node (the kiosk's X server, a console)."""
        return self.backend.open(self.device.path)


# --- the real virtual device, where /dev/uinput exists --------------------------------------


def uinput_available() -> bool:
    return os.path.exists("/dev/uinput") and os.access("/dev/uinput", os.W_OK)


class UInputFootSwitch(FootSwitchBase):
    """A foot switch made by the kernel from ``evdev.UInput``; unplug closes it, replug makes
    it again (a new node, found again by VID:PID and its ``phys``)."""

    def __init__(self, keys: Mapping[str, str] | None = None, *, phys: str = "dealing-station-test/footswitch0",
                 name: str = NAME) -> None:
        super().__init__(keys)
        self.phys, self.name = phys, name
        self._ui: Any = None
        self.replug()

    def replug(self) -> None:
        import evdev

        self._ui = evdev.UInput({EV_KEY: sorted(self._code_of.values())}, name=self.name, vendor=VENDOR_ID,
                                product=PRODUCT_ID, phys=self.phys)

    @property
    def path(self) -> str:
        return str(self._ui.device.path)

    def url(self) -> str:
        return f"evdev://{VENDOR_ID:04x}:{PRODUCT_ID:04x}?phys={self.phys}"

    def locator(self) -> EvdevLocator:
        from drivers.input.locator import parse_evdev_locator

        return parse_evdev_locator(self.url())

    def send(self, code: int, value: int) -> None:
        from evdev import ecodes

        self._ui.write(ecodes.EV_KEY, code, value)
        self._ui.syn()

    def unplug(self) -> None:
        self._ui.close()

    def other_reader(self) -> Any:
        import evdev

        return evdev.InputDevice(self.path)

    def close(self) -> None:
        self.unplug()
