"""Guard tests of the drivers' full mutation set, the last round (the ``drivers`` guard,
docs/testing.md):

* a device announcing a protocol version the station does not speak is refused, once, as
  ``unsupported_version`` naming both versions, and is never taken as connected
  (``drivers/devices/link.py``, ``open``).
"""

from __future__ import annotations

from drivers.devices import ShoeDriver
from drivers.simulators import start_simulator
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
