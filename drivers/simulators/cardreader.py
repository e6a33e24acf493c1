"""A simulated player-card reader: a magnetic-stripe and barcode reader that types as a keyboard.

It is a node of the stand-in at python-evdev's ``InputDevice`` boundary
(:mod:`drivers.simulators.footswitch`: handles with real file descriptors, grabs, ``ENODEV``
once unplugged), with a keyboard's keys. :meth:`StandInCardReader.swipe` types a card's tracks
as a reader does (track 1, track 2, Enter), :meth:`scan` a barcode, :meth:`type` anything (a
swipe read badly, half a track); :meth:`unplug` and :meth:`replug` as a USB cable would. The
driver (:class:`~drivers.devices.cardreader.CardReaderDriver`) finds, grabs and reads it as it
would a reader on a USB port.
"""

from __future__ import annotations

from typing import Any

from drivers.input.locator import EvdevLocator
from drivers.input.wedge import KEY_ENTER, keys_for
from drivers.simulators.footswitch import StandInBackend, StandInDevice, StandInFootSwitch

#: A MagTek USB swipe reader in keyboard emulation.
VENDOR_ID, PRODUCT_ID = 0x0801, 0x0001
NAME = "Mag-Tek USB Swipe Reader"
SHIFT = 42
#: Every key a reader types with: digits, letters, the tracks' sentinels and separators, Shift, Enter.
KEYS = frozenset({*range(2, 14), *range(16, 26), *range(30, 40), *range(44, 54), 57, SHIFT, 54, KEY_ENTER})


class StandInCardReader:
    """A card reader on a :class:`StandInBackend` (its own, or one shared with other devices)."""

    def __init__(self, *, backend: StandInBackend | None = None, path: str = "/dev/input/event9",
                 keys: frozenset[int] = KEYS) -> None:
        self.backend = backend or StandInBackend()
        self._path, self._keys = path, keys
        self.device = self._plug(path)
        self.replugs = 0

    def _plug(self, path: str) -> StandInDevice:
        device = StandInDevice(path, self._keys, name=NAME, vendor=VENDOR_ID, product=PRODUCT_ID,
                               phys="usb-0000:00:14.0-3/input0")
        self.backend.devices.append(device)
        return device

    def locator(self) -> EvdevLocator:
        return StandInFootSwitch.locator_for(self.backend, VENDOR_ID, PRODUCT_ID)

    def type(self, text: str, *, enter: bool = True) -> None:
        """``text`` typed key by key (Shift where a character needs it), then Enter."""
        for code, shifted in keys_for(text):
            if shifted:
                self._send(SHIFT, 1)
            self._send(code, 1)
            self._send(code, 0)
            if shifted:
                self._send(SHIFT, 0)
        if enter:
            self._send(KEY_ENTER, 1)
            self._send(KEY_ENTER, 0)

    def swipe(self, card: str, name: str = "PLAYER/ANNA", expiry: str = "2912") -> None:
        """A player card swiped: its track 1 and track 2 as one line."""
        self.type(f"%B{card}^{name}^{expiry}?;{card}={expiry}?")

    def scan(self, code: str) -> None:
        self.type(code)

    def _send(self, code: int, value: int) -> None:
        if not self.device.plugged:
            raise RuntimeError("the card reader is unplugged")
        self.device.emit(code, value)

    def unplug(self) -> None:
        self.device.unplug()
        self.backend.devices.remove(self.device)

    def replug(self) -> None:
        """Plugged in again: a new node (the next event number)."""
        self.replugs += 1
        self.device = self._plug(f"/dev/input/event{int(self._path.rsplit('event', 1)[1]) + self.replugs}")

    def other_reader(self) -> Any:
        """Another program opening the node (the kiosk's browser would read a swipe as typing)."""
        return self.backend.open(self.device.path)
