"""What a simulated pedal unit presents to the host's USB stack: its descriptors and the
answers to standard requests.

Everything here follows from the unit's identity (VID/PID, strings, firmware version) and
the protocol's constants (``drivers/usb/protocol.py``): the parsed descriptors pyusb's backend
interface hands over, the same descriptors as raw bytes (``GET_DESCRIPTOR`` on endpoint 0),
and the string descriptors. It holds no state that changes while the unit runs.
"""

from __future__ import annotations

import struct
from typing import Any

from drivers.usb import protocol as p
from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError, usb_error

LIBUSB_SPEED_FULL = 2
GET_CONFIGURATION = 0x08


class PedalDescriptors:
    """The descriptors of one unit, parsed and raw."""

    def __init__(
        self,
        *,
        serial: str,
        firmware: str,
        vendor_id: int = p.VENDOR_ID,
        product_id: int = p.PRODUCT_ID,
        manufacturer: str = p.MANUFACTURER,
        product: str = p.PRODUCT,
        protocol_version: int = p.PROTOCOL_VERSION,
    ) -> None:
        self.strings = {1: manufacturer, 2: product, 3: serial}
        self.hid_report = p.hid_report_descriptor(protocol_version)  # its report ID is the version's
        self.max_packet_size = p.max_packet_size(protocol_version)
        self.device_fields: dict[str, Any] = {
            "bLength": 18,
            "bDescriptorType": 0x01,
            "bcdUSB": 0x0200,
            "bDeviceClass": 0x00,
            "bDeviceSubClass": 0x00,
            "bDeviceProtocol": 0x00,
            "bMaxPacketSize0": 64,
            "idVendor": vendor_id,
            "idProduct": product_id,
            "bcdDevice": p.bcd_from_version(firmware),
            "iManufacturer": 1,
            "iProduct": 2,
            "iSerialNumber": 3,
            "bNumConfigurations": 1,
        }

    # -- parsed, as pyusb's backend interface returns them --------------------------------------

    def device(self, *, bus: int, address: int, port: int) -> Descriptor:
        return Descriptor(
            **self.device_fields,
            bus=bus,
            address=address,
            port_number=port,
            port_numbers=(port,),
            speed=LIBUSB_SPEED_FULL,
        )

    def configuration(self, index: int) -> Descriptor:
        if index != 0:
            raise usb_error(LibusbError.NOT_FOUND)
        return Descriptor(
            bLength=9,
            bDescriptorType=0x02,
            wTotalLength=len(self.configuration_bytes()),
            bNumInterfaces=1,
            bConfigurationValue=p.CONFIGURATION_VALUE,
            iConfiguration=0,
            bmAttributes=0x80,  # bus powered, no remote wake-up
            bMaxPower=50,  # 100 mA in 2 mA units
            extra_descriptors=[],
        )

    def interface(self, intf: int, alt: int, config: int) -> Descriptor:
        self.configuration(config)
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
            extra_descriptors=list(self.hid_descriptor_bytes()),
        )

    def endpoint(self, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        self.interface(intf, alt, config)
        if ep != 0:
            raise IndexError(f"Invalid endpoint index {ep}")
        return Descriptor(
            bLength=7,
            bDescriptorType=0x05,
            bEndpointAddress=p.ENDPOINT_IN,
            bmAttributes=p.ENDPOINT_ATTRIBUTES,
            wMaxPacketSize=self.max_packet_size,
            bInterval=p.POLL_INTERVAL_MS,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    # -- raw, as GET_DESCRIPTOR returns them ----------------------------------------------------

    def device_bytes(self) -> bytes:
        f = self.device_fields
        return struct.pack(
            "<BBHBBBBHHHBBBB",
            f["bLength"], f["bDescriptorType"], f["bcdUSB"], f["bDeviceClass"],
            f["bDeviceSubClass"], f["bDeviceProtocol"], f["bMaxPacketSize0"], f["idVendor"],
            f["idProduct"], f["bcdDevice"], f["iManufacturer"], f["iProduct"],
            f["iSerialNumber"], f["bNumConfigurations"],
        )

    def hid_descriptor_bytes(self) -> bytes:
        return struct.pack("<BBHBBBH", 9, 0x21, 0x0111, 0, 1, p.DESCRIPTOR_HID_REPORT, len(self.hid_report))

    def configuration_bytes(self) -> bytes:
        interface = struct.pack(
            "<BBBBBBBBB", 9, 0x04, p.INTERFACE_NUMBER, 0, 1,
            p.INTERFACE_CLASS, p.INTERFACE_SUBCLASS, p.INTERFACE_PROTOCOL, 0,
        )
        endpoint = struct.pack(
            "<BBBBHB", 7, 0x05, p.ENDPOINT_IN, p.ENDPOINT_ATTRIBUTES, self.max_packet_size, p.POLL_INTERVAL_MS
        )
        body = interface + self.hid_descriptor_bytes() + endpoint
        header = struct.pack("<BBHBBBBB", 9, 0x02, 9 + len(body), 1, p.CONFIGURATION_VALUE, 0, 0x80, 50)
        return header + body

    def standard_reply(
        self, request_type: int, request: int, value: int, index: int, configuration: int
    ) -> bytes | None:
        """The answer to a standard request on endpoint 0, or ``None`` if the unit stalls it."""
        kind, number = value >> 8, value & 0xFF
        if request_type == p.STANDARD_IN_DEVICE and request == p.REQUEST_GET_DESCRIPTOR:
            if kind == 0x01:
                return self.device_bytes()
            if kind == 0x02 and number == 0:
                return self.configuration_bytes()
            if kind == 0x03 and number == 0:
                return bytes((4, 0x03, 0x09, 0x04))  # one language: 0x0409 English (US)
            if kind == 0x03 and number in self.strings:
                text = self.strings[number].encode("utf-16-le")
                return bytes((2 + len(text), 0x03)) + text
            return None
        if request_type == p.STANDARD_IN_INTERFACE and request == p.REQUEST_GET_DESCRIPTOR:
            if kind == p.DESCRIPTOR_HID_REPORT and index == p.INTERFACE_NUMBER:
                return self.hid_report
            return None
        if request_type == p.STANDARD_IN_DEVICE and request == p.REQUEST_GET_STATUS:
            return b"\x00\x00"
        if request_type == p.STANDARD_IN_DEVICE and request == GET_CONFIGURATION:
            return bytes((configuration,))
        return None
