"""The real pyusb code (``usb.core.find``, ``Device``, ``Endpoint.read``, ``usb.util``) running on
the simulated backend: descriptors, strings, kernel-driver rules, errors as libusb gives them."""

from __future__ import annotations

import errno

import pytest
import usb.core
import usb.util

from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.codec import decode_report, decode_self_test
from drivers.usb.protocol import EventType


def find(bus: SimulatedBackend, serial: str | None = None) -> usb.core.Device:
    return usb.core.find(
        idVendor=p.VENDOR_ID,
        idProduct=p.PRODUCT_ID,
        backend=bus,
        custom_match=None if serial is None else (lambda d: d.serial_number == serial),
    )


def open_for_reading(dev: usb.core.Device) -> usb.core.Endpoint:
    dev.detach_kernel_driver(0)
    dev.set_configuration()
    usb.util.claim_interface(dev, 0)
    intf = dev.get_active_configuration()[(0, 0)]
    return usb.util.find_descriptor(intf, bEndpointAddress=p.ENDPOINT_IN)


def test_descriptors_and_strings_through_pyusb(bus: SimulatedBackend) -> None:
    dev = find(bus, "PED-SIM-0001")
    assert dev is not None
    assert (dev.manufacturer, dev.product, dev.serial_number) == (p.MANUFACTURER, p.PRODUCT, "PED-SIM-0001")
    assert dev.bcdDevice == 0x0102 and p.firmware_version(dev.bcdDevice) == "1.02"
    assert dev.langids == (0x0409,)
    cfg = dev[0]
    assert (cfg.bConfigurationValue, cfg.bNumInterfaces, cfg.bMaxPower) == (1, 1, 50)
    intf = cfg[(0, 0)]
    assert (intf.bInterfaceClass, intf.bNumEndpoints) == (p.INTERFACE_CLASS, 1)
    assert bytes(intf.extra_descriptors)[:2] == b"\x09\x21"  # the HID class descriptor
    ep = intf[0]
    expected = (0x81, 0x03, p.max_packet_size(), 10)
    assert (ep.bEndpointAddress, ep.bmAttributes, ep.wMaxPacketSize, ep.bInterval) == expected
    # The whole tree prints as `lsusb -v` would: every pyusb accessor works on the simulation.
    assert "ENDPOINT 0x81: Interrupt IN" in str(dev)
    usb.util.dispose_resources(dev)


def test_raw_descriptors_agree_with_the_parsed_ones(bus: SimulatedBackend) -> None:
    dev = find(bus)
    raw_device = bytes(dev.ctrl_transfer(0x80, 0x06, 0x0100, 0, 18))
    assert raw_device[8:12] == bytes((0x09, 0x12, 0x01, 0x00))  # 1209:0001 little-endian
    raw_config = bytes(dev.ctrl_transfer(0x80, 0x06, 0x0200, 0, 255))
    assert len(raw_config) == dev[0].wTotalLength == 34
    assert raw_config[18:20] == b"\x09\x21" and raw_config[27:29] == b"\x07\x05"
    usb.util.dispose_resources(dev)


def test_serial_number_selects_the_unit(pedal: SimulatedPedal) -> None:
    other = SimulatedPedal("PED-SIM-0002", timed_long_press=False)
    bus = SimulatedBackend([pedal, other])
    assert find(bus, "PED-SIM-0002").serial_number == "PED-SIM-0002"
    assert find(bus, "PED-NOPE") is None
    assert len(list(usb.core.find(find_all=True, idVendor=p.VENDOR_ID, backend=bus))) == 2


def test_kernel_driver_must_be_detached_before_configuring_and_claiming(
    bus: SimulatedBackend, pedal: SimulatedPedal
) -> None:
    dev = find(bus)
    assert dev.is_kernel_driver_active(0)
    with pytest.raises(usb.core.USBError) as busy:
        dev.set_configuration()
    assert busy.value.errno == errno.EBUSY
    with pytest.raises(usb.core.USBError) as busy:
        usb.util.claim_interface(dev, 0)
    assert busy.value.errno == errno.EBUSY
    dev.detach_kernel_driver(0)
    assert not dev.is_kernel_driver_active(0)
    dev.set_configuration()
    usb.util.claim_interface(dev, 0)
    assert pedal.claimed and pedal.counters.kernel_detaches == 1
    with pytest.raises(usb.core.USBError) as missing:
        dev.detach_kernel_driver(0)  # nothing left to detach: libusb says NOT_FOUND
    assert missing.value.errno == errno.ENOENT
    usb.util.release_interface(dev, 0)
    dev.attach_kernel_driver(0)
    assert pedal.kernel_driver_bound
    usb.util.dispose_resources(dev)


def test_second_claimer_is_refused(bus: SimulatedBackend) -> None:
    first = find(bus)
    open_for_reading(first)
    second = find(bus)
    with pytest.raises(usb.core.USBError) as busy:
        usb.util.claim_interface(second, 0)
    assert busy.value.errno == errno.EBUSY
    usb.util.dispose_resources(first)  # closing the handle releases the claim
    usb.util.claim_interface(second, 0)
    usb.util.dispose_resources(second)


def test_interrupt_reads_and_timeouts(bus: SimulatedBackend, pedal: SimulatedPedal) -> None:
    dev = find(bus)
    ep = open_for_reading(dev)
    with pytest.raises(usb.core.USBTimeoutError) as idle:
        ep.read(ep.wMaxPacketSize, timeout=20)
    assert idle.value.errno == errno.ETIMEDOUT
    pedal.click("right")
    down = decode_report(bytes(ep.read(ep.wMaxPacketSize, timeout=1000)))
    up = decode_report(bytes(ep.read(ep.wMaxPacketSize, timeout=1000)))
    assert (down.event, down.button, up.event, up.sequence) == (EventType.DOWN, 2, EventType.UP, 1)
    usb.util.dispose_resources(dev)


def test_stall_clear_halt_and_overflow(bus: SimulatedBackend, pedal: SimulatedPedal) -> None:
    dev = find(bus)
    ep = open_for_reading(dev)
    pedal.stall()
    with pytest.raises(usb.core.USBError) as stalled:
        ep.read(ep.wMaxPacketSize, timeout=20)
    assert stalled.value.errno == errno.EPIPE
    ep.clear_halt()
    pedal.corrupt_next(1, "oversize")
    pedal.click(0)
    with pytest.raises(usb.core.USBError) as overflow:
        ep.read(ep.wMaxPacketSize, timeout=1000)
    assert overflow.value.errno == errno.EOVERFLOW
    assert decode_report(bytes(ep.read(ep.wMaxPacketSize, timeout=1000))).event is EventType.UP
    usb.util.dispose_resources(dev)


def test_unplug_fails_handles_and_reads_with_enodev_and_replug_reenumerates(
    bus: SimulatedBackend, pedal: SimulatedPedal
) -> None:
    dev = find(bus)
    ep = open_for_reading(dev)
    address = dev.address
    pedal.unplug()
    with pytest.raises(usb.core.USBError) as gone:
        ep.read(ep.wMaxPacketSize, timeout=1000)
    assert gone.value.errno == errno.ENODEV
    with pytest.raises(usb.core.USBError) as gone:
        dev.ctrl_transfer(0x80, 0x00, 0, 0, 2)
    assert gone.value.errno == errno.ENODEV
    assert find(bus) is None
    usb.util.dispose_resources(dev)  # must not raise on a vanished device
    pedal.replug()
    again = find(bus)
    assert again is not None and again.address != address
    assert again.is_kernel_driver_active(0)  # the OS bound its driver again
    with pytest.raises(usb.core.USBError) as stale:
        dev.ctrl_transfer(0x80, 0x00, 0, 0, 2)  # the old identity stays dead
    assert stale.value.errno == errno.ENODEV
    usb.util.dispose_resources(again)


def test_hung_device_times_out_control_requests(bus: SimulatedBackend, pedal: SimulatedPedal) -> None:
    dev = find(bus)
    pedal.hang()
    with pytest.raises(usb.core.USBTimeoutError):
        dev.ctrl_transfer(0x80, 0x00, 0, 0, 2, timeout=30)
    pedal.unhang()
    assert bytes(dev.ctrl_transfer(0x80, 0x00, 0, 0, 2)) == b"\x00\x00"
    usb.util.dispose_resources(dev)


def test_unknown_requests_stall_and_hid_report_descriptor_needs_the_interface(bus: SimulatedBackend) -> None:
    dev = find(bus)
    with pytest.raises(usb.core.USBError) as stalled:
        dev.ctrl_transfer(0xC1, 0x7F, 0, 0, 8)
    assert stalled.value.errno == errno.EPIPE
    with pytest.raises(usb.core.USBError) as stalled:
        dev.ctrl_transfer(0x41, 0x01, 0, 0, b"\x01")  # no host-to-device request exists
    assert stalled.value.errno == errno.EPIPE
    with pytest.raises(usb.core.USBError) as busy:
        # pyusb claims the interface for a standard interface request: the HID driver holds it.
        dev.ctrl_transfer(0x81, 0x06, 0x2200, 0, 64)
    assert busy.value.errno == errno.EBUSY
    dev.detach_kernel_driver(0)
    assert bytes(dev.ctrl_transfer(0x81, 0x06, 0x2200, 0, 64)) == p.hid_report_descriptor()
    reply = decode_self_test(bytes(dev.ctrl_transfer(0xC1, p.REQUEST_SELF_TEST, 0, 0, p.self_test_length())))
    assert (reply.flags, reply.installed, reply.long_press_ms) == (0, 0b111, 800)
    usb.util.dispose_resources(dev)
