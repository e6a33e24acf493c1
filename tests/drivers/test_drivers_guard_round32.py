"""Guard tests of the drivers' full mutation set, the last round (the ``drivers`` guard,
docs/testing.md):

* a device announcing a protocol version the station does not speak is refused, once, as
  ``unsupported_version`` naming both versions, and is never taken as connected
  (``drivers/devices/link.py``, ``open``);
* a foot switch named by its node path takes no serial, phys or name besides, and says so
  (``drivers/input/locator.py``);
* a device whose URL is still the example's placeholder is told to run ``station diag ports``
  and put its stable path there (``drivers/transport/urls.py``);
* a pedal self-test reply of a format the station does not know is refused naming it
  (``drivers/usb/codec.py``);
* a wire type reads as its declaration, without what it works out from it (a number's struct
  format, a record's layout and its store of decoded records), as a frame and an enum do
  (``drivers/codec/fields.py``).
"""

from __future__ import annotations

import pytest

from drivers.codec import display
from drivers.codec.fields import U16
from drivers.devices import ShoeDriver
from drivers.input.locator import EvdevLocatorError, parse_evdev_locator
from drivers.simulators import start_simulator
from drivers.transport.urls import FILL_IN, url_problem
from drivers.usb import protocol as p
from drivers.usb.codec import ReportError, crc16, decode_self_test
from station import events as ev

from ..waiting import stays_false
from .helpers import FAST, WAIT, Recorder


def test_a_device_announcing_a_newer_protocol_is_refused_as_unsupported_and_never_connected(rec: Recorder) -> None:
    running = start_simulator("shoe", ack_timeout=0.05, announced_version=3)
    driver = ShoeDriver("shoe", running.url, rec, settings=FAST)
    try:
        driver.start(WAIT)
        fault = rec.wait_kind(ev.DeviceFault)[0]
        assert fault.code == "unsupported_version"
        assert "protocol version 3, newer than the versions this station speaks (1-2)" in fault.reason
        assert driver.link.refused is not None and "version 3" in driver.link.refused
        stays_false(lambda: driver.connected, 0.5, "the refused shoe taken as connected")
        assert rec.of(ev.DeviceRecovered) == [] and len(rec.of(ev.DeviceFault)) == 1  # said once
    finally:
        driver.stop()
        running.stop()


@pytest.mark.parametrize("option", ["serial=FS-1", "phys=usb-1/input0", "name=Pedal"])
def test_a_foot_switch_named_by_its_node_takes_no_other_description(option: str) -> None:
    text = f"evdev:///dev/input/by-id/usb-pedal-event-kbd?{option}"
    with pytest.raises(EvdevLocatorError, match="a node path needs no serial, phys or name"):
        parse_evdev_locator(text)
    assert parse_evdev_locator(text.split("?", maxsplit=1)[0]).path == "/dev/input/by-id/usb-pedal-event-kbd"


def test_a_url_still_the_placeholder_says_to_run_station_diag_ports() -> None:
    problem = url_problem("shoe", FILL_IN + "-the-shoe")
    assert problem is not None and "run `station diag ports` on the table PC" in problem
    assert "the shoe's stable path" in problem


def test_a_pedal_self_test_reply_of_an_unknown_format_is_refused_naming_it() -> None:
    version = 2  # docs/protocols/pedals.md: version 2's reply ends in a CRC-16, high byte first
    length = p.self_test_length(version)
    good_format = p.self_test_format(version)
    body = bytes([good_format ^ 0x40]) + bytes(length - 3)
    raw = body + crc16(body).to_bytes(2, "big")
    with pytest.raises(ReportError, match=f"self-test reply format 0x{good_format ^ 0x40:02x} unknown"):
        decode_self_test(raw, version)


def test_a_wire_type_reads_as_its_declaration_alone() -> None:
    assert repr(U16) == "UInt(size=2)"
    bead = repr(display.BEAD)
    assert bead.startswith("Record(cls=<class 'drivers.codec.display.BeadCell'>, fields=(")
    assert "layout" not in bead and "_decoded" not in bead and "Struct" not in bead
