"""Guard tests of the USB path's error vocabulary and of the pedals' remote backend (the
``drivers`` mutation guard, docs/testing.md), through the simulated pyusb backends.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the simulated backend raises what pyusb's libusb-1.0 backend raises: the same libusb error
  numbers (``libusb_error`` in libusb.h, as ``usb.backend.libusb1`` has them), messages and
  errno values (``drivers/usb/errors.py``, ``LibusbError``; a wrong number there made the
  simulator's "I/O error" an "invalid parameter" and its fault code another);
* a backend that finds no libusb while looking for the unit is the fault ``no-backend``, not a
  generic error (``fault_code``);
* the remote backend (``usb-sim://``) waits for the simulator's answer the call's USB timeout
  plus 10 s, no longer: its socket timeout is the timeout in milliseconds made seconds
  (``drivers/usb/remote.py``). The timeouts it sets are recorded, not waited out;
* each failure the simulator's server sends back is raised by the client as the same kind of
  exception (``error_from_wire``);
* a locator's option given twice or empty is refused (``drivers/usb/locator.py``).
"""

from __future__ import annotations

import errno
import socket
import types
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
import usb.backend.libusb1
import usb.core

from drivers.devices import Backoff, PedalDriver
from drivers.simulators.pedals.backend import SimDeviceId, SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.usb import remote
from drivers.usb.errors import LibusbError, fault_code, usb_error
from drivers.usb.locator import LocatorError, parse_locator, simulated_locator
from station.events import DeviceFault, DeviceRecovered
from tests.devices.rigs import EventLog

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.2)




@pytest.mark.parametrize("code", list(LibusbError), ids=lambda code: code.name)
def test_each_libusb_error_is_raised_as_pyusb_s_libusb1_backend_raises_it(code: LibusbError) -> None:
    assert int(code) == getattr(usb.backend.libusb1, f"LIBUSB_ERROR_{code.name}")
    raised = usb_error(code)
    if code is LibusbError.NOT_SUPPORTED:  # pyusb's backend raises NotImplementedError for it
        assert type(raised) is NotImplementedError
        return
    assert type(raised) is (usb.core.USBTimeoutError if code is LibusbError.TIMEOUT else usb.core.USBError)
    assert isinstance(raised, usb.core.USBError)
    assert raised.strerror == usb.backend.libusb1._str_error_map[int(code)]
    assert raised.backend_error_code == int(code)
    assert raised.errno == usb.backend.libusb1._libusb_errno[int(code)]


def test_the_simulated_errors_give_the_fault_codes_of_the_real_ones() -> None:
    assert fault_code(usb_error(LibusbError.IO)) == "io-error"
    assert fault_code(usb_error(LibusbError.NOT_FOUND)) == "disconnected"
    assert fault_code(usb_error(LibusbError.NO_DEVICE)) == "disconnected"
    assert fault_code(usb_error(LibusbError.INVALID_PARAM)) == "usb-error"
    errnos = [getattr(usb_error(code), "errno", None) for code in (LibusbError.IO, LibusbError.NOT_FOUND)]
    assert errnos == [errno.EIO, errno.ENOENT]


class _NoLibusb(SimulatedBackend):
    """A backend whose library cannot be used once asked for devices (as pyusb says when it
    finds no libusb)."""

    def enumerate_devices(self) -> Iterator[SimDeviceId]:
        raise usb.core.NoBackendError("No backend available")


def test_no_libusb_met_while_looking_for_the_unit_is_the_fault_no_backend(events: EventLog,
                                                                         drivers: list[PedalDriver]) -> None:
    assert fault_code(usb.core.NoBackendError("No backend available")) == "no-backend"
    driver = PedalDriver("pedals", simulated_locator(_NoLibusb([SimulatedPedal()]), "PED-SIM-0001"), events,
                         backoff=FAST, read_timeout_ms=50)
    drivers.append(driver)
    driver.start()
    fault = events.wait_kind(DeviceFault)[0]
    assert fault.code == "no-backend" and "No backend available" in fault.reason
    assert not driver.connected


class _RecordingSocket(socket.socket):
    """A client socket that keeps every timeout it is given."""

    timeouts: ClassVar[list[float | None]] = []

    def settimeout(self, value: float | None) -> None:
        _RecordingSocket.timeouts.append(value)
        super().settimeout(value)


def test_the_remote_backend_waits_the_usb_timeout_and_10_s_more(tmp_path: Path, events: EventLog,
                                                                drivers: list[PedalDriver],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pedal = SimulatedPedal("PED-R-1", timed_long_press=False)
    server = PedalSimServer(str(tmp_path / "p.sock"), SimulatedBackend([pedal])).start()
    _RecordingSocket.timeouts = []
    monkeypatch.setattr(remote, "socket", types.SimpleNamespace(
        socket=_RecordingSocket, AF_UNIX=socket.AF_UNIX, SOCK_STREAM=socket.SOCK_STREAM))
    try:
        driver = PedalDriver("pedals", server.url, events, backoff=FAST, read_timeout_ms=250,
                             control_timeout_ms=750, heartbeat_s=60.0)
        drivers.append(driver)
        assert driver.start()
        pedal.click("left")
        assert events.wait_presses(1) == [("left", False)]
        # calls without a timeout (descriptors, claiming), the control requests (750 ms), the reads (250 ms)
        assert set(_RecordingSocket.timeouts) == {10.0, 10.75, 10.25}
        driver.stop()
    finally:
        server.stop()
    assert [type(e) for e in events.events if isinstance(e, (DeviceFault, DeviceRecovered))] == []



@pytest.mark.parametrize("query", ["serial=", "serial=A&serial=B", "id=&serial=PED-1"])
def test_a_locator_option_needs_exactly_one_value(query: str) -> None:
    with pytest.raises(LocatorError, match="needs exactly one value"):
        parse_locator(f"usb://1209:0001?{query}")
    assert parse_locator("usb://1209:0001?serial=PED-1").serial == "PED-1"


@pytest.mark.parametrize("error", [usb_error(LibusbError.TIMEOUT), usb_error(LibusbError.PIPE),
                                   NotImplementedError("Operation not supported"), IndexError("no interface 3"),
                                   ValueError("bad handle")], ids=lambda e: type(e).__name__)
def test_each_failure_crosses_the_remote_wire_as_what_it_was(error: BaseException) -> None:
    back = remote.error_from_wire(remote.error_to_wire(error))
    assert type(back) is type(error)
    assert str(back) == str(error)
    assert getattr(back, "errno", None) == getattr(error, "errno", None)
