"""Driver of a commodity foot switch or keypad: a USB HID keyboard read through Linux evdev.

``[devices.pedals] url = "evdev://0c45:7403"`` (or ``evdev:///dev/input/by-id/...``) with a key
map (``KEY_F13 = "left"``...) makes the dealer's pedals a foot switch bought off the shelf.
The shared :class:`~drivers.devices.reconnect.ReconnectLoop` owns the device: it finds the
node (:mod:`drivers.input.locator`), checks that it sends the configured keys, takes it for
the station alone (``EVIOCGRAB``: its presses never reach the kiosk browser, a console or any
other reader) and reads its key events; unplugged, it is one ``DeviceFault`` and, once it is
back and grabbed, one ``DeviceRecovered``, like every device. Key events become presses by
:mod:`drivers.input.presses` (repeats ignored, chatter debounced, long presses timed); the
only events it emits are ``ButtonPressed``, ``DeviceFault`` and ``DeviceRecovered``.

A device found but not fit (it has none of the configured keys: a mouse, a keyboard mistaken
for the foot switch) is refused with one line naming what it is and what it lacks.
"""

from __future__ import annotations

import contextlib
import errno
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self

import structlog

from drivers.devices.contract import DeliveryObserver, DeviceEndpoint, Emit, Identity, SelfTestReport, Tap
from drivers.devices.errors import DeviceUnavailable
from drivers.devices.reconnect import Backoff, LoopDriven, Outage, ReconnectLoop
from drivers.devices.stats import DeviceStats
from drivers.devices.taps import Taps
from drivers.input import backend as input_backend
from drivers.input.backend import EvdevUnavailable
from drivers.input.keys import DEFAULT_KEYS, EV_KEY, key_map, key_name
from drivers.input.locator import EvdevLocator, parse_evdev_locator
from drivers.input.presses import DEFAULT_DEBOUNCE_S, DEFAULT_LONG_PRESS_S, KeyPress, KeyPresses
from station.events import ButtonPressed, DeviceFault, DeviceRecovered, Event

log = structlog.get_logger(__name__)

#: How often the reader looks up from an idle device (the stop flag, a long press coming due).
POLL_S = 0.1
_VALUES = {0: "up", 1: "down", 2: "repeat"}
UDEV_RULE = "systemd/61-dealing-station-input.rules"


@dataclass(frozen=True)
class InputIdentity(Identity):
    """What an input device says of itself: name, serial (``uniq``), and where it is."""

    vendor_id: int
    product_id: int
    phys: str
    path: str


@dataclass(frozen=True)
class FootSwitchStatus:
    """The device's keys as the station reads them: which are mapped, which are down now."""

    ok: bool
    keys: dict[str, str]  # key name -> button
    held: tuple[str, ...]
    grabbed: bool
    problems: tuple[str, ...] = ()


class _Unusable(Exception):
    def __init__(self, code: str, reason: str, refused: bool = False) -> None:
        super().__init__(reason)
        self.code, self.reason, self.refused = code, reason, refused


class FootSwitchDriver(LoopDriven):
    """A foot switch or keypad on evdev. Construct, :meth:`start`, read events from ``emit``."""

    def __init__(
        self,
        name: str,
        locator: EvdevLocator | str,
        emit: Emit,
        *,
        keys: Mapping[str, str] | None = None,
        debounce_s: float = DEFAULT_DEBOUNCE_S,
        long_press_s: float = DEFAULT_LONG_PRESS_S,
        backoff: Backoff | None = None,
        history: int = 32,
    ) -> None:
        self.name = name
        self.locator = parse_evdev_locator(locator) if isinstance(locator, str) else locator
        self._emit = emit
        self.keys = dict(keys or DEFAULT_KEYS)
        self._codes = key_map(self.keys)  # code -> button
        #: The button names, in the order of the key map (what ``station diag pedals`` lists).
        self.buttons = tuple(dict.fromkeys(self._codes.values()))
        self._presses = KeyPresses(frozenset(self._codes), debounce_s, long_press_s)
        self.stats = DeviceStats()
        self.refused: str | None = None
        self._log = log.bind(device=name, locator=str(self.locator))
        self._backend: Any = None
        self._device: Any = None
        self._device_lock = threading.Lock()
        self._history: deque[tuple[float, str, str, str]] = deque(maxlen=history)
        self._taps = Taps(self._log, "footswitch.tap_failed")
        self._on_delivered: DeliveryObserver | None = None
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._loop = ReconnectLoop(
            name, self, where=str(self.locator), backoff=backoff or Backoff(), stats=self.stats, stopping=self._stop,
            on_down=lambda outage: self._send(DeviceFault(self.name, outage.reason, outage.code)),
            on_up=lambda: self._send(DeviceRecovered(self.name)),
            recent_frames=lambda: [f"{d} {h} {t}" for _, d, h, t in self.recent_frames()],
            thread_name=f"footswitch-{name}",
        )

    @classmethod
    def from_config(cls, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int,
                    keys: Mapping[str, str] | None = None) -> Self:
        """The driver as the configuration describes it: a locator and a key map (no line speed)."""
        if not isinstance(endpoint, (str, EvdevLocator)):
            raise TypeError(f"{name}: a foot switch is opened by an evdev: locator, not {endpoint!r}")
        return cls(name, endpoint, emit, keys=keys)

    # --- the device contract ------------------------------------------------------------------

    # start, stop, connected, wait_connected: LoopDriven's (stopping ungrabs the device: other
    # programs see it again)

    def identify(self) -> InputIdentity:
        device = self._current()
        info = device.info
        return InputIdentity(model=device.name or "", serial=device.uniq or "", firmware=f"{info.version:04x}",
                             vendor_id=info.vendor, product_id=info.product, phys=device.phys or "",
                             path=device.path)

    def status(self) -> FootSwitchStatus:
        device = self._current()
        try:
            down = set(device.active_keys())
        except OSError as exc:
            raise DeviceUnavailable(f"{self.name}: cannot read its keys: {exc}") from exc
        held = tuple(self._codes[c] for c in self._codes if c in down)
        problems = tuple(f"{button} ({key_name(c)}) is held down" for c, button in self._codes.items() if c in down)
        return FootSwitchStatus(not problems, dict(self.keys), held, True, problems)

    def self_test(self) -> SelfTestReport:
        """Passed when the device has every configured key and none is held down now (a stuck
        or stood-on pedal); a keyboard cannot test its switches further."""
        status = self.status()
        return SelfTestReport(status.ok, "; ".join(status.problems) or f"keys {', '.join(self.keys)} present",
                              0, status.problems)

    def add_tap(self, tap: Tap) -> Callable[[], None]:
        """Show every key event of the mapped keys to ``tap`` (direction ``"in"``); returns a remover."""
        return self._taps.add(tap)

    def remove_tap(self, tap: Tap) -> None:
        self._taps.remove(tap)

    def recent_frames(self) -> list[tuple[float, str, str, str]]:
        return list(self._history)

    def observe_deliveries(self, observer: DeliveryObserver | None) -> None:
        self._on_delivered = observer

    # --- the connection, as the reconnect loop drives it --------------------------------------

    def open(self) -> Outage | None:
        """Find the device, check its keys, grab it; the presses start afresh."""
        try:
            device = self._find()
            self._check_keys(device)
            self._grab(device)
            down = frozenset(device.active_keys())
        except _Unusable as bad:
            self.refused = bad.reason if bad.refused else None
            return Outage(bad.reason, bad.code)
        except OSError as exc:
            self._close_device()
            return Outage(f"{self.locator.describe()}: {exc}", _code(exc))
        self.refused = None
        self._presses.reset(down)
        self._connected.set()
        info = device.info
        self._log.info("device_connected", path=device.path, name=device.name, vid_pid=f"{info.vendor:04x}:"
                       f"{info.product:04x}", phys=device.phys, serial=device.uniq, grabbed=True)
        self._loop.proven()  # grabbed and read: DeviceRecovered after an outage
        return None

    def serve(self) -> Outage:
        """Read key events until the device goes away or the driver stops."""
        device = self._device
        while not self._stop.is_set():
            wait = self._presses.next_due(time.monotonic())
            try:
                readable, _, _ = select.select([device.fd], [], [], POLL_S if wait is None else min(wait, POLL_S))
                self._deliver(self._presses.due(time.monotonic()))
                if readable:
                    self._read(device)
            except OSError as exc:
                return Outage(f"{self.locator.describe()} is gone: {exc}", _code(exc))
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        self._connected.clear()
        self._close_device()

    # --- finding and taking the device ----------------------------------------------------------

    def _find(self) -> Any:
        if self._backend is None:
            factory = self.locator.backend_factory or input_backend.default_backend
            try:
                self._backend = factory()
            except EvdevUnavailable as exc:
                raise _Unusable("no-backend", str(exc)) from exc
        locator = self.locator
        if locator.path is not None:
            try:
                device = self._backend.open(locator.path)
            except FileNotFoundError as exc:
                raise _Unusable("not-found", f"no input device {locator.path}") from exc
            except PermissionError as exc:
                raise _Unusable("access-denied", f"{locator.path}: {exc.strerror}; install {UDEV_RULE}") from exc
            self._device = device
            return device
        found, denied = [], []
        for path in self._backend.list_devices():
            try:
                candidate = self._backend.open(path)
            except PermissionError:
                denied.append(path)
                continue
            except OSError:
                continue  # gone between the listing and the open
            info = candidate.info
            if locator.matches(info.vendor, info.product, candidate.uniq or "", candidate.phys or "", candidate.name):
                found.append(candidate)
            else:
                candidate.close()
        if len(found) > 1:
            places = "; ".join(f"{d.path} phys {d.phys or '-'} serial {d.uniq or '-'} {d.name!r}" for d in found)
            for d in found:
                d.close()
            raise _Unusable("ambiguous", f"{len(found)} input devices are {locator.describe()}: {places}; "
                            "name one with ?serial=, ?phys= or ?name= (station diag ports lists them)", refused=True)
        if not found:
            if denied:
                raise _Unusable("access-denied", f"no {locator.describe()} among the input devices this user may "
                                f"read ({len(denied)} not readable: install {UDEV_RULE})")
            raise _Unusable("not-found", f"no input device {locator.describe()}")
        self._device = found[0]
        return found[0]

    def _check_keys(self, device: Any) -> None:
        keys = set(device.capabilities().get(EV_KEY, ()))
        missing = [key_name(c) for c in self._codes if c not in keys]
        if len(missing) == len(self._codes):
            info = device.info
            sends = ", ".join(key_name(c) for c in sorted(keys)[:8]) or "no keys at all"
            self._close_device()
            raise _Unusable("wrong-device", f"{device.path} ({device.name!r}, {info.vendor:04x}:{info.product:04x}) "
                            f"has none of the keys {', '.join(self.keys)}; it sends {sends}"
                            f"{'...' if len(keys) > 8 else ''}: the wrong device, or a foot switch not "
                            "programmed yet (docs/drivers.md)", refused=True)
        if missing:
            self._log.warning("footswitch.keys_missing", missing=missing, path=device.path)

    def _grab(self, device: Any) -> None:
        try:
            device.grab()
        except OSError as exc:
            self._close_device()
            if exc.errno == errno.EBUSY:
                raise _Unusable("busy", f"{device.path} is held by another program (grabbed)") from exc
            raise

    def _close_device(self) -> None:
        with self._device_lock:
            device, self._device = self._device, None
        if device is None:
            return
        with contextlib.suppress(OSError):  # not grabbed, or gone with the cable
            device.ungrab()
        with contextlib.suppress(OSError):
            device.close()

    def _current(self) -> Any:
        device = self._device
        if device is None or not self.connected:
            raise DeviceUnavailable(f"{self.name} is not connected ({self.locator.describe()})")
        return device

    # --- reading ------------------------------------------------------------------------------

    def _read(self, device: Any) -> None:
        try:
            events = list(device.read())
        except BlockingIOError:
            return
        for event in events:
            if event.type != EV_KEY or event.code not in self._codes:
                continue
            now = time.monotonic()
            raw = f"{event.code:04x}:{event.value}".encode()
            what = f"{key_name(event.code)} {_VALUES.get(event.value, event.value)}"
            self._history.append((now, "in", raw.hex(" "), what))
            self.stats.frames_in += 1
            self._taps.show("in", raw, what)
            self._deliver(self._presses.feed(event.code, event.value, now))
        self.stats.duplicates = self._presses.counts.repeats_ignored + self._presses.counts.bounces

    def _deliver(self, presses: list[KeyPress]) -> None:
        for press in presses:
            button = self._codes[press.code]
            self._log.info("footswitch.press", button=button, key=key_name(press.code), long_press=press.long)
            self._send(ButtonPressed(self.name, button, press.long))
            self.stats.events_delivered += 1
            observer = self._on_delivered
            if observer is not None:
                observer(self.stats.events_delivered)

    def _send(self, event: Event) -> None:
        try:
            self._emit(event)
        except Exception:  # a broken sink must not stop the foot switch being read
            self._log.exception("footswitch.emit_failed", event_kind=type(event).__name__)



def _code(exc: OSError) -> str:
    return {errno.ENODEV: "disconnected", errno.EIO: "io-error", errno.EACCES: "access-denied",
            errno.ENOENT: "not-found", errno.EBUSY: "busy"}.get(exc.errno or 0, "input-error")


__all__ = ["FootSwitchDriver", "FootSwitchStatus", "InputIdentity"]
