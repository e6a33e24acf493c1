"""The simulated pedal unit's firmware: buttons in, numbered reports out, a self-test on request.

Each change of a button becomes a report (``DOWN``, ``LONG`` at the long-press threshold,
``UP`` with the long flag when the press was long), numbered in sequence, waiting in a
32-deep buffer until the host polls the interrupt endpoint; on overflow the oldest is
dropped and the next self-test says so. Faults set on the unit damage, duplicate, drop or
delay reports here, on the real path. Every method is called with the unit's lock held;
``changed`` is notified whenever a report is queued.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque

from drivers.simulators.pedals.counters import UnitCounters
from drivers.simulators.pedals.faults import UnitFaults, corrupt_report
from drivers.usb import protocol as p
from drivers.usb.codec import PedalReport, SelfTestReply, encode_protocol_version, encode_report, encode_self_test
from drivers.usb.protocol import EventType


class PedalFirmware:
    """Button state, the report buffer and the self-test flags of one unit."""

    def __init__(
        self,
        buttons: tuple[str, ...],
        *,
        long_press_ms: int,
        faults: UnitFaults,
        counters: UnitCounters,
        changed: threading.Condition,
        seed: int = 0,
        protocol_version: int = p.PROTOCOL_VERSION,
        announced_version: int | None = None,
    ) -> None:
        self.buttons = buttons
        #: The pedal protocol version its reports and replies are in; what it answers to
        #: GET_PROTOCOL_VERSION (a version-1 unit does not know the request and stalls it).
        self.protocol_version = protocol_version
        self.announced_version = protocol_version if announced_version is None else announced_version
        self.long_press_ms = long_press_ms
        self._faults = faults
        self._counters = counters
        self._changed = changed
        self._rng = random.Random(seed)
        self.restart()

    def restart(self) -> None:
        """Power-up state: nothing buffered, no button down, numbering from 0."""
        self.queue: deque[tuple[float, bytes]] = deque()  # (monotonic time due, report)
        self.held = 0
        self.timers: dict[int, threading.Timer] = {}  # long-press timers of buttons down
        self.self_test_flags = 0
        self._sequence = 0
        self._long_fired: set[int] = set()
        self._down_at: dict[int, float] = {}

    def power_off(self) -> None:
        """The cable is pulled: buffered reports and pending long presses are gone."""
        for timer in self.timers.values():
            timer.cancel()
        self.queue.clear()

    # -- buttons -------------------------------------------------------------------------------

    def down(self, index: int) -> None:
        self.held |= 1 << index
        self._long_fired.discard(index)
        self._down_at[index] = time.monotonic()
        self._send(EventType.DOWN, index, hold_cs=0)

    def long(self, index: int) -> None:
        self._long_fired.add(index)
        self._send(EventType.LONG, index, hold_cs=min(255, self.long_press_ms // 10))

    def up(self, index: int, hold_cs: int | None = None) -> None:
        self.held &= ~(1 << index)
        if hold_cs is None:
            hold_cs = min(255, int((time.monotonic() - self._down_at.get(index, time.monotonic())) * 100))
        long = index in self._long_fired
        self._long_fired.discard(index)
        self._send(EventType.UP, index, hold_cs=hold_cs, long=long)

    def _send(self, event: EventType, index: int, *, hold_cs: int, long: bool = False) -> None:
        report = PedalReport(self._sequence, event, index, self.held, long, hold_cs)
        self._sequence = (self._sequence + 1) % 256
        faults = self._faults
        if faults.drop:
            faults.drop -= 1
            self._counters.reports_dropped += 1
            return
        raw = encode_report(report, self.protocol_version)
        if faults.corrupt:
            raw = corrupt_report(raw, faults.corrupt.popleft(), self._rng, self.protocol_version)
        copies = 1
        if faults.duplicate:
            faults.duplicate -= 1
            copies = 2
        due = time.monotonic() + faults.latency_s
        for _ in range(copies):
            if len(self.queue) >= p.DEVICE_REPORT_BUFFER:
                self.queue.popleft()
                self.self_test_flags |= p.SelfTestFlag.BUFFER_OVERFLOW
                self._counters.reports_dropped += 1
            self.queue.append((due, raw))
            self._counters.reports_sent += 1
        self._changed.notify_all()

    # -- the vendor request --------------------------------------------------------------------

    def vendor_reply(self, request_type: int, request: int, index: int) -> bytes | None:
        """The answer to a vendor request (SELF_TEST; GET_PROTOCOL_VERSION from version 2), or
        ``None`` for any other request."""
        if request_type != p.VENDOR_IN_INTERFACE or index != p.INTERFACE_NUMBER:
            return None
        if request == p.REQUEST_SELF_TEST:
            flags = self.self_test_flags
            self.self_test_flags &= ~p.SelfTestFlag.BUFFER_OVERFLOW
            reply = SelfTestReply(flags, (1 << len(self.buttons)) - 1, self.held, self.long_press_ms)
            return encode_self_test(reply, self.protocol_version)
        if request == p.REQUEST_PROTOCOL_VERSION and self.protocol_version >= 2:
            return encode_protocol_version(self.announced_version)
        return None

    def set_switch_fault(self, *, stuck: bool, wiring_open: bool) -> None:
        self.self_test_flags &= ~(p.SelfTestFlag.SWITCH_STUCK | p.SelfTestFlag.WIRING_OPEN)
        if stuck:
            self.self_test_flags |= p.SelfTestFlag.SWITCH_STUCK
        if wiring_open:
            self.self_test_flags |= p.SelfTestFlag.WIRING_OPEN
