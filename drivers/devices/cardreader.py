"""Driver of a player-card reader: a magnetic-stripe or barcode reader that types as a keyboard.

``[devices.cardreader] url = "evdev://VID:PID"`` (or ``evdev:///dev/input/by-id/...``) makes a
reader bought off the shelf the table's player-card reader (docs/ratings.md). It is found,
checked, grabbed and kept (unplugged: one ``DeviceFault``; back: one ``DeviceRecovered``)
exactly as a foot switch is (:class:`~drivers.devices.footswitch.FootSwitchDriver`, whose
plumbing it takes), so a swipe never types into the kiosk browser or a console. What it reads
differs: every key is a character of a line (:class:`~drivers.input.wedge.KeyboardWedge`), and
a line that holds a card's number (:func:`~drivers.input.wedge.card_number`) is one
``PlayerCardRead``. A swipe read badly is counted and logged (its length only: a bank card
swiped by mistake must leave its number nowhere), never a card.

The diagnostics' taps and recent frames say "character" or "enter" for a key, never which:
what a reader types is a person's card.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Self

from drivers.devices.contract import DeviceEndpoint, Emit, SelfTestReport
from drivers.devices.footswitch import FootSwitchDriver, _Unusable
from drivers.devices.reconnect import Backoff, Outage
from drivers.input.keys import EV_KEY, key_name
from drivers.input.locator import EvdevLocator
from drivers.input.wedge import KEY_ENTER, KEY_KPENTER, KeyboardWedge, card_number
from station.events import PlayerCardRead

#: The keys a reader must have to type a card's number: the digits and Enter.
NEEDED = {"KEY_ENTER": "enter", **{f"KEY_{n}": f"digit {n}" for n in range(10)}}


class CardReaderDriver(FootSwitchDriver):
    """A keyboard-wedge card reader on evdev. Construct, :meth:`start`, read ``PlayerCardRead``s."""

    def __init__(self, name: str, locator: EvdevLocator | str, emit: Emit, *, idle_s: float = 0.5,
                 backoff: Backoff | None = None, history: int = 32) -> None:
        super().__init__(name, locator, emit, keys=NEEDED, backoff=backoff, history=history)
        self._wedge = KeyboardWedge(idle_s)
        self.bad_reads = 0
        self.cards_read = 0

    @classmethod
    def from_config(cls, name: str, endpoint: DeviceEndpoint, emit: Emit, *, baudrate: int,
                    keys: Mapping[str, str] | None = None) -> Self:
        """The driver as the configuration describes it: a locator (a reader has no line speed
        and no key map)."""
        if not isinstance(endpoint, (str, EvdevLocator)):
            raise TypeError(f"{name}: a card reader is opened by an evdev: locator, not {endpoint!r}")
        return cls(name, endpoint, emit)

    def open(self) -> Outage | None:
        outage = super().open()
        if outage is None:
            self._wedge.reset()  # nothing half-typed survives an unplug
        return outage

    def _check_keys(self, device: Any) -> None:
        """A reader types a card's number with the digits and Enter: a device without them all
        (a presenter's clicker, a foot switch) is refused in one line."""
        keys = set(device.capabilities().get(EV_KEY, ()))
        missing = [key_name(code) for code in self._codes if code not in keys]
        if missing:
            info = device.info
            self._close_device()
            raise _Unusable("wrong-device", f"{device.path} ({device.name!r}, {info.vendor:04x}:{info.product:04x}) "
                            f"cannot type a card's number: it has no {', '.join(missing)} (the wrong device, or a "
                            "reader not in keyboard mode: docs/ratings.md)", refused=True)

    def self_test(self) -> SelfTestReport:
        """Passed when the reader has the digits and Enter (what a card's number is typed with)."""
        keys = set(self._current().capabilities().get(EV_KEY, ()))
        missing = tuple(f"{button} ({name})" for code, (name, button) in zip(self._codes, NEEDED.items(), strict=True)
                        if code not in keys)
        return SelfTestReport(not missing, "; ".join(f"no {m}" for m in missing) or "digits and Enter present", 0,
                              missing)

    def _read(self, device: Any) -> None:
        try:
            events = list(device.read())
        except BlockingIOError:
            return
        for event in events:
            if event.type != EV_KEY:
                continue
            now = time.monotonic()
            ending = event.code in (KEY_ENTER, KEY_KPENTER)
            what = f"{'enter' if ending else 'character'} {('up', 'down', 'repeat')[min(event.value, 2)]}"
            self._history.append((now, "in", "", what))
            self.stats.frames_in += 1
            self._taps.show("in", b"", what)
            line = self._wedge.feed(event.code, event.value, now)
            if line is not None:
                self._typed(line)

    def _typed(self, line: str) -> None:
        card = card_number(line)
        if card is None:
            self.bad_reads += 1
            self.stats.bad_frames += 1
            self._log.warning("cardreader.bad_read", characters=len(line))
            return
        self.cards_read += 1
        self._log.info("cardreader.card_read", digits=len(card))
        self._send(PlayerCardRead(self.name, card))
        self.stats.events_delivered += 1
        observer = self._on_delivered
        if observer is not None:
            observer(self.stats.events_delivered)


__all__ = ["CardReaderDriver"]
