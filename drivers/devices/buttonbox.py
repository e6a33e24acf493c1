"""Driver of the serial dealer button box (protocol: ``docs/protocols/buttonbox.md``).

A short press becomes ``ButtonPressed(long_press=False)`` when the button comes up; a
long press becomes ``ButtonPressed(long_press=True)`` as soon as the box reports it,
and the release that follows is not a second press.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from drivers.codec import buttonbox as wire
from drivers.codec.protocol import Ack, Boot, Message
from drivers.devices.base import SerialDeviceDriver
from drivers.devices.contract import Emit
from drivers.devices.errors import DeviceProtocolError
from station import events

log = structlog.get_logger(__name__)

DEFAULT_BUTTONS: Mapping[int, str] = {1: "deal", 2: "confirm", 3: "cancel", 4: "call"}


@dataclass(frozen=True)
class BoxInfo:
    buttons: int
    held: tuple[str, ...]
    long_press_ms: int


class ButtonBoxDriver(SerialDeviceDriver):
    """Emits ButtonPressed (and DeviceFault on link loss)."""

    PROTOCOL = "buttonbox"

    def __init__(
        self, name: str, url: str, emit: Emit, *, buttons: Mapping[int, str] | None = None, **options: Any
    ) -> None:
        super().__init__(name, url, emit, **options)
        self.buttons = dict(buttons or DEFAULT_BUTTONS)
        self._long_pressed: set[int] = set()

    def button_name(self, number: int) -> str:
        return self.buttons.get(number, f"button{number}")

    def status(self) -> BoxInfo:
        a = self._expect(self.link.request(wire.ButtonBoxGetStatus()), wire.BoxStatus)
        return BoxInfo(a.buttons, tuple(self.button_name(b) for b in a.held), a.long_press_ms)

    def set_long_press(self, millis: int) -> None:
        answer = self.link.request(wire.SetLongPress(millis))
        if not isinstance(answer, Ack):
            raise DeviceProtocolError(f"SetLongPress answered by {answer.WIRE_NAME}")

    def on_message(self, message: Message) -> None:
        match message:
            case wire.ButtonDown(button=button):
                self._long_pressed.discard(button)
            case wire.LongPress(button=button):
                self._long_pressed.add(button)
                self.emit(events.ButtonPressed(self.name, self.button_name(button), long_press=True))
            case wire.ButtonUp(button=button):
                if button in self._long_pressed:
                    self._long_pressed.discard(button)
                else:
                    self.emit(events.ButtonPressed(self.name, self.button_name(button), long_press=False))
            case Boot():
                self._long_pressed.clear()
            case _:
                super().on_message(message)
