"""Guard tests of the message tables, the serial link's heartbeat, the USB pedals' frame count
and the device URLs, round 26 (the ``drivers`` mutation guard, docs/testing.md), through the
stream codec, the link against the shoe simulator on a pseudo-terminal, the pedals driver on
the simulated pyusb bus, and ``url_problem``.

Each test answers a mutant that survived the guard's tests:

* an extensible message (the IdentityReport) cut short before one of its version-1 fields is a
  bad payload that says where the payload ends: only the fields a later version added may be
  missing, and they alone take their defaults (``drivers/codec/protocol.py``,
  ``Message.unpack``);
* a link that has heard from its device within the heartbeat is never pinged: the heartbeat is
  due only once the link's clock has moved a whole heartbeat past the last byte heard, however
  often the supervisor wakes to look (``drivers/devices/link.py``, ``serve``);
* the pedals' ``frames_in`` counts every intact report read, one each: a click (its DOWN and
  its UP) is two frames in, as many as the recent-frames history shows
  (``drivers/devices/pedals.py``, ``_handle_report``);
* a serial device's URL with a colon before its first slash and no ``scheme://`` is named as
  neither a device path nor a URL (``drivers/transport/urls.py``, ``url_problem``).
"""

from __future__ import annotations

import dataclasses
import threading
from types import SimpleNamespace

import pytest

import drivers.devices.link as link_module
from drivers.codec import get_protocol
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import CodecError, IdentityReport, Packet, Ping, StreamCodec
from drivers.devices import Backoff, PedalDriver
from drivers.devices.link import DeviceLink
from drivers.devices.reconnect import Outage
from drivers.simulators import ShoeSimulator
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.serial_port import SerialTransport
from drivers.transport.urls import url_problem
from drivers.usb.locator import simulated_locator
from tests.devices.rigs import EventLog

from ..waiting import wait_until
from .helpers import FAST, WAIT

SHOE = get_protocol("shoe")


# -- the message tables -------------------------------------------------------------------------


def _identity_payload(*texts: str) -> bytes:
    out = bytearray()
    for text in texts:
        data = text.encode("utf-8")
        out.append(len(data))
        out += data
    return bytes(out)


def test_an_identity_report_cut_before_a_version_1_field_is_a_bad_payload_saying_where_it_ends() -> None:
    """The IdentityReport is extensible: a version-1 unit's report ends after its firmware and
    the protocol version (added in version 2) takes its default. Its model, serial and firmware
    are version 1's: a report ending before the firmware is not an older version's, it is cut
    short, and the codec says so, at the offset where the firmware's length should be."""
    codec = StreamCodec(SHOE)
    whole = _identity_payload("SHOE-9", "SN-1", "1.0")
    cut = _identity_payload("SHOE-9", "SN-1")
    out = codec.feed(encode_frame(1, IdentityReport.TYPE, whole) + encode_frame(2, IdentityReport.TYPE, cut))

    assert isinstance(out[0], Packet)
    assert out[0].message == IdentityReport("SHOE-9", "SN-1", "1.0", protocol_version=1)
    assert isinstance(out[1], CodecError)
    assert (out[1].fault, out[1].seq) == ("bad_payload", 2)
    assert out[1].detail == f"payload ends inside text length (needs 1 byte(s) at offset {len(cut)})"
    assert codec.payload_errors == 1


# -- the link's heartbeat -----------------------------------------------------------------------


class _StoppedClock:
    """The link's monotonic clock, stopped by the test: no time passes on it. It counts how often
    the supervisor's thread reads it (twice each time it wakes to look)."""

    def __init__(self, supervisor: str) -> None:
        self.now = 1000.0
        self.supervisor = supervisor
        self.readings = 0

    def __call__(self) -> float:
        if threading.current_thread().name == self.supervisor:
            self.readings += 1
        return self.now


def test_a_link_that_heard_from_its_device_within_the_heartbeat_is_never_pinged(
    shoe: ShoeSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last byte heard (the power-on Boot) is at the link clock's present, and that clock
    stands still: however often the supervisor wakes (a short real heartbeat of 50 ms), the
    link is never a heartbeat quiet, so no Ping is counted or sent."""
    clock = _StoppedClock("shoe-serve")
    monkeypatch.setattr(link_module, "time", SimpleNamespace(monotonic=clock))
    settings = dataclasses.replace(FAST, heartbeat=0.05)
    link = DeviceLink("shoe", SerialTransport(shoe.url), SHOE, on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=settings)
    outcome: list[Outage] = []
    supervisor = threading.Thread(target=lambda: outcome.append(link.serve()), name="shoe-serve", daemon=True)
    try:
        assert link.open() is None
        assert shoe.wait_idle(WAIT)  # the power-on Boot is acknowledged
        supervisor.start()
        wait_until(lambda: clock.readings >= 20, WAIT, "the supervisor to look ten times")
        assert link.stats.heartbeats == 0
        assert not any(isinstance(m, Ping) for m in list(shoe.received))
    finally:
        link.close(final=False)
        supervisor.join(WAIT)
        link.stop()
    assert outcome == [Outage("closed", "link_lost")]


# -- the pedals' frames in ----------------------------------------------------------------------


def test_each_report_the_pedals_send_is_one_frame_in(events: EventLog, drivers: list[PedalDriver]) -> None:
    """Three clicks are three DOWNs and three UPs: six intact reports, six frames in, the six
    the recent-frames history holds."""
    pedal = SimulatedPedal("PED-SIM-0026", timed_long_press=False)
    driver = PedalDriver("pedals", simulated_locator(SimulatedBackend([pedal]), "PED-SIM-0026"), events,
                         backoff=Backoff(initial_s=0.02, factor=2.0, cap_s=0.2), read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    pedal.click("left", times=3)
    assert events.wait_presses(3) == [("left", False)] * 3
    wait_until(lambda: len(driver.recent_frames()) >= 6, WAIT, "the three UPs in the history")
    assert driver.stats.frames_in == 6
    assert [direction for _, direction, _, _ in driver.recent_frames()] == ["in"] * 6
    assert driver.stats.bad_frames == 0


# -- the device URLs ----------------------------------------------------------------------------


def test_a_serial_url_with_a_colon_before_its_first_slash_and_no_scheme_is_neither_path_nor_url() -> None:
    assert url_problem("shuffler", "tty:USB0") == "'tty:USB0' is neither a device path nor a URL (scheme://...)"
    assert url_problem("shuffler", "/dev/ttyUSB0") is None
