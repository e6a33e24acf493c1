"""A simulated pedal unit as the host's USB stack sees it attached: plugged or not, its address,
its configuration, which driver holds its interface.

It behaves as Linux with libusb-1.0 does: at plug-in the kernel has configured the unit and
bound its HID driver to interface 0, so ``set_configuration`` and ``claim_interface`` fail with
``EBUSY`` until that driver is detached; unplugging fails every identity and handle of that
plug-in with ``ENODEV``; replugging is a new generation at a new address. Every method is
called with the unit's lock held (:class:`~drivers.simulators.pedals.device.SimulatedPedal`
takes it) and raises what the libusb-1.0 backend raises.
"""

from __future__ import annotations

from drivers.simulators.pedals.counters import UnitCounters
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, usb_error


class Attachment:
    """Plug-in generations, address, configuration, kernel driver binding and interface claims."""

    def __init__(self, counters: UnitCounters, *, kernel_driver: bool = True) -> None:
        self.counters = counters
        self.has_kernel_driver = kernel_driver
        self.plugged = False
        self.generation = 0
        self.address = 0
        self.configuration = p.CONFIGURATION_VALUE
        self.kernel_bound: set[int] = set()
        self.claimed: dict[int, object] = {}
        self._next_address = 5

    def plug_in(self) -> None:
        """Enumerated anew: the next generation and address, configured, the HID driver bound."""
        self.plugged = True
        self.generation += 1
        self.address = self._next_address
        self._next_address = self._next_address % 127 + 1
        self.configuration = p.CONFIGURATION_VALUE  # the kernel configures it on enumeration
        self.kernel_bound = {p.INTERFACE_NUMBER} if self.has_kernel_driver else set()
        self.claimed = {}

    def unplug(self) -> None:
        self.plugged = False

    def check_alive(self, generation: int) -> None:
        if not self.plugged or generation != self.generation:
            raise usb_error(LibusbError.NO_DEVICE)

    def open(self, generation: int) -> None:
        self.check_alive(generation)
        self.counters.opens += 1

    def close(self, generation: int, owner: object) -> None:
        """A handle closed: the interfaces it claimed are free again."""
        if generation == self.generation:
            for intf in [i for i, o in self.claimed.items() if o is owner]:
                del self.claimed[intf]

    def get_configuration(self, generation: int) -> int:
        self.check_alive(generation)
        return self.configuration

    def set_configuration(self, generation: int, value: int) -> None:
        self.check_alive(generation)
        if self.kernel_bound or self.claimed:
            raise usb_error(LibusbError.BUSY)
        if value not in (0, p.CONFIGURATION_VALUE):
            raise usb_error(LibusbError.NOT_FOUND)
        self.configuration = value
        self.counters.set_configurations += 1

    def is_kernel_driver_active(self, generation: int, intf: int) -> bool:
        self.check_alive(generation)
        return intf in self.kernel_bound

    def detach_kernel_driver(self, generation: int, intf: int) -> None:
        self.check_alive(generation)
        if intf not in self.kernel_bound:
            raise usb_error(LibusbError.NOT_FOUND)
        self.kernel_bound.discard(intf)
        self.counters.kernel_detaches += 1

    def attach_kernel_driver(self, generation: int, intf: int) -> None:
        self.check_alive(generation)
        if intf in self.kernel_bound or intf in self.claimed:
            raise usb_error(LibusbError.BUSY)
        if intf != p.INTERFACE_NUMBER or not self.has_kernel_driver:
            raise usb_error(LibusbError.NOT_FOUND)
        self.kernel_bound.add(intf)
        self.counters.kernel_attaches += 1

    def claim_interface(self, generation: int, intf: int, owner: object) -> None:
        self.check_alive(generation)
        if intf != p.INTERFACE_NUMBER or self.configuration == 0:
            raise usb_error(LibusbError.NOT_FOUND)
        if intf in self.kernel_bound or self.claimed.get(intf, owner) is not owner:
            raise usb_error(LibusbError.BUSY)
        self.claimed[intf] = owner
        self.counters.claims += 1

    def release_interface(self, generation: int, intf: int, owner: object) -> None:
        self.check_alive(generation)
        if self.claimed.get(intf) is not owner:
            raise usb_error(LibusbError.NOT_FOUND)
        del self.claimed[intf]
        self.counters.releases += 1

    def check_reader(self, intf: int, owner: object) -> None:
        """Reading needs the interface: not while the HID driver or another handle holds it."""
        if intf in self.kernel_bound or self.claimed.get(intf, owner) is not owner:
            raise usb_error(LibusbError.BUSY)
