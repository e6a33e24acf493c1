"""A simulated dealer-pedal unit: what :class:`~drivers.simulators.pedals.backend.SimulatedBackend`
puts on its simulated bus, and what a test or a technician scripts.

One unit is its descriptors (:mod:`.descriptors`), its attachment to the bus as the host's
USB stack sees it (:mod:`.attachment`), its firmware (:mod:`.firmware`) and the faults it
has been given (:mod:`.faults`), under one lock. This class puts them together: the calls
the simulated backend makes for the host (every one failing as libusb-1.0 fails on Linux),
the interrupt endpoint the host polls, and the scripting API.

The scripting API (``press``, ``release``, ``click``, ``long_press``, ``hold_long``) drives
the buttons; fault injection (``corrupt_next``, ``duplicate_next``, ``drop_next``,
``stall``, ``set_latency``, ``hang``, ``unplug``/``replug``) breaks the unit on purpose.
Buttons are named (``"left"``) or numbered as printed on the pedals (``"1"`` is the first);
an ``int`` is a 0-based index.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from drivers.simulators.pedals.attachment import Attachment
from drivers.simulators.pedals.counters import UnitCounters
from drivers.simulators.pedals.descriptors import PedalDescriptors
from drivers.simulators.pedals.faults import CORRUPTIONS, SimulatorError, UnitFaults
from drivers.simulators.pedals.firmware import PedalFirmware
from drivers.usb import protocol as p
from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError, usb_error


class SimulatedPedal:
    """One simulated pedal unit. Thread-safe: every method takes the unit's lock."""

    def __init__(
        self,
        serial: str = "PED-SIM-0001",
        *,
        buttons: tuple[str, ...] = p.DEFAULT_BUTTONS,
        firmware: str = "1.02",
        long_press_ms: int = p.DEFAULT_LONG_PRESS_MS,
        timed_long_press: bool = True,
        kernel_driver: bool = True,
        vendor_id: int = p.VENDOR_ID,
        product_id: int = p.PRODUCT_ID,
        manufacturer: str = p.MANUFACTURER,
        product: str = p.PRODUCT,
        bus: int = 1,
        port: int = 3,
        seed: int = 0,
        protocol_version: int = p.PROTOCOL_VERSION,
        announced_version: int | None = None,
    ) -> None:
        if not 1 <= len(buttons) <= p.MAX_BUTTONS:
            raise ValueError(f"a pedal unit has 1..{p.MAX_BUTTONS} buttons, not {len(buttons)}")
        if protocol_version not in p.PROTOCOL_VERSIONS:
            raise ValueError(f"pedal protocol versions are {p.OLDEST_PROTOCOL_VERSION}-{p.PROTOCOL_VERSION}, "
                             f"not {protocol_version}")
        #: The pedal protocol version the unit is built to (announced_version: what it claims).
        self.protocol_version = protocol_version
        self.serial = serial
        self.buttons = tuple(b.lower() for b in buttons)
        self.firmware = firmware
        self.long_press_ms = long_press_ms
        self.timed_long_press = timed_long_press
        self.bus = bus
        self.port = port
        self.counters = UnitCounters()
        self.descriptors = PedalDescriptors(
            serial=serial, firmware=firmware, vendor_id=vendor_id, product_id=product_id,
            manufacturer=manufacturer, product=product, protocol_version=protocol_version,
        )
        self._cond = threading.Condition()
        self._faults = UnitFaults()
        self._usb = Attachment(self.counters, kernel_driver=kernel_driver)
        self._firmware = PedalFirmware(
            self.buttons, long_press_ms=long_press_ms, faults=self._faults, counters=self.counters,
            changed=self._cond, seed=seed, protocol_version=protocol_version, announced_version=announced_version,
        )
        self._plug_in()

    @property
    def plugged(self) -> bool:
        return self._usb.plugged

    @property
    def generation(self) -> int:
        return self._usb.generation

    @property
    def address(self) -> int:
        return self._usb.address

    @property
    def has_kernel_driver(self) -> bool:
        return self._usb.has_kernel_driver

    # --- descriptors, for the backend ----------------------------------------------------------

    def device_descriptor(self) -> Descriptor:
        with self._cond:
            return self.descriptors.device(bus=self.bus, address=self._usb.address, port=self.port)

    def configuration_descriptor(self, index: int) -> Descriptor:
        return self.descriptors.configuration(index)

    def interface_descriptor(self, intf: int, alt: int, config: int) -> Descriptor:
        return self.descriptors.interface(intf, alt, config)

    def endpoint_descriptor(self, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        return self.descriptors.endpoint(ep, intf, alt, config)

    # --- the host's side (called by the simulated backend) --------------------------------------

    def check_alive(self, generation: int) -> None:
        self._usb.check_alive(generation)

    def open(self, generation: int) -> None:
        with self._cond:
            self._usb.open(generation)

    def close(self, generation: int, owner: object) -> None:
        with self._cond:
            self._usb.close(generation, owner)

    def get_configuration(self, generation: int) -> int:
        with self._cond:
            return self._usb.get_configuration(generation)

    def set_configuration(self, generation: int, value: int) -> None:
        with self._cond:
            self._usb.set_configuration(generation, value)
            self._faults.clear_halt()  # a new configuration resets halts

    def is_kernel_driver_active(self, generation: int, intf: int) -> bool:
        with self._cond:
            return self._usb.is_kernel_driver_active(generation, intf)

    def detach_kernel_driver(self, generation: int, intf: int) -> None:
        with self._cond:
            self._usb.detach_kernel_driver(generation, intf)

    def attach_kernel_driver(self, generation: int, intf: int) -> None:
        with self._cond:
            self._usb.attach_kernel_driver(generation, intf)

    def claim_interface(self, generation: int, intf: int, owner: object) -> None:
        with self._cond:
            self._usb.claim_interface(generation, intf, owner)

    def release_interface(self, generation: int, intf: int, owner: object) -> None:
        with self._cond:
            self._usb.release_interface(generation, intf, owner)

    def clear_halt(self, generation: int, ep: int) -> None:
        with self._cond:
            self._usb.check_alive(generation)
            if ep != p.ENDPOINT_IN:
                raise usb_error(LibusbError.NOT_FOUND)
            self._faults.clear_halt()
            self.counters.clear_halts += 1
            self._cond.notify_all()

    def read_interrupt(self, generation: int, ep: int, intf: int, size: int, timeout_ms: int, owner: object) -> bytes:
        """Block until a report is due, the timeout passes (``USBTimeoutError``) or the link fails."""
        deadline = None if timeout_ms == 0 else time.monotonic() + timeout_ms / 1000
        with self._cond:
            self._usb.check_alive(generation)
            if ep != p.ENDPOINT_IN:
                raise usb_error(LibusbError.NOT_FOUND)
            self._usb.check_reader(intf, owner)
            while True:
                self._usb.check_alive(generation)
                queue = self._firmware.queue  # a replug restarts the firmware with a new buffer
                if self._faults.stalled:
                    raise usb_error(LibusbError.PIPE)
                now = time.monotonic()
                wait = None if deadline is None else deadline - now
                if queue and not self._faults.hung:
                    due, raw = queue[0]
                    if due <= now:
                        queue.popleft()
                        self.counters.reports_read += 1
                        self._cond.notify_all()
                        if len(raw) > size:
                            raise usb_error(LibusbError.OVERFLOW)
                        return raw
                    wait = due - now if wait is None else min(wait, due - now)
                if wait is not None and wait <= 0:
                    raise usb_error(LibusbError.TIMEOUT)
                self._cond.wait(wait)

    def control(
        self, generation: int, request_type: int, request: int, value: int, index: int, length: int, timeout_ms: int
    ) -> bytes:
        """Answer a control request on endpoint 0 (IN direction; OUT requests are refused)."""
        with self._cond:
            self._usb.check_alive(generation)
            self.counters.control_requests += 1
            if self._faults.hung:
                # A hung device NAKs forever: the host gives up after its timeout.
                self._cond.wait_for(lambda: not self._faults.hung or not self._usb.plugged, timeout_ms / 1000 or None)
                self._usb.check_alive(generation)
                if self._faults.hung:
                    raise usb_error(LibusbError.TIMEOUT)
            reply = self.descriptors.standard_reply(request_type, request, value, index, self._usb.configuration)
            if reply is None:
                reply = self._firmware.vendor_reply(request_type, request, index)
            if reply is None:
                raise usb_error(LibusbError.PIPE)  # the device stalls requests it does not know
            return reply[:length]

    # --- plugging -------------------------------------------------------------------------------

    def _plug_in(self) -> None:
        self._usb.plug_in()
        self._firmware.restart()
        self._faults.replugged()

    def unplug(self) -> None:
        """Pull the cable: gone from enumeration, open handles and pending reads fail with ENODEV."""
        with self._cond:
            if not self._usb.plugged:
                raise SimulatorError("the pedals are already unplugged")
            self._usb.unplug()
            self._firmware.power_off()
            self._cond.notify_all()

    def replug(self) -> None:
        """Plug the cable back: a new address, firmware restarted, the kernel driver bound again."""
        with self._cond:
            if self._usb.plugged:
                raise SimulatorError("the pedals are already plugged in")
            self._plug_in()
            self._cond.notify_all()

    # --- buttons --------------------------------------------------------------------------------

    def button_index(self, button: str | int) -> int:
        if isinstance(button, int):
            index = button
        elif button.isdigit():
            index = int(button) - 1
        elif button.lower() in self.buttons:
            index = self.buttons.index(button.lower())
        else:
            raise self._no_button(button)
        if not 0 <= index < len(self.buttons):
            raise self._no_button(button)
        return index

    def _no_button(self, button: str | int) -> SimulatorError:
        return SimulatorError(f"no button {button!r}; buttons are {', '.join(self.buttons)} or 1..{len(self.buttons)}")

    def press(self, button: str | int) -> None:
        """Push a button down (and, with ``timed_long_press``, start the long-press timer)."""
        with self._cond:
            index = self._require_plugged_index(button)
            if self._firmware.held & (1 << index):
                raise SimulatorError(f"button {self.buttons[index]} is already down")
            self._firmware.down(index)
            if self.timed_long_press:
                delay = self.long_press_ms / 1000
                timer = threading.Timer(delay, self._long_timer_fired, (index, self._usb.generation))
                timer.daemon = True
                self._firmware.timers[index] = timer
                timer.start()

    def release(self, button: str | int) -> None:
        with self._cond:
            index = self._require_plugged_index(button)
            if not self._firmware.held & (1 << index):
                raise SimulatorError(f"button {self.buttons[index]} is not down")
            timer = self._firmware.timers.pop(index, None)
            if timer is not None:
                timer.cancel()
            self._firmware.up(index)

    def click(self, button: str | int, times: int = 1) -> None:
        """Short presses: DOWN then UP, ``times`` times."""
        with self._cond:
            index = self._require_plugged_index(button)
            for _ in range(times):
                self._firmware.down(index)
                self._firmware.up(index)

    def hold_long(self, button: str | int) -> None:
        """Push a button and keep it down past the long-press threshold (DOWN, LONG)."""
        with self._cond:
            index = self._require_plugged_index(button)
            self._firmware.down(index)
            self._firmware.long(index)

    def long_press(self, button: str | int) -> None:
        """A whole long press at once: DOWN, LONG, UP with the long flag."""
        with self._cond:
            index = self._require_plugged_index(button)
            self._firmware.down(index)
            self._firmware.long(index)
            self._firmware.up(index, hold_cs=min(255, self.long_press_ms // 10))

    def _require_plugged_index(self, button: str | int) -> int:
        if not self._usb.plugged:
            raise SimulatorError("the pedals are unplugged")
        return self.button_index(button)

    def _long_timer_fired(self, index: int, generation: int) -> None:
        with self._cond:
            if (
                self._usb.plugged
                and generation == self._usb.generation
                and self._firmware.timers.pop(index, None) is not None
            ):
                self._firmware.long(index)

    # --- fault injection ------------------------------------------------------------------------

    def corrupt_next(self, count: int = 1, how: str = "checksum") -> None:
        """Damage the next ``count`` reports (each still uses up a sequence number)."""
        if how not in CORRUPTIONS:
            raise SimulatorError(f"unknown corruption {how!r}; one of {', '.join(CORRUPTIONS)}")
        with self._cond:
            self._faults.corrupt.extend([how] * count)

    def duplicate_next(self, count: int = 1) -> None:
        """Deliver each of the next ``count`` reports twice."""
        with self._cond:
            self._faults.duplicate += count

    def drop_next(self, count: int = 1) -> None:
        """Lose the next ``count`` reports inside the device (a gap in the sequence numbers)."""
        with self._cond:
            self._faults.drop += count

    def stall(self, persistent: bool = False) -> None:
        """Halt the IN endpoint (reads fail with EPIPE until cleared; ``persistent``: never clears)."""
        with self._cond:
            self._faults.stalled = True
            self._faults.stall_persistent = persistent
            self._cond.notify_all()

    def unstall(self) -> None:
        with self._cond:
            self._faults.stalled = self._faults.stall_persistent = False
            self._cond.notify_all()

    def set_latency(self, seconds: float) -> None:
        """Hold each new report back for ``seconds`` before the endpoint delivers it (slow device)."""
        with self._cond:
            self._faults.latency_s = max(0.0, seconds)

    def hang(self) -> None:
        """Firmware hangs: it stays enumerated but answers neither control nor interrupt requests."""
        with self._cond:
            self._faults.hung = True

    def unhang(self) -> None:
        with self._cond:
            self._faults.hung = False
            self._cond.notify_all()

    def set_switch_fault(self, stuck: bool = False, wiring_open: bool = False) -> None:
        """What the next self-test reports about the switches."""
        with self._cond:
            self._firmware.set_switch_fault(stuck=stuck, wiring_open=wiring_open)

    # --- inspection -----------------------------------------------------------------------------

    @property
    def pending_reports(self) -> int:
        with self._cond:
            return len(self._firmware.queue)

    @property
    def kernel_driver_bound(self) -> bool:
        with self._cond:
            return p.INTERFACE_NUMBER in self._usb.kernel_bound

    @property
    def claimed(self) -> bool:
        with self._cond:
            return bool(self._usb.claimed)

    def wait_drained(self, timeout: float) -> bool:
        """Wait until the host has read every report the device holds."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._firmware.queue, timeout)

    def status(self) -> dict[str, Any]:
        with self._cond:
            held = self._firmware.held
            return {
                "plugged": self._usb.plugged,
                "address": self._usb.address,
                "serial": self.serial,
                "held": [b for i, b in enumerate(self.buttons) if held & (1 << i)],
                "pending_reports": len(self._firmware.queue),
                "kernel_driver": bool(self._usb.kernel_bound),
                "claimed": bool(self._usb.claimed),
                "stalled": self._faults.stalled,
                "hung": self._faults.hung,
                "latency_s": self._faults.latency_s,
            }
