"""A pyusb backend (``usb.backend.IBackend``) whose bus holds simulated pedal units.

Pass it to ``usb.core.find(backend=...)`` and the real pyusb code runs on top of it:
``Device``, ``Configuration``/``Interface``/``Endpoint`` objects, string descriptors through
``usb.util.get_string`` (control transfers), ``set_configuration``, ``claim_interface``,
``Endpoint.read``. Errors are raised as the libusb-1.0 backend raises them. No libusb is
needed, which is why this is the test path; on a table PC the driver uses libusb-1.0.

Device identities carry the plug-in generation: after an unplug/replug every old identity
and handle fails with ``ENODEV``, as a re-enumerated device does.
"""

from __future__ import annotations

import array
import itertools
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import usb.backend

from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError, usb_error


@dataclass(frozen=True)
class SimDeviceId:
    """What ``enumerate_devices`` yields: one device at one plug-in."""

    pedal: SimulatedPedal = field(compare=False)
    generation: int
    key: int  # position on the simulated bus


@dataclass(eq=False)
class SimHandle:
    """An open device handle (``open_device``); owns the interfaces it claims."""

    device: SimDeviceId
    number: int
    closed: bool = False


class SimulatedBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb ships no types: IBackend is Any
    """A simulated USB bus; add pedal units with :meth:`attach` (or the constructor)."""

    def __init__(self, pedals: Iterable[SimulatedPedal] = ()) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._pedals: list[SimulatedPedal] = list(pedals)
        self._handles = itertools.count(1)

    def attach(self, pedal: SimulatedPedal) -> SimulatedPedal:
        with self._lock:
            self._pedals.append(pedal)
        return pedal

    @property
    def pedals(self) -> tuple[SimulatedPedal, ...]:
        with self._lock:
            return tuple(self._pedals)

    # --- enumeration and descriptors ----------------------------------------------------------

    def enumerate_devices(self) -> Iterator[SimDeviceId]:
        for key, pedal in enumerate(self.pedals):
            if pedal.plugged:
                yield SimDeviceId(pedal, pedal.generation, key)

    def get_parent(self, dev: SimDeviceId) -> None:
        return None  # the pedals hang off a root port in the simulation

    def get_device_descriptor(self, dev: SimDeviceId) -> Descriptor:
        return dev.pedal.device_descriptor()

    def get_configuration_descriptor(self, dev: SimDeviceId, config: int) -> Descriptor:
        return dev.pedal.configuration_descriptor(config)

    def get_interface_descriptor(self, dev: SimDeviceId, intf: int, alt: int, config: int) -> Descriptor:
        return dev.pedal.interface_descriptor(intf, alt, config)

    def get_endpoint_descriptor(self, dev: SimDeviceId, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        return dev.pedal.endpoint_descriptor(ep, intf, alt, config)

    # --- handles ------------------------------------------------------------------------------

    def open_device(self, dev: SimDeviceId) -> SimHandle:
        dev.pedal.open(dev.generation)
        return SimHandle(dev, next(self._handles))

    def close_device(self, dev_handle: SimHandle) -> None:
        dev_handle.closed = True
        dev_handle.device.pedal.close(dev_handle.device.generation, dev_handle)

    @staticmethod
    def _live(handle: SimHandle) -> tuple[SimulatedPedal, int]:
        if handle.closed:
            raise usb_error(LibusbError.INVALID_PARAM)
        return handle.device.pedal, handle.device.generation

    def set_configuration(self, dev_handle: SimHandle, config_value: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.set_configuration(generation, config_value)

    def get_configuration(self, dev_handle: SimHandle) -> int:
        pedal, generation = self._live(dev_handle)
        return pedal.get_configuration(generation)

    def set_interface_altsetting(self, dev_handle: SimHandle, intf: int, altsetting: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.check_alive(generation)
        if intf != 0 or altsetting != 0:
            raise usb_error(LibusbError.NOT_FOUND)

    def claim_interface(self, dev_handle: SimHandle, intf: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.claim_interface(generation, intf, dev_handle)

    def release_interface(self, dev_handle: SimHandle, intf: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.release_interface(generation, intf, dev_handle)

    def is_kernel_driver_active(self, dev_handle: SimHandle, intf: int) -> bool:
        pedal, generation = self._live(dev_handle)
        return pedal.is_kernel_driver_active(generation, intf)

    def detach_kernel_driver(self, dev_handle: SimHandle, intf: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.detach_kernel_driver(generation, intf)

    def attach_kernel_driver(self, dev_handle: SimHandle, intf: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.attach_kernel_driver(generation, intf)

    def clear_halt(self, dev_handle: SimHandle, ep: int) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.clear_halt(generation, ep)

    def reset_device(self, dev_handle: SimHandle) -> None:
        pedal, generation = self._live(dev_handle)
        pedal.clear_halt(generation, 0x81)

    # --- transfers ----------------------------------------------------------------------------

    def intr_read(self, dev_handle: SimHandle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        pedal, generation = self._live(dev_handle)
        size = len(buff) * buff.itemsize
        raw = pedal.read_interrupt(generation, ep, intf, size, timeout, dev_handle)
        memoryview(buff).cast("B")[: len(raw)] = raw
        return len(raw)

    def ctrl_transfer(
        self,
        dev_handle: SimHandle,
        bmRequestType: int,
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array[int],
        timeout: int,
    ) -> int:
        pedal, generation = self._live(dev_handle)
        if not bmRequestType & 0x80:
            # Host-to-device requests: the pedals define none, so the device stalls them.
            pedal.check_alive(generation)
            raise usb_error(LibusbError.PIPE)
        length = len(data) * data.itemsize
        reply = pedal.control(generation, bmRequestType, bRequest, wValue, wIndex, length, timeout)
        memoryview(data).cast("B")[: len(reply)] = reply
        return len(reply)
