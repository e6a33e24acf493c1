"""Constants of the dealer-pedal USB protocol (see ``docs/protocols/pedals.md``).

Everything a compatible device must present is named here once, so the codec, the driver,
the simulated device and the documentation cannot drift apart: identifiers, descriptor
values, the report layout and the vendor requests, in each version of the protocol.
"""

from __future__ import annotations

from enum import IntEnum

# --- versions ------------------------------------------------------------------------------

#: The versions of the pedal protocol the station speaks (the changelog is in the document).
#: Version 1: 8-byte reports and self-test replies checked by a CRC-8, and no version request.
#: Version 2: the same fields checked by a CRC-16, the serial protocols' (9 bytes, report ID
#: 2), and the GET_PROTOCOL_VERSION request that says so. Of damaged reports the 8-bit check
#: let 173 per million through, the 16-bit one 0.4 per million (bench/pedal_fuzz.py).
PROTOCOL_VERSION = 2
OLDEST_PROTOCOL_VERSION = 1
PROTOCOL_VERSIONS = range(OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION + 1)

# --- identity ------------------------------------------------------------------------------

#: pid.codes, the open-source hardware vendor ID.
VENDOR_ID = 0x1209
#: pid.codes "Test PID": reserved for testing and development, not unique. A production
#: pedal gets its own PID from pid.codes; the station then names it in its locator.
PRODUCT_ID = 0x0001

MANUFACTURER = "Dealing Station"
PRODUCT = "Dealer Pedals"

# --- descriptors ---------------------------------------------------------------------------

CONFIGURATION_VALUE = 1
INTERFACE_NUMBER = 0
#: HID class: the operating system binds its generic HID driver, which the station detaches.
INTERFACE_CLASS = 0x03
INTERFACE_SUBCLASS = 0x00  # no boot protocol
INTERFACE_PROTOCOL = 0x00
ENDPOINT_IN = 0x81  # endpoint 1, direction IN
ENDPOINT_ATTRIBUTES = 0x03  # interrupt transfer
POLL_INTERVAL_MS = 10  # bInterval on a full-speed device is in milliseconds


def max_packet_size(version: int = PROTOCOL_VERSION) -> int:
    """wMaxPacketSize of the interrupt IN endpoint: 8 (version 1) or 16 (version 2's 9-byte reports)."""
    return 8 if version == 1 else 16


def hid_report_descriptor(version: int = PROTOCOL_VERSION) -> bytes:
    """The HID report descriptor: vendor-defined page 0xFF00, one input report whose ID is the
    version's (1 or 2), followed by 7 (version 1) or 8 (version 2) data bytes."""
    return bytes.fromhex(
        "0600ff"  # Usage Page (Vendor Defined 0xFF00)
        "0901"  # Usage (0x01)
        "a101"  # Collection (Application)
        f"85{report_id(version):02x}"  # Report ID (1 or 2)
        "0902"  # Usage (0x02)
        "1500"  # Logical Minimum (0)
        "26ff00"  # Logical Maximum (255)
        "7508"  # Report Size (8)
        f"95{report_length(version) - 1:02x}"  # Report Count (7 or 8)
        "8102"  # Input (Data, Variable, Absolute)
        "c0"  # End Collection
    )


# --- interrupt IN report -------------------------------------------------------------------


def report_id(version: int) -> int:
    """The report ID of a version's reports: 1 (CRC-8) or 2 (CRC-16)."""
    return 0x01 if version == 1 else 0x02


def report_length(version: int = PROTOCOL_VERSION) -> int:
    """Bytes in a report (and a self-test reply): 7 bytes of fields and the check, 1 or 2 bytes."""
    return 8 if version == 1 else 9


#: The fields of a report before its check (both versions).
REPORT_FIELDS_LENGTH = 7
MAX_BUTTONS = 8
#: Reserved flag bits must be zero; a report with any of them set is corrupt.
FLAG_LONG = 0x01
FLAG_RESERVED_MASK = 0xFE
#: The device counts a hold as long from this many milliseconds (its default; reported by
#: the self-test so the host can show it).
DEFAULT_LONG_PRESS_MS = 800
#: Report buffer depth in the device: older reports are dropped when the host does not poll.
DEVICE_REPORT_BUFFER = 32


class EventType(IntEnum):
    """What happened to the button named in the report."""

    DOWN = 0x01
    UP = 0x02
    LONG = 0x03  # still held, and the hold just reached the long-press threshold


# --- control requests ----------------------------------------------------------------------

#: bmRequestType: device-to-host, vendor, recipient interface.
VENDOR_IN_INTERFACE = 0xC1
REQUEST_SELF_TEST = 0x01
#: Version 2: one byte, the protocol version the unit speaks. A version-1 unit stalls it.
REQUEST_PROTOCOL_VERSION = 0x02
PROTOCOL_VERSION_LENGTH = 1


def self_test_format(version: int) -> int:
    """Byte 0 of a self-test reply: 1 (CRC-8) or 2 (CRC-16)."""
    return 0x01 if version == 1 else 0x02


def self_test_length(version: int = PROTOCOL_VERSION) -> int:
    """Bytes in a self-test reply: 8 (version 1) or 9 (version 2), as a report."""
    return report_length(version)


class SelfTestFlag(IntEnum):
    """Status bits of the self-test reply; zero means healthy."""

    SWITCH_STUCK = 0x01  # a switch was closed at power-up
    WIRING_OPEN = 0x02  # a pedal cable is open (sense resistor missing)
    BUFFER_OVERFLOW = 0x04  # reports were dropped since the last self-test
    WATCHDOG_RESET = 0x08  # firmware restarted by its watchdog since power-up


# Standard requests the host uses.
STANDARD_IN_DEVICE = 0x80
STANDARD_IN_INTERFACE = 0x81
REQUEST_GET_STATUS = 0x00
REQUEST_GET_DESCRIPTOR = 0x06
DESCRIPTOR_HID_REPORT = 0x22

#: Default names of the first buttons; a device may have fewer or more (up to 8).
DEFAULT_BUTTONS: tuple[str, ...] = ("left", "centre", "right")


def firmware_version(bcd_device: int) -> str:
    """``bcdDevice`` 0x0102 -> ``"1.02"`` (binary-coded decimal major.minor)."""
    major = (bcd_device >> 8) & 0xFF
    minor = bcd_device & 0xFF
    return f"{major:x}.{minor:02x}"


def bcd_from_version(version: str) -> int:
    """``"1.02"`` -> 0x0102; the inverse of :func:`firmware_version`."""
    major, _, minor = version.partition(".")
    if not (major.isdigit() and minor.isdigit() and len(major) <= 2 and len(minor) <= 2):
        raise ValueError(f"firmware version {version!r} is not MAJOR.MINOR with up to two digits each")
    return (int(major, 16) << 8) | int(minor.ljust(2, "0"), 16)
