"""``station diag monitor``: every frame on a device's link, decoded and in raw hex, as it happens.

The driver's frame tap (``add_tap``) sees each frame the station sends (``tx``) and each
one the device sends (``rx``), including the ones the codec refused: a frame with a bad
CRC, stray noise, a payload that does not decode. Those are shown as ``CORRUPT`` with the
codec's reason, never as a message, which is exactly what the station itself does with
them. The events the driver turns frames into are shown too (``=>``), so a technician sees
both what came over the wire and what the table would have been told.

Taps run on the driver's reader thread; they only queue a line, and the caller prints from
its own thread, so a slow terminal never holds up the link.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from drivers.codec.protocol import CodecError, Message
from drivers.devices.pedals import PedalDriver
from drivers.usb.codec import PedalReport, ReportError, SelfTestReply
from station.event_codec import event_to_dict
from station.events import Event


@dataclass(frozen=True)
class FrameLine:
    """One thing seen on the link: a frame (``rx``/``tx``/``in``/``control-in``) or an event."""

    elapsed: float
    direction: str  # "rx", "tx", "in", "control-in", or "event"
    raw: bytes
    text: str
    corrupt: bool = False

    @property
    def from_device(self) -> bool:
        return self.direction in ("rx", "in", "control-in")

    def as_dict(self) -> dict[str, Any]:
        return {
            "t": round(self.elapsed, 4), "dir": self.direction, "hex": self.raw.hex(" "),
            "decoded": self.text, "corrupt": self.corrupt,
        }

    def render(self, raw_only: bool = False) -> str:
        stamp = f"{self.elapsed:9.3f}"
        if self.direction == "event":
            return "" if raw_only else f"{stamp}          => {self.text}"
        if raw_only:
            return f"{stamp} {self.direction:<5} {self.raw.hex(' ')}"
        flag = "CORRUPT " if self.corrupt else ""
        return f"{stamp} {self.direction:<5} {flag}{self.text}\n{'':15} {self.raw.hex(' ') or '(no bytes)'}"


def describe_decoded(decoded: Any, pedal: PedalDriver | None = None) -> tuple[str, bool]:
    """``(text, corrupt)`` for whatever a tap was handed."""
    if isinstance(decoded, Message):
        return decoded.describe(), False
    if isinstance(decoded, CodecError):
        detail = f": {decoded.detail}" if decoded.detail else ""
        return f"{decoded.fault}{detail}", True
    if isinstance(decoded, ReportError):
        return decoded.reason, True
    if isinstance(decoded, PedalReport):
        button = pedal.button_name(decoded.button) if pedal is not None else str(decoded.button)
        long = " long" if decoded.long else ""
        return (
            f"{decoded.event.name} {button}{long} (seq {decoded.sequence}, held {decoded.held:08b}, "
            f"{decoded.hold_cs * 10} ms)", False
        )
    if isinstance(decoded, SelfTestReply):
        problems = "; ".join(decoded.problems) or "no problems"
        return (
            f"SelfTest reply: fitted {decoded.installed:08b}, held {decoded.held:08b}, "
            f"long press {decoded.long_press_ms} ms, {problems}", False
        )
    return "(not decoded)", decoded is None


def describe_event(event: Event) -> str:
    """``CardDrawn(device=shoe, card=6D)``: the journal's own encoding of the event, on one line."""
    data = event_to_dict(event)
    name = data.pop("type", type(event).__name__)
    values = ", ".join(f"{key}={value}" for key, value in data.items())
    return f"{name}({values})"


class FrameMonitor:
    """Collects :class:`FrameLine` items from a driver's tap and its events, for one reader."""

    def __init__(self, pedal: PedalDriver | None = None) -> None:
        self.lines: queue.Queue[FrameLine] = queue.Queue()
        self.device_frames = 0
        self.corrupt_frames = 0
        self._pedal = pedal
        self._started = time.monotonic()
        self._lock = threading.Lock()

    def tap(self, direction: str, raw: bytes, decoded: Any) -> None:
        text, corrupt = describe_decoded(decoded, self._pedal)
        line = FrameLine(time.monotonic() - self._started, direction, bytes(raw), text, corrupt)
        with self._lock:
            if line.from_device:
                self.device_frames += 1
                self.corrupt_frames += corrupt
        self.lines.put(line)

    def event(self, event: Event) -> None:
        self.lines.put(FrameLine(time.monotonic() - self._started, "event", b"", describe_event(event)))


def run_monitor(
    monitor: FrameMonitor,
    emit_line: Any,
    *,
    count: int | None,
    seconds: float | None,
    stop: threading.Event | None = None,
) -> None:
    """Hand lines to ``emit_line`` until ``count`` device frames were seen, ``seconds`` passed,
    or ``stop`` is set (Ctrl-C raises KeyboardInterrupt out of here, which the caller handles)."""
    deadline = None if seconds is None else time.monotonic() + seconds
    seen = 0
    while stop is None or not stop.is_set():
        timeout = 0.1 if deadline is None else max(0.0, min(0.1, deadline - time.monotonic()))
        try:
            line = monitor.lines.get(timeout=timeout)
        except queue.Empty:
            if deadline is not None and time.monotonic() >= deadline:
                return
            continue
        emit_line(line)
        if line.from_device:
            seen += 1
            if count is not None and seen >= count:
                return
        if deadline is not None and time.monotonic() >= deadline:
            return


def json_line(line: FrameLine) -> str:
    return json.dumps(line.as_dict())
