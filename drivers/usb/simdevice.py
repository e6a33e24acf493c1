"""A simulated dealer-pedal device: its firmware, its descriptors and the host's view of it.

:class:`SimulatedPedal` is what :class:`drivers.usb.simbackend.SimulatedBackend` puts on its
simulated bus. It behaves like the real device as the libusb-1.0 backend sees it on Linux:

* at plug-in the kernel has configured it and bound its HID driver to interface 0, so
  ``set_configuration`` and ``claim_interface`` fail with ``EBUSY`` until the driver is
  detached;
* reports wait in a 32-deep buffer until the host polls the interrupt IN endpoint (the
  oldest is dropped on overflow, which the sequence numbers reveal);
* unplugging removes it from enumeration, fails every open handle and every pending read
  with ``ENODEV``; replugging gives it a new address and restarts its firmware.

The scripting API (``press``, ``release``, ``click``, ``long_press``, ``hold_long``) drives
the buttons; fault injection (``corrupt_next``, ``duplicate_next``, ``drop_next``,
``stall``, ``set_latency``, ``hang``, ``unplug``/``replug``) breaks it on purpose.
Buttons are named (``"left"``) or numbered as printed on the pedals (``"1"`` is the first);
an ``int`` is a 0-based index.
"""

from __future__ import annotations

import random
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from drivers.usb import protocol as p
from drivers.usb.codec import (
    PedalReport,
    ReportError,
    SelfTestReply,
    crc8,
    decode_report,
    encode_report,
    encode_self_test,
)
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.protocol import EventType

CORRUPTIONS = ("checksum", "truncate", "garbage", "report-id", "semantic", "oversize")
LIBUSB_SPEED_FULL = 2


class SimulatorError(RuntimeError):
    """A scripting request the simulated device cannot carry out (e.g. press while unplugged)."""


class Descriptor:
    """A descriptor as pyusb's backends return it: every field an attribute."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def fields(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        return f"Descriptor({self.__dict__!r})"


@dataclass
class LinkCounters:
    """What the host did to the device: tests assert on the real pyusb call path with these."""

    opens: int = 0
    set_configurations: int = 0
    kernel_detaches: int = 0
    kernel_attaches: int = 0
    claims: int = 0
    releases: int = 0
    clear_halts: int = 0
    reports_sent: int = 0
    reports_read: int = 0
    reports_dropped: int = 0
    control_requests: int = 0


@dataclass
class _Faults:
    corrupt: deque[str] = field(default_factory=deque)
    duplicate: int = 0
    drop: int = 0
    stalled: bool = False
    stall_persistent: bool = False
    latency_s: float = 0.0
    hung: bool = False


class SimulatedPedal:
    """One simulated pedal unit. Thread-safe: every method takes the device lock."""

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
    ) -> None:
        if not 1 <= len(buttons) <= p.MAX_BUTTONS:
            raise ValueError(f"a pedal unit has 1..{p.MAX_BUTTONS} buttons, not {len(buttons)}")
        self.serial = serial
        self.buttons = tuple(b.lower() for b in buttons)
        self.firmware = firmware
        self.long_press_ms = long_press_ms
        self.timed_long_press = timed_long_press
        self.has_kernel_driver = kernel_driver
        self.strings = {1: manufacturer, 2: product, 3: serial}
        self._device_fields = dict(
            bLength=18,
            bDescriptorType=0x01,
            bcdUSB=0x0200,
            bDeviceClass=0x00,
            bDeviceSubClass=0x00,
            bDeviceProtocol=0x00,
            bMaxPacketSize0=64,
            idVendor=vendor_id,
            idProduct=product_id,
            bcdDevice=p.bcd_from_version(firmware),
            iManufacturer=1,
            iProduct=2,
            iSerialNumber=3,
            bNumConfigurations=1,
        )
        self.bus = bus
        self.port = port
        self.counters = LinkCounters()
        self._cond = threading.Condition()
        self._rng = random.Random(seed)
        self._faults = _Faults()
        self._next_address = 5
        self.plugged = False
        self.generation = 0
        self.address = 0
        self._plug_in()

    # --- descriptors ------------------------------------------------------------------------

    def device_descriptor(self) -> Descriptor:
        with self._cond:
            return Descriptor(
                **self._device_fields,
                bus=self.bus,
                address=self.address,
                port_number=self.port,
                port_numbers=(self.port,),
                speed=LIBUSB_SPEED_FULL,
            )

    def configuration_descriptor(self, index: int) -> Descriptor:
        if index != 0:
            raise usb_error(LibusbError.NOT_FOUND)
        return Descriptor(
            bLength=9,
            bDescriptorType=0x02,
            wTotalLength=len(self._configuration_bytes()),
            bNumInterfaces=1,
            bConfigurationValue=p.CONFIGURATION_VALUE,
            iConfiguration=0,
            bmAttributes=0x80,  # bus powered, no remote wake-up
            bMaxPower=50,  # 100 mA in 2 mA units
            extra_descriptors=[],
        )

    def interface_descriptor(self, intf: int, alt: int, config: int) -> Descriptor:
        self.configuration_descriptor(config)
        if intf != 0:
            raise IndexError(f"Invalid interface index {intf}")
        if alt != 0:
            raise IndexError(f"Invalid alternate setting index {alt}")
        return Descriptor(
            bLength=9,
            bDescriptorType=0x04,
            bInterfaceNumber=p.INTERFACE_NUMBER,
            bAlternateSetting=0,
            bNumEndpoints=1,
            bInterfaceClass=p.INTERFACE_CLASS,
            bInterfaceSubClass=p.INTERFACE_SUBCLASS,
            bInterfaceProtocol=p.INTERFACE_PROTOCOL,
            iInterface=0,
            extra_descriptors=list(self._hid_descriptor_bytes()),
        )

    def endpoint_descriptor(self, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        self.interface_descriptor(intf, alt, config)
        if ep != 0:
            raise IndexError(f"Invalid endpoint index {ep}")
        return Descriptor(
            bLength=7,
            bDescriptorType=0x05,
            bEndpointAddress=p.ENDPOINT_IN,
            bmAttributes=p.ENDPOINT_ATTRIBUTES,
            wMaxPacketSize=p.MAX_PACKET_SIZE,
            bInterval=p.POLL_INTERVAL_MS,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    def _device_bytes(self) -> bytes:
        f = self._device_fields
        return struct.pack(
            "<BBHBBBBHHHBBBB",
            f["bLength"], f["bDescriptorType"], f["bcdUSB"], f["bDeviceClass"],
            f["bDeviceSubClass"], f["bDeviceProtocol"], f["bMaxPacketSize0"], f["idVendor"],
            f["idProduct"], f["bcdDevice"], f["iManufacturer"], f["iProduct"],
            f["iSerialNumber"], f["bNumConfigurations"],
        )  # fmt: skip

    def _hid_descriptor_bytes(self) -> bytes:
        return struct.pack("<BBHBBBH", 9, 0x21, 0x0111, 0, 1, p.DESCRIPTOR_HID_REPORT, len(p.HID_REPORT_DESCRIPTOR))

    def _configuration_bytes(self) -> bytes:
        interface = struct.pack(
            "<BBBBBBBBB", 9, 0x04, p.INTERFACE_NUMBER, 0, 1,
            p.INTERFACE_CLASS, p.INTERFACE_SUBCLASS, p.INTERFACE_PROTOCOL, 0,
        )  # fmt: skip
        endpoint = struct.pack("<BBBBHB", 7, 0x05, p.ENDPOINT_IN, p.ENDPOINT_ATTRIBUTES, p.MAX_PACKET_SIZE, p.POLL_INTERVAL_MS)
        body = interface + self._hid_descriptor_bytes() + endpoint
        header = struct.pack("<BBHBBBBB", 9, 0x02, 9 + len(body), 1, p.CONFIGURATION_VALUE, 0, 0x80, 50)
        return header + body

    # --- the host's side (called by the simulated backend) ----------------------------------

    def check_alive(self, generation: int) -> None:
        if not self.plugged or generation != self.generation:
            raise usb_error(LibusbError.NO_DEVICE)

    def open(self, generation: int) -> None:
        with self._cond:
            self.check_alive(generation)
            self.counters.opens += 1

    def close(self, generation: int, owner: object) -> None:
        with self._cond:
            if generation == self.generation:
                for intf in [i for i, o in self._claimed.items() if o is owner]:
                    del self._claimed[intf]

    def get_configuration(self, generation: int) -> int:
        with self._cond:
            self.check_alive(generation)
            return self.configuration

    def set_configuration(self, generation: int, value: int) -> None:
        with self._cond:
            self.check_alive(generation)
            if self._kernel_bound or self._claimed:
                raise usb_error(LibusbError.BUSY)
            if value not in (0, p.CONFIGURATION_VALUE):
                raise usb_error(LibusbError.NOT_FOUND)
            self.configuration = value
            self._faults.stalled = self._faults.stall_persistent  # a new configuration resets halts
            self.counters.set_configurations += 1

    def is_kernel_driver_active(self, generation: int, intf: int) -> bool:
        with self._cond:
            self.check_alive(generation)
            return intf in self._kernel_bound

    def detach_kernel_driver(self, generation: int, intf: int) -> None:
        with self._cond:
            self.check_alive(generation)
            if intf not in self._kernel_bound:
                raise usb_error(LibusbError.NOT_FOUND)
            self._kernel_bound.discard(intf)
            self.counters.kernel_detaches += 1

    def attach_kernel_driver(self, generation: int, intf: int) -> None:
        with self._cond:
            self.check_alive(generation)
            if intf in self._kernel_bound or intf in self._claimed:
                raise usb_error(LibusbError.BUSY)
            if intf != p.INTERFACE_NUMBER or not self.has_kernel_driver:
                raise usb_error(LibusbError.NOT_FOUND)
            self._kernel_bound.add(intf)
            self.counters.kernel_attaches += 1

    def claim_interface(self, generation: int, intf: int, owner: object) -> None:
        with self._cond:
            self.check_alive(generation)
            if intf != p.INTERFACE_NUMBER or self.configuration == 0:
                raise usb_error(LibusbError.NOT_FOUND)
            if intf in self._kernel_bound or self._claimed.get(intf, owner) is not owner:
                raise usb_error(LibusbError.BUSY)
            self._claimed[intf] = owner
            self.counters.claims += 1

    def release_interface(self, generation: int, intf: int, owner: object) -> None:
        with self._cond:
            self.check_alive(generation)
            if self._claimed.get(intf) is not owner:
                raise usb_error(LibusbError.NOT_FOUND)
            del self._claimed[intf]
            self.counters.releases += 1

    def clear_halt(self, generation: int, ep: int) -> None:
        with self._cond:
            self.check_alive(generation)
            if ep != p.ENDPOINT_IN:
                raise usb_error(LibusbError.NOT_FOUND)
            self._faults.stalled = self._faults.stall_persistent
            self.counters.clear_halts += 1
            self._cond.notify_all()

    def read_interrupt(self, generation: int, ep: int, intf: int, size: int, timeout_ms: int, owner: object) -> bytes:
        """Block until a report is due, the timeout passes (``USBTimeoutError``) or the link fails."""
        deadline = None if timeout_ms == 0 else time.monotonic() + timeout_ms / 1000
        with self._cond:
            self.check_alive(generation)
            if ep != p.ENDPOINT_IN:
                raise usb_error(LibusbError.NOT_FOUND)
            if intf in self._kernel_bound or self._claimed.get(intf, owner) is not owner:
                raise usb_error(LibusbError.BUSY)
            while True:
                self.check_alive(generation)
                if self._faults.stalled:
                    raise usb_error(LibusbError.PIPE)
                now = time.monotonic()
                wait = None if deadline is None else deadline - now
                if self._queue and not self._faults.hung:
                    due, raw = self._queue[0]
                    if due <= now:
                        self._queue.popleft()
                        self.counters.reports_read += 1
                        self._cond.notify_all()
                        if len(raw) > size:
                            raise usb_error(LibusbError.OVERFLOW)
                        return raw
                    wait = due - now if wait is None else min(wait, due - now)
                if wait is not None and wait <= 0:
                    raise usb_error(LibusbError.TIMEOUT)
                self._cond.wait(wait)

    def control(self, generation: int, request_type: int, request: int, value: int, index: int, length: int, timeout_ms: int) -> bytes:
        """Answer a control request on endpoint 0 (IN direction; OUT requests are refused)."""
        with self._cond:
            self.check_alive(generation)
            self.counters.control_requests += 1
            if self._faults.hung:
                # A hung device NAKs forever: the host gives up after its timeout.
                self._cond.wait_for(lambda: not self._faults.hung or not self.plugged, timeout_ms / 1000 or None)
                self.check_alive(generation)
                if self._faults.hung:
                    raise usb_error(LibusbError.TIMEOUT)
            reply = self._control_reply(request_type, request, value, index)
            if reply is None:
                raise usb_error(LibusbError.PIPE)  # the device stalls requests it does not know
            return reply[:length]

    def _control_reply(self, request_type: int, request: int, value: int, index: int) -> bytes | None:
        kind, number = value >> 8, value & 0xFF
        if request_type == p.STANDARD_IN_DEVICE and request == p.REQUEST_GET_DESCRIPTOR:
            if kind == 0x01:
                return self._device_bytes()
            if kind == 0x02 and number == 0:
                return self._configuration_bytes()
            if kind == 0x03 and number == 0:
                return bytes((4, 0x03, 0x09, 0x04))  # one language: 0x0409 English (US)
            if kind == 0x03 and number in self.strings:
                text = self.strings[number].encode("utf-16-le")
                return bytes((2 + len(text), 0x03)) + text
            return None
        if request_type == p.STANDARD_IN_INTERFACE and request == p.REQUEST_GET_DESCRIPTOR:
            if kind == p.DESCRIPTOR_HID_REPORT and index == p.INTERFACE_NUMBER:
                return p.HID_REPORT_DESCRIPTOR
            return None
        if request_type == p.STANDARD_IN_DEVICE and request == p.REQUEST_GET_STATUS:
            return b"\x00\x00"
        if request_type == p.STANDARD_IN_DEVICE and request == 0x08:  # GET_CONFIGURATION
            return bytes((self.configuration,))
        if request_type == p.VENDOR_IN_INTERFACE and request == p.REQUEST_SELF_TEST and index == p.INTERFACE_NUMBER:
            flags = self._self_test_flags
            self._self_test_flags &= ~p.SelfTestFlag.BUFFER_OVERFLOW
            return encode_self_test(SelfTestReply(flags, (1 << len(self.buttons)) - 1, self._held, self.long_press_ms))
        return None

    # --- plugging ---------------------------------------------------------------------------

    def _plug_in(self) -> None:
        self.plugged = True
        self.generation += 1
        self.address = self._next_address
        self._next_address = self._next_address % 127 + 1
        self.configuration = p.CONFIGURATION_VALUE  # the kernel configures it on enumeration
        self._kernel_bound: set[int] = {p.INTERFACE_NUMBER} if self.has_kernel_driver else set()
        self._claimed: dict[int, object] = {}
        self._queue: deque[tuple[float, bytes]] = deque()
        self._sequence = 0
        self._held = 0
        self._long_fired: set[int] = set()
        self._down_at: dict[int, float] = {}
        self._timers: dict[int, threading.Timer] = {}
        self._self_test_flags = 0
        self._faults.stalled = self._faults.stall_persistent = False
        self._faults.hung = False

    def unplug(self) -> None:
        """Pull the cable: gone from enumeration, open handles and pending reads fail with ENODEV."""
        with self._cond:
            if not self.plugged:
                raise SimulatorError("the pedals are already unplugged")
            self.plugged = False
            for timer in self._timers.values():
                timer.cancel()
            self._queue.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """Plug the cable back: a new address, firmware restarted, the kernel driver bound again."""
        with self._cond:
            if self.plugged:
                raise SimulatorError("the pedals are already plugged in")
            self._plug_in()
            self._cond.notify_all()

    # --- buttons ----------------------------------------------------------------------------

    def button_index(self, button: str | int) -> int:
        if isinstance(button, int):
            index = button
        elif button.isdigit():
            index = int(button) - 1
        elif button.lower() in self.buttons:
            index = self.buttons.index(button.lower())
        else:
            raise SimulatorError(f"no button {button!r}; buttons are {', '.join(self.buttons)} or 1..{len(self.buttons)}")
        if not 0 <= index < len(self.buttons):
            raise SimulatorError(f"no button {button!r}; buttons are {', '.join(self.buttons)} or 1..{len(self.buttons)}")
        return index

    def press(self, button: str | int) -> None:
        """Push a button down (and, with ``timed_long_press``, start the long-press timer)."""
        with self._cond:
            index = self._require_plugged_index(button)
            if self._held & (1 << index):
                raise SimulatorError(f"button {self.buttons[index]} is already down")
            self._down(index)
            if self.timed_long_press:
                timer = threading.Timer(self.long_press_ms / 1000, self._long_timer_fired, (index, self.generation))
                timer.daemon = True
                self._timers[index] = timer
                timer.start()

    def release(self, button: str | int) -> None:
        with self._cond:
            index = self._require_plugged_index(button)
            if not self._held & (1 << index):
                raise SimulatorError(f"button {self.buttons[index]} is not down")
            timer = self._timers.pop(index, None)
            if timer is not None:
                timer.cancel()
            self._up(index)

    def click(self, button: str | int, times: int = 1) -> None:
        """Short presses: DOWN then UP, ``times`` times."""
        with self._cond:
            index = self._require_plugged_index(button)
            for _ in range(times):
                self._down(index)
                self._up(index)

    def hold_long(self, button: str | int) -> None:
        """Push a button and keep it down past the long-press threshold (DOWN, LONG)."""
        with self._cond:
            index = self._require_plugged_index(button)
            self._down(index)
            self._long(index)

    def long_press(self, button: str | int) -> None:
        """A whole long press at once: DOWN, LONG, UP with the long flag."""
        with self._cond:
            index = self._require_plugged_index(button)
            self._down(index)
            self._long(index)
            self._up(index, hold_cs=min(255, self.long_press_ms // 10))

    def _require_plugged_index(self, button: str | int) -> int:
        if not self.plugged:
            raise SimulatorError("the pedals are unplugged")
        return self.button_index(button)

    def _long_timer_fired(self, index: int, generation: int) -> None:
        with self._cond:
            if self.plugged and generation == self.generation and self._timers.pop(index, None) is not None:
                self._long(index)

    def _down(self, index: int) -> None:
        self._held |= 1 << index
        self._long_fired.discard(index)
        self._down_at[index] = time.monotonic()
        self._send(EventType.DOWN, index, hold_cs=0)

    def _long(self, index: int) -> None:
        self._long_fired.add(index)
        self._send(EventType.LONG, index, hold_cs=min(255, self.long_press_ms // 10))

    def _up(self, index: int, hold_cs: int | None = None) -> None:
        self._held &= ~(1 << index)
        if hold_cs is None:
            hold_cs = min(255, int((time.monotonic() - self._down_at.get(index, time.monotonic())) * 100))
        long = index in self._long_fired
        self._long_fired.discard(index)
        self._send(EventType.UP, index, hold_cs=hold_cs, long=long)

    def _send(self, event: EventType, index: int, *, hold_cs: int, long: bool = False) -> None:
        report = PedalReport(self._sequence, event, index, self._held, long, hold_cs)
        self._sequence = (self._sequence + 1) % 256
        if self._faults.drop:
            self._faults.drop -= 1
            self.counters.reports_dropped += 1
            return
        raw = encode_report(report)
        if self._faults.corrupt:
            raw = self._corrupt(raw, self._faults.corrupt.popleft())
        copies = 1
        if self._faults.duplicate:
            self._faults.duplicate -= 1
            copies = 2
        due = time.monotonic() + self._faults.latency_s
        for _ in range(copies):
            if len(self._queue) >= p.DEVICE_REPORT_BUFFER:
                self._queue.popleft()
                self._self_test_flags |= p.SelfTestFlag.BUFFER_OVERFLOW
                self.counters.reports_dropped += 1
            self._queue.append((due, raw))
            self.counters.reports_sent += 1
        self._cond.notify_all()

    def _corrupt(self, raw: bytes, how: str) -> bytes:
        data = bytearray(raw)
        if how == "checksum":
            data[1 + self._rng.randrange(6)] ^= 1 << self._rng.randrange(8)
        elif how == "truncate":
            del data[5:]
        elif how == "garbage":
            while True:
                data = bytearray(self._rng.randbytes(p.REPORT_LENGTH))
                try:
                    decode_report(bytes(data))
                except ReportError:
                    break
        elif how == "report-id":
            data[0] = 0x02
            data[-1] = crc8(bytes(data[:-1]))
        elif how == "semantic":
            data[4] ^= 1 << data[3]  # the held bitmap now contradicts the event, checksum valid
            data[-1] = crc8(bytes(data[:-1]))
        elif how == "oversize":
            data += b"\x00"
        return bytes(data)

    # --- fault injection --------------------------------------------------------------------

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
            self._self_test_flags &= ~(p.SelfTestFlag.SWITCH_STUCK | p.SelfTestFlag.WIRING_OPEN)
            if stuck:
                self._self_test_flags |= p.SelfTestFlag.SWITCH_STUCK
            if wiring_open:
                self._self_test_flags |= p.SelfTestFlag.WIRING_OPEN

    # --- inspection ---------------------------------------------------------------------------

    @property
    def pending_reports(self) -> int:
        with self._cond:
            return len(self._queue)

    @property
    def kernel_driver_bound(self) -> bool:
        with self._cond:
            return p.INTERFACE_NUMBER in self._kernel_bound

    @property
    def claimed(self) -> bool:
        with self._cond:
            return bool(self._claimed)

    def wait_drained(self, timeout: float) -> bool:
        """Wait until the host has read every report the device holds."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue, timeout)

    def status(self) -> dict[str, Any]:
        with self._cond:
            return {
                "plugged": self.plugged,
                "address": self.address,
                "serial": self.serial,
                "held": [b for i, b in enumerate(self.buttons) if self._held & (1 << i)],
                "pending_reports": len(self._queue),
                "kernel_driver": bool(self._kernel_bound),
                "claimed": bool(self._claimed),
                "stalled": self._faults.stalled,
                "hung": self._faults.hung,
                "latency_s": self._faults.latency_s,
            }
